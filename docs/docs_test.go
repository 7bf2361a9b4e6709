// Package docs holds the project's specification as Markdown. Its test keeps the specification
// and the repository in step: every rule ID the code, the README, the examples or the CLI's
// golden outputs cite has an entry here, and every entry names files and tests that exist.
package docs

import (
	"cmp"
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
)

// citedRoots are the places, besides every .go file, whose text cites rule IDs: the README,
// the examples and the CLI's golden outputs. Paths are relative to the repository root.
var citedRoots = []string{"README.md", "examples", "internal/cli/testdata"}

// notRuleIDs are tokens shaped like a rule ID (upper-case family, dash, number) that name
// something else. Each is listed exactly; a new family is a rule ID until it is listed here.
var notRuleIDs = map[string]bool{
	"SHA-1":    true, // the UUID version the CLI derives uids with
	"SHA-256":  true,
	"FNV-1a":   true, // the revision hash's function
	"UTF-8":    true,
	"UTF-16":   true,
	"DNS-1123": true, // the name syntax in validation messages
}

// knownSecondPlaces are the production files that still state a rule a second time, beside the
// one place the rule's Code line names first. Each must be named on that Code line, marked
// "(second place)"; any other file on a rule's Code line outside its home package, and outside
// the packages the home builds on, fails the check unless it is marked "(test oracle)" (a
// _test.go file). This is the one list of such copies: a copy that goes leaves the list (the
// check fails on a name that no longer exists), and no new one joins it.
var knownSecondPlaces = map[string][]string{}

// idPattern finds a rule ID. A lower-case letter right after the number names a clause of the
// rule (TAINT-1c is clause (c) of TAINT-1) and cites the rule itself.
var idPattern = regexp.MustCompile(`\b([A-Z]+-[0-9]+)([a-z]?)\b`)

// citation is one place a rule ID occurs.
type citation struct {
	id   string
	file string // relative to the repository root, with forward slashes
	line int
}

func (c citation) String() string { return fmt.Sprintf("%s:%d", c.file, c.line) }

// entry is one rule's section in docs/: a heading that is the ID alone, then the rule's text
// and its "- Code:" and "- Test:" lines, each listing backquoted names.
type entry struct {
	id   string
	file string // the docs file, relative to the repository root
	line int
	// code and tests are what the entry's "- Code:" and "- Test:" lines name; nil when the
	// line is missing. A line that reads "none (reason)" gives an empty, non-nil list.
	code, tests []string
	// marks are the names of the Code line followed by "(test oracle)" or "(second place)",
	// with that mark.
	marks map[string]string
	// none and badNone name the lines that say "none": with the reason in parentheses, and
	// without it.
	none, badNone []string
	// upstream is whether the entry has its "- Upstream:" line. Rules have one; decisions (D-n)
	// are the project's own and scenarios (SCN-n) name the rules they exercise instead.
	upstream bool
}

// repo is what the check reads from one repository tree.
type repo struct {
	root      string
	citations []citation
	entries   map[string][]entry
	testFuncs map[string]bool
	anchors   map[string]map[string]bool // docs file -> anchors its headings define
	links     []link
	// loose are the "- Code:" and "- Test:" lines outside rule entries (in upstream-differences.md,
	// say); what they name must exist too.
	loose []entry
	// secondPlaces is the allow-list of known second implementations, by rule ID.
	secondPlaces map[string][]string
	// importsOf caches, by package directory, the module's package directories it imports.
	importsOf map[string]map[string]bool
}

// link is a relative Markdown link in docs/.
type link struct {
	from   string
	line   int
	target string // file part, resolved relative to the repository root; "" for the same file
	anchor string
}

var (
	headingPattern = regexp.MustCompile(`^(#{1,6})\s+(.*?)\s*$`)
	entryHeading   = regexp.MustCompile(`^#{2,4} ([A-Z]+-[0-9]+)$`)
	markedName     = regexp.MustCompile("`([^`]+)`(?:\\s*\\((test oracle|second place|caller)\\))?")
	testFuncDecl   = regexp.MustCompile(`(?m)^func ((?:Test|Benchmark|Fuzz|Example)\w*)\(`)
	mdLink         = regexp.MustCompile(`\]\(([^)\s]+)\)`)
)

