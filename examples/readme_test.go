package examples_test

import (
	"bytes"
	"flag"
	"fmt"
	"go/ast"
	"go/doc"
	"go/format"
	"go/parser"
	"go/printer"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
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

// TestREADMEExamples keeps README.md's code blocks equal to the bodies of the Example functions
// they name, so that the README only shows code that compiles and whose output is checked.
func TestREADMEExamples(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	matches := exampleBlock.FindAllSubmatchIndex(readme, -1)
	if len(matches) == 0 {
		t.Fatal("README.md has no <!-- example: pkg.ExampleName --> blocks")
	}
	var out bytes.Buffer
	last := 0
	for _, m := range matches {
		pkg, name := string(readme[m[2]:m[3]]), string(readme[m[4]:m[5]])
		got := string(readme[m[6]:m[7]])
		want, err := exampleBody(filepath.Join("..", pkg), name)
		if err != nil {
			t.Fatalf("README.md block %s.%s: %v", pkg, name, err)
		}
		if got != want && !*update {
			t.Errorf("README.md block %s.%s is out of date; run go test ./examples -run TestREADMEExamples -update\n--- README\n%s--- %s\n%s", pkg, name, got, name, want)
		}
		out.Write(readme[last:m[6]])
		out.WriteString(want)
		last = m[7]
	}
	out.Write(readme[last:])
	if *update {
		if err := os.WriteFile(filepath.Join("..", "README.md"), out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// exampleBody returns the formatted body of the Example function name in the test files of dir,
// without its braces and its // Output: comment.
func exampleBody(dir, name string) (string, error) {
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
		var comments []*ast.CommentGroup
		for _, c := range ex.Comments {
			if !strings.HasPrefix(strings.TrimSpace(c.Text()), "Output:") {
				comments = append(comments, c)
			}
		}
		var buf bytes.Buffer
		if err := format.Node(&buf, fset, &printer.CommentedNode{Node: ex.Code, Comments: comments}); err != nil {
			return "", err
		}
		body := strings.TrimSpace(buf.String())
		body = strings.TrimPrefix(body, "{")
		body = strings.TrimSuffix(body, "}")
		var lines []string
		for _, l := range strings.Split(strings.Trim(body, "\n"), "\n") {
			lines = append(lines, strings.TrimPrefix(l, "\t"))
		}
		return strings.Join(lines, "\n") + "\n", nil
	}
	return "", fmt.Errorf("no %s in %s", name, dir)
}
