package examples_test

import (
	"bytes"
	"flag"
	"fmt"
	"go/ast"
	"go/doc"
	"go/format"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite README.md code blocks from the Example functions")

// exampleBlock finds README blocks introduced by a marker naming an Example function:
//
//	<!-- example: daemonset.ExamplePlan -->
//	```go
//	...
//	```
var exampleBlock = regexp.MustCompile("(?s)<!-- example: ([a-z]+)\\.(Example[A-Za-z0-9_]*) -->\n```go\n(.*?)```\n")

// readmeExample is one README block: the Example it shows and the program a reader pastes.
type readmeExample struct {
	pkg, name string
	program   string
}

// TestREADMEExamples keeps README.md's code blocks equal to the Example functions they name,
// written out as the whole program go doc offers to run (package main, its imports, the
// helpers it calls, main) followed by the output the Example checks. So the README only shows
// code that compiles as it stands and whose printed output is tested.
func TestREADMEExamples(t *testing.T) {
	examples := readmeExamples(t)
	for _, ex := range examples {
		if strings.Contains(ex.program, "/internal/") {
			t.Errorf("README.md block %s.%s imports an internal package, which a user's module cannot", ex.pkg, ex.name)
		}
	}
}

// TestREADMEExamplesBuildInAUserModule builds every README block as its own main package in a
// module outside this one, with this repository as its dependency: what a reader who pastes a
// block into a file of their own gets.
func TestREADMEExamplesBuildInAUserModule(t *testing.T) {
	examples := readmeExamples(t)
	repo, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	goMod, err := os.ReadFile(filepath.Join(repo, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	goSum, err := os.ReadFile(filepath.Join(repo, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	user := t.TempDir()
	mod := userGoMod(t, goMod, repo)
	write := func(path string, data []byte) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(user, "go.mod"), mod)
	write(filepath.Join(user, "go.sum"), goSum)
	for _, ex := range examples {
		write(filepath.Join(user, ex.pkg+"_"+ex.name, "main.go"), []byte(ex.program))
	}
	cmd := exec.Command("go", "vet", "./...")
	cmd.Dir = user
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the README blocks do not build in a user's module: %v\n%s", err, out)
	}
}

// userGoMod is a go.mod for a module that requires this one, replaced by the checkout at repo,
// at the versions this module requires.
func userGoMod(t *testing.T, goMod []byte, repo string) []byte {
	t.Helper()
	var b bytes.Buffer
	b.WriteString("module example.com/user\n\n")
	inRequire := false
	for _, line := range strings.Split(string(goMod), "\n") {
		switch {
		case strings.HasPrefix(line, "go "), strings.HasPrefix(line, "toolchain "):
			b.WriteString(line + "\n")
		case strings.HasPrefix(line, "require ("):
			inRequire = true
			b.WriteString(line + "\n")
		case inRequire:
			b.WriteString(line + "\n")
			inRequire = line != ")"
		case strings.HasPrefix(line, "require "):
			b.WriteString(line + "\n")
		}
	}
	fmt.Fprintf(&b, "require github.com/daemonsched/daemonsched v0.0.0\n\nreplace github.com/daemonsched/daemonsched => %s\n", strconv.Quote(repo))
	return b.Bytes()
}

// readmeExamples checks every README block against the program of its Example; with -update
// it rewrites the blocks instead.
func readmeExamples(t *testing.T) []readmeExample {
	t.Helper()
	path := filepath.Join("..", "README.md")
	readme, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	matches := exampleBlock.FindAllSubmatchIndex(readme, -1)
	if len(matches) == 0 {
		t.Fatal("README.md has no <!-- example: pkg.ExampleName --> blocks")
	}
	var out bytes.Buffer
	var examples []readmeExample
	last := 0
	for _, m := range matches {
		pkg, name := string(readme[m[2]:m[3]]), string(readme[m[4]:m[5]])
		got := string(readme[m[6]:m[7]])
		want, err := exampleProgram(filepath.Join("..", pkg), name)
		if err != nil {
			t.Fatalf("README.md block %s.%s: %v", pkg, name, err)
		}
		if got != want && !*update {
			t.Errorf("README.md block %s.%s is out of date; run go test ./examples -run TestREADMEExamples -update\n--- README\n%s--- %s\n%s", pkg, name, got, name, want)
		}
		examples = append(examples, readmeExample{pkg: pkg, name: name, program: want})
		out.Write(readme[last:m[6]])
		out.WriteString(want)
		last = m[7]
	}
	out.Write(readme[last:])
	if *update {
		if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return examples
}

// exampleProgram returns the Example function name of the test files of dir as go doc's
// runnable program, its imports grouped as gofmt users write them (standard library first),
// followed by the Example's expected output as a comment.
func exampleProgram(dir, name string) (string, error) {
	fset := token.NewFileSet()
	files, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
	if err != nil {
		return "", err
	}
	var parsed []*ast.File
	for _, f := range files {
		file, err := parser.ParseFile(fset, f, nil, parser.ParseComments)
		if err != nil {
			return "", err
		}
		parsed = append(parsed, file)
	}
	for _, ex := range doc.Examples(parsed...) {
		if "Example"+ex.Name != name && !(ex.Name == "" && name == "Example") {
			continue
		}
		if ex.Play == nil {
			return "", fmt.Errorf("%s is not a program a reader can run: it uses something of its own package besides the package's API", name)
		}
		if ex.Output == "" {
			return "", fmt.Errorf("%s has no // Output: comment, so the README could not show what it prints", name)
		}
		var buf bytes.Buffer
		if err := format.Node(&buf, fset, ex.Play); err != nil {
			return "", err
		}
		program, err := format.Source(groupImports(buf.Bytes()))
		if err != nil {
			return "", err
		}
		var text strings.Builder
		text.Write(program)
		text.WriteString("\n// Output:\n")
		for _, line := range strings.Split(strings.TrimSuffix(ex.Output, "\n"), "\n") {
			text.WriteString(strings.TrimRight("// "+line, " ") + "\n")
		}
		return text.String(), nil
	}
	return "", fmt.Errorf("no %s in %s", name, dir)
}

// groupImports rewrites the import block of a formatted program as two groups, the standard
// library then the rest, each sorted, which is how the repository's own files read (go doc
// leaves a blank line between imports from different files).
func groupImports(program []byte) []byte {
	text := string(program)
	open := strings.Index(text, "import (\n")
	if open < 0 {
		return program
	}
	body := open + len("import (\n")
	end := body + strings.Index(text[body:], ")\n")
	var std, other []string
	for _, line := range strings.Split(text[body:end], "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		path := line[strings.IndexByte(line, '"'):]
		if first, _, _ := strings.Cut(strings.Trim(path, `"`), "/"); strings.Contains(first, ".") {
			other = append(other, line)
		} else {
			std = append(std, line)
		}
	}
	byPath := func(a, b string) int {
		return strings.Compare(a[strings.IndexByte(a, '"'):], b[strings.IndexByte(b, '"'):])
	}
	slices.SortFunc(std, byPath)
	slices.SortFunc(other, byPath)
	var b strings.Builder
	b.WriteString(text[:body])
	for _, l := range std {
		b.WriteString("\t" + l + "\n")
	}
	if len(std) > 0 && len(other) > 0 {
		b.WriteString("\n")
	}
	for _, l := range other {
		b.WriteString("\t" + l + "\n")
	}
	b.WriteString(text[end:])
	return []byte(b.String())
}