// readRepo walks the tree at root once.
func readRepo(root string) (*repo, error) {
	r := &repo{root: root, entries: map[string][]entry{}, testFuncs: map[string]bool{}, anchors: map[string]map[string]bool{}}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel != "." && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			return nil
		}
		inDocs := strings.HasPrefix(rel, "docs/")
		isGo := strings.HasSuffix(rel, ".go")
		switch {
		case inDocs && strings.HasSuffix(rel, ".md"):
			return r.readDocs(path, rel)
		case inDocs:
			// This test and anything else kept beside the specification cite IDs as data.
		case isGo || underAny(rel, citedRoots):
			return r.readCited(path, rel, strings.HasSuffix(rel, "_test.go"))
		}
		return nil
	})
	return r, err
}

func underAny(rel string, roots []string) bool {
	for _, p := range roots {
		if rel == p || strings.HasPrefix(rel, p+"/") {
			return true
		}
	}
	return false
}

func (r *repo) readCited(path, rel string, isTest bool) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	text := string(b)
	if isTest {
		for _, m := range testFuncDecl.FindAllStringSubmatch(text, -1) {
			r.testFuncs[m[1]] = true
		}
	}
	r.citations = append(r.citations, citationsIn(text, rel)...)
	return nil
}

// citationsIn returns the rule IDs text cites, in order, without the tokens of notRuleIDs.
func citationsIn(text, file string) []citation {
	var out []citation
	for i, line := range strings.Split(text, "\n") {
		for _, m := range idPattern.FindAllStringSubmatch(line, -1) {
			if notRuleIDs[m[0]] || notRuleIDs[m[1]] {
				continue
			}
			out = append(out, citation{id: m[1], file: file, line: i + 1})
		}
	}
	return out
}

func (r *repo) readDocs(path, rel string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	anchors := map[string]bool{}
	r.anchors[rel] = anchors
	var cur *entry
	flush := func() {
		if cur != nil {
			r.entries[cur.id] = append(r.entries[cur.id], *cur)
			cur = nil
		}
	}
	fenced := false
	for i, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
			continue
		}
		if fenced {
			continue // an example, not an entry
		}
		if h := headingPattern.FindStringSubmatch(line); h != nil {
			flush()
			anchors[slug(h[2])] = true
			if m := entryHeading.FindStringSubmatch(line); m != nil {
				cur = &entry{id: m[1], file: rel, line: i + 1}
			}
			continue
		}
		for _, m := range mdLink.FindAllStringSubmatch(line, -1) {
			if l, ok := relativeLink(rel, m[1]); ok {
				l.line = i + 1
				r.links = append(r.links, l)
			}
		}
		if cur != nil && strings.HasPrefix(line, "- Upstream:") {
			cur.upstream = true
		}
		label, rest, ok := refLine(line)
		if !ok {
			continue
		}
		target := cur
		if target == nil {
			r.loose = append(r.loose, entry{file: rel, line: i + 1})
			target = &r.loose[len(r.loose)-1]
		}
		if label == "Code" {
			target.code = target.names(label, rest)
		} else {
			target.tests = target.names(label, rest)
		}
	}
	flush()
	return nil
}

// refLine splits a "- Code:" or "- Test:" line into its label and the rest.
func refLine(line string) (label, rest string, ok bool) {
	for _, label := range []string{"Code", "Test"} {
		if rest, ok := strings.CutPrefix(line, "- "+label+":"); ok {
			return label, rest, true
		}
	}
	return "", "", false
}

// names reads the rest of a "- Code:" or "- Test:" line: backquoted names, or "none" and the
// reason in parentheses.
func (e *entry) names(label, rest string) []string {
	rest = strings.TrimSpace(rest)
	if after, ok := strings.CutPrefix(rest, "none"); ok {
		if strings.HasPrefix(strings.TrimSpace(after), "(") {
			e.none = append(e.none, label)
		} else {
			e.badNone = append(e.badNone, label)
		}
		return []string{}
	}
	out := []string{}
	for _, m := range markedName.FindAllStringSubmatch(rest, -1) {
		out = append(out, m[1])
		if m[2] != "" && label == "Code" {
			if e.marks == nil {
				e.marks = map[string]string{}
			}
			e.marks[m[1]] = m[2]
		}
	}
	return out
}

// relativeLink resolves a link written in the docs file from; web links are not checked.
func relativeLink(from, dest string) (link, bool) {
	if strings.Contains(dest, "://") || strings.HasPrefix(dest, "mailto:") {
		return link{}, false
	}
	file, anchor, _ := strings.Cut(dest, "#")
	l := link{from: from, anchor: anchor}
	if file != "" {
		l.target = filepath.ToSlash(filepath.Clean(filepath.Join(filepath.Dir(from), file)))
	}
	return l, true
}

// slug is the anchor a Markdown heading gets on GitHub: lower case, punctuation other than
// '-' and '_' dropped, spaces turned into '-'.
func slug(heading string) string {
	var b strings.Builder
	for _, c := range strings.ToLower(heading) {
		switch {
		case c == ' ':
			b.WriteByte('-')
		case c == '-' || c == '_' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c > 127:
			b.WriteRune(c)
		}
	}
	return b.String()
}

// problems lists everything wrong with the tree at root, one line each, sorted. secondPlaces
// is the allow-list of known second implementations (knownSecondPlaces for this repository).
func problems(root string, secondPlaces map[string][]string) ([]string, error) {
	r, err := readRepo(root)
	if err != nil {
		return nil, err
	}
	r.secondPlaces = secondPlaces
	var out []string
	where := map[string][]citation{}
	for _, c := range r.citations {
		where[c.id] = append(where[c.id], c)
	}
	for id, cs := range where {
		if len(r.entries[id]) == 0 {
			out = append(out, fmt.Sprintf("%s has no entry in docs/; cited at %s", id, listCitations(cs)))
		}
	}
	for id, es := range r.entries {
		if len(es) > 1 {
			out = append(out, fmt.Sprintf("%s has %d entries: %s:%d and %s:%d", id, len(es), es[0].file, es[0].line, es[1].file, es[1].line))
		}
		for _, e := range es {
			out = append(out, r.entryProblems(e)...)
		}
	}
	for _, e := range r.loose {
		out = append(out, r.namedProblems(fmt.Sprintf("%s:%d", e.file, e.line), e)...)
	}
	for id, files := range secondPlaces {
		for _, f := range files {
			if !slices.ContainsFunc(r.entries[id], func(e entry) bool { return e.marks[f] == "second place" }) {
				out = append(out, fmt.Sprintf("%s: the allow-list of second places names %s, which its Code line does not name as \"(second place)\"", id, f))
			}
		}
	}
	for _, l := range r.links {
		target := l.target
		if target == "" {
			target = l.from
		}
		if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(target))); err != nil {
			out = append(out, fmt.Sprintf("%s:%d links to %s, which does not exist", l.from, l.line, target))
			continue
		}
		if a, ok := r.anchors[target]; ok && l.anchor != "" && !a[l.anchor] {
			out = append(out, fmt.Sprintf("%s:%d links to %s#%s, which has no such heading", l.from, l.line, target, l.anchor))
		}
	}
	sort.Strings(out)
	return out, nil
}

// entryProblems checks one entry's "- Upstream:", "- Code:" and "- Test:" lines. Code and Test
// must be there and name something, or say "none" and why (a rule the library does not model,
// such as slow start).
func (r *repo) entryProblems(e entry) []string {
	var out []string
	at := fmt.Sprintf("%s (%s:%d)", e.id, e.file, e.line)
	for _, l := range []struct {
		label string
		names []string
	}{{"Code", e.code}, {"Test", e.tests}} {
		switch {
		case l.names == nil:
			out = append(out, fmt.Sprintf("%s has no \"- %s:\" line", at, l.label))
		case len(l.names) == 0 && !slices.Contains(e.none, l.label) && !slices.Contains(e.badNone, l.label):
			out = append(out, fmt.Sprintf("%s names nothing on its \"- %s:\" line", at, l.label))
		}
	}
	if !e.upstream && !strings.HasPrefix(e.id, "D-") && !strings.HasPrefix(e.id, "SCN-") {
		out = append(out, at+" has no \"- Upstream:\" line naming what it models")
	}
	for _, label := range e.badNone {
		out = append(out, fmt.Sprintf("%s says none on its \"- %s:\" line without a reason in parentheses", at, label))
	}
	out = append(out, r.placeProblems(at, e)...)
	return append(out, r.namedProblems(at, e)...)
}

// placeProblems checks that a rule's Code line names one place (issue 20): its files are in one
// package, the rule's home (that of the first Go file named), or in packages the home imports
// (the predicates it builds on). Another Go file is a second implementation, allowed only
// marked "(test oracle)" (a _test.go file) or "(second place)" (listed in the allow-list); a
// file marked "(caller)" only applies the rule (a CLI command, the verifier), and its package
// must import the home. Decisions (D-n) and scenarios (SCN-n) span layers by nature and are not
// checked.
func (r *repo) placeProblems(at string, e entry) []string {
	if strings.HasPrefix(e.id, "D-") || strings.HasPrefix(e.id, "SCN-") {
		return nil
	}
	var out []string
	var callers []string
	home := ""
	for _, f := range e.code {
		switch mark := e.marks[f]; {
		case mark == "test oracle":
			if !strings.HasSuffix(f, "_test.go") {
				out = append(out, fmt.Sprintf("%s marks %s a test oracle, which is no _test.go file", at, f))
			}
		case mark == "second place":
			if !slices.Contains(r.secondPlaces[e.id], f) {
				out = append(out, fmt.Sprintf("%s marks %s a second place, which the allow-list of second places does not hold", at, f))
			}
		case mark == "caller":
			callers = append(callers, f)
		case !strings.HasSuffix(f, ".go") || strings.HasSuffix(f, "_test.go"):
		case home == "":
			home = path.Dir(f)
		case path.Dir(f) != home && !r.imports(home, path.Dir(f)):
			out = append(out, fmt.Sprintf("%s names %s besides its home %s, which does not build on it: a second implementation (mark it \"(test oracle)\" or list it as a second place)", at, f, home))
		}
	}
	for _, f := range callers {
		if home == "" || !r.imports(path.Dir(f), home) {
			out = append(out, fmt.Sprintf("%s marks %s a caller, whose package does not import the rule's home %s", at, f, cmp.Or(home, "(none)")))
		}
	}
	return out
}

// imports reports whether the package in directory dir imports the one in directory dep (both
// relative to the repository root), reading dir's non-test files once.
func (r *repo) imports(dir, dep string) bool {
	if r.importsOf == nil {
		r.importsOf = map[string]map[string]bool{}
	}
	deps, ok := r.importsOf[dir]
	if !ok {
		deps = map[string]bool{}
		r.importsOf[dir] = deps
		mod := r.modulePath()
		files, _ := filepath.Glob(filepath.Join(r.root, filepath.FromSlash(dir), "*.go"))
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			pf, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
			if err != nil {
				continue // the build reports it
			}
			for _, im := range pf.Imports {
				if p, ok := strings.CutPrefix(strings.Trim(im.Path.Value, "\""), mod+"/"); ok {
					deps[p] = true
				}
			}
		}
	}
	return deps[dep]
}

// modulePath is the module line of root's go.mod.
func (r *repo) modulePath() string {
	b, _ := os.ReadFile(filepath.Join(r.root, "go.mod"))
	for _, line := range strings.Split(string(b), "\n") {
		if m, ok := strings.CutPrefix(line, "module "); ok {
			return strings.TrimSpace(m)
		}
	}
	return ""
}

// namedProblems reports the files and tests e names that do not exist; at says where e is.
func (r *repo) namedProblems(at string, e entry) []string {
	var out []string
	for _, f := range e.code {
		if _, err := os.Stat(filepath.Join(r.root, filepath.FromSlash(f))); err != nil {
			out = append(out, fmt.Sprintf("%s names %s, which does not exist", at, f))
		}
	}
	for _, t := range e.tests {
		if !r.testFuncs[t] {
			out = append(out, fmt.Sprintf("%s names test %s, which no _test.go defines", at, t))
		}
	}
	return out
}

func listCitations(cs []citation) string {
	const shown = 3
	parts := make([]string, 0, shown)
	for i, c := range cs {
		if i == shown {
			parts = append(parts, fmt.Sprintf("and %d more", len(cs)-shown))
			break
		}
		parts = append(parts, c.String())
	}
	return strings.Join(parts, ", ")
}

// TestSpecificationCoversTheRepository is the check itself, on this repository.
func TestSpecificationCoversTheRepository(t *testing.T) {
	ps, err := problems("..", knownSecondPlaces)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ps {
		t.Error(p)
	}
}

// TestCheckFindsEachKindOfProblem runs the check on a small made-up repository holding one
// problem of every kind, so a check that stopped looking would fail here.
func TestCheckFindsEachKindOfProblem(t *testing.T) {
	root := t.TempDir()
	write := func(rel, text string) {
		t.Helper()
		path := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/x\n")
	write("pkg/a.go", "package pkg\n\n// Hashes with SHA-256 and FNV-1a, reads UTF-8: ELIG-1, TAINT-1c.\nfunc A() {}\n")
	write("pkg/a_test.go", "package pkg\n\nfunc TestA(t *testing.T) {} // ELIG-99\n")
	write("README.md", "See D-1.\n")
	write("internal/cli/testdata/case/stdout", "skipped: SYNC-3\n")
	write(".git/x.go", "// ELIG-77 is in a hidden directory and not read\n")
	write("docs/rules.md", strings.Join([]string{
		"# Rules", "",
		"### ELIG-1", "Text. [back](#rules) [gone](#elig-2) [other](missing.md)", "",
		"- Upstream: `predicates`", "- Code: `pkg/a.go`", "- Test: `TestA`", "",
		"### TAINT-1", "- Code: `pkg/gone.go`", "- Test: `TestGone`", "",
		"### D-1", "Text without its lines.", "",
		"### D-1", "- Code: `pkg/a.go`", "- Test: `TestA`", "",
		"### VAL-2", "A rule the library does not model says so.", "- Upstream: `x`", "- Code: none (not modelled)", "- Test: none (nothing to test)", "",
		"### VAL-3", "- Code: pkg/a.go", "- Test: none", "",
		"## Notes", "- Test: `TestA`, `TestMissing`", "",
		"```", "### ELIG-1", "- Test: `TestInAnExample`", "```", "",
		"### UPD-1", "- Upstream: `x`", "- Code: `pkg/c/c.go`, `pkg/b/b.go`, `pkg/a_test.go` (test oracle)", "- Test: `TestA`", "",
		"### UPD-2", "- Upstream: `x`", "- Code: `pkg/b/b.go`, `pkg/a.go`", "- Test: `TestA`", "",
		"### UPD-3", "- Upstream: `x`", "- Code: `pkg/a.go`, `pkg/b/b.go` (test oracle), `pkg/c/c.go` (second place)", "- Test: `TestA`", "",
		"### UPD-4", "- Upstream: `x`", "- Code: `pkg/a.go`, `pkg/b/b.go` (second place)", "- Test: `TestA`", "",
		"### UPD-5", "- Upstream: `x`", "- Code: `pkg/b/b.go`, `pkg/c/c.go` (caller), `pkg/a.go` (caller)", "- Test: `TestA`", "",
	}, "\n"))
	write("pkg/b/b.go", "package b\n")
	write("pkg/c/c.go", "package c\n\nimport _ \"example.com/x/pkg/b\"\n")

	got, err := problems(root, map[string][]string{"UPD-4": {"pkg/b/b.go"}, "ELIG-1": {"pkg/a.go"}})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"D-1 (docs/rules.md:14) has no \"- Code:\" line",
		"D-1 (docs/rules.md:14) has no \"- Test:\" line",
		"D-1 has 2 entries: docs/rules.md:14 and docs/rules.md:17",
		"ELIG-1: the allow-list of second places names pkg/a.go, which its Code line does not name as \"(second place)\"",
		"ELIG-99 has no entry in docs/; cited at pkg/a_test.go:3",
		"SYNC-3 has no entry in docs/; cited at internal/cli/testdata/case/stdout:1",
		"TAINT-1 (docs/rules.md:10) has no \"- Upstream:\" line naming what it models",
		"TAINT-1 (docs/rules.md:10) names pkg/gone.go, which does not exist",
		"TAINT-1 (docs/rules.md:10) names test TestGone, which no _test.go defines",
		"UPD-2 (docs/rules.md:44) names pkg/a.go besides its home pkg/b, which does not build on it: a second implementation (mark it \"(test oracle)\" or list it as a second place)",
		"UPD-3 (docs/rules.md:49) marks pkg/b/b.go a test oracle, which is no _test.go file",
		"UPD-3 (docs/rules.md:49) marks pkg/c/c.go a second place, which the allow-list of second places does not hold",
		"UPD-5 (docs/rules.md:59) marks pkg/a.go a caller, whose package does not import the rule's home pkg/b",
		"VAL-3 (docs/rules.md:27) has no \"- Upstream:\" line naming what it models",
		"VAL-3 (docs/rules.md:27) names nothing on its \"- Code:\" line",
		"VAL-3 (docs/rules.md:27) says none on its \"- Test:\" line without a reason in parentheses",
		"docs/rules.md:32 names test TestMissing, which no _test.go defines",
		"docs/rules.md:4 links to docs/missing.md, which does not exist",
		"docs/rules.md:4 links to docs/rules.md#elig-2, which has no such heading",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestCitationsIn pins which tokens count as rule IDs: an unknown family (AB-2) does, so that
// a mistyped ID cannot hide; the listed non-IDs and lower-case words do not.
func TestCitationsIn(t *testing.T) {
	text := "UPD-8/UPD-11, TAINT-1c; SHA-256 FNV-1a UTF-16 DNS-1123 SHA-1\nSCN-07 (D-12) x-1 AB-2x"
	var got []string
	for _, c := range citationsIn(text, "f") {
		got = append(got, c.id+"@"+c.String())
	}
	want := "UPD-8@f:1 UPD-11@f:1 TAINT-1@f:1 SCN-07@f:2 D-12@f:2 AB-2@f:2"
	if strings.Join(got, " ") != want {
		t.Errorf("citationsIn = %s, want %s", strings.Join(got, " "), want)
	}
}
