package conformance

import (
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"hash/fnv"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/daemonsched/daemonsched/daemonset"
)

// The library keys its rules on the release in few ways (VER-1): by minor (the hash tables,
// VER-2; Version.AtLeast(1, MINOR, 0) such as VER-3, VER-5, VER-7) and by patch within a minor
// (VER-4's v.AtLeast(1, 33, 6)). Two releases of one minor on the same side of every patch the
// source compares against are therefore decided alike, and a case holds at both or at neither:
// holdingReleases plans each case once per such group, not once per release.

// versionReaders are the files that may read a Version's patch or build a Version from
// non-constant parts: the type itself, and conformance's release ranges (formatting, listing).
var versionReaders = map[string]bool{"daemonset/version.go": true, "conformance/releases.go": true}

// versionLiteral is a string that names one release, as "1.36.3" or "v1.33.6".
var versionLiteral = regexp.MustCompile(`^v?1\.(\d+)\.(\d+)$`)

// patchBoundaries scans the library's production Go source (every package but the consumers
// under cmd/ and examples/) for the releases its rules compare against: the constant arguments
// of Version.AtLeast, Version literals and string constants naming a release. It returns, by
// minor, the patches other than 0 among them, sorted: the points inside a minor where a rule
// may change. Anything it cannot account for fails t: a Version read or built from values
// that are not constants outside versionReaders. root is the module's root.
func patchBoundaries(t testing.TB, root string) map[int][]int {
	t.Helper()
	bounds, problems, err := scanPatchBoundaries(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
	return bounds
}

// scanPatchBoundaries is patchBoundaries' scan: the boundaries, and what it cannot account for.
func scanPatchBoundaries(root string) (map[int][]int, []string, error) {
	bounds := map[int][]int{}
	var problems []string
	add := func(minor, patch int) {
		if patch > 0 && !slices.Contains(bounds[minor], patch) {
			bounds[minor] = append(bounds[minor], patch)
			slices.Sort(bounds[minor])
		}
	}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := filepath.ToSlash(strings.TrimPrefix(path, root+string(filepath.Separator)))
		if d.IsDir() {
			if rel == "cmd" || rel == "examples" || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") && path != root {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		intArgs := func(args []ast.Expr) ([]int, bool) {
			var out []int
			for _, a := range args {
				if kv, ok := a.(*ast.KeyValueExpr); ok {
					a = kv.Value
				}
				lit, ok := a.(*ast.BasicLit)
				if !ok || lit.Kind != token.INT {
					return nil, false
				}
				n, err := strconv.Atoi(lit.Value)
				if err != nil {
					return nil, false
				}
				out = append(out, n)
			}
			return out, true
		}
		called := map[*ast.SelectorExpr]bool{}
		ast.Inspect(f, func(n ast.Node) bool {
			where := func() string { return fset.Position(n.Pos()).String() }
			switch n := n.(type) {
			case *ast.CallExpr:
				sel, ok := n.Fun.(*ast.SelectorExpr)
				if ok {
					called[sel] = true // visited after its call
				}
				if !ok || sel.Sel.Name != "AtLeast" || len(n.Args) != 3 {
					return true
				}
				nums, ok := intArgs(n.Args)
				if !ok {
					problems = append(problems, fmt.Sprintf("%s: Version.AtLeast with arguments that are not constants: the release groups cannot be derived", where()))
					return true
				}
				add(nums[1], nums[2])
			case *ast.CompositeLit:
				if !isVersionType(n.Type) || len(n.Elts) == 0 {
					return true
				}
				nums, ok := intArgs(n.Elts)
				switch {
				case ok && len(nums) == 3:
					add(nums[1], nums[2])
				case !versionReaders[rel]:
					problems = append(problems, fmt.Sprintf("%s: a Version built from values that are not constants: the release groups cannot be derived", where()))
				}
			case *ast.SelectorExpr:
				// v.Patch() or the field v.patch (a method patch() of something else is not one).
				if called[n] && n.Sel.Name == "Patch" || !called[n] && n.Sel.Name == "patch" {
					if !versionReaders[rel] {
						problems = append(problems, fmt.Sprintf("%s: reads a Version's patch (%s): the release groups cannot be derived; add the rule's patch as a constant", where(), n.Sel.Name))
					}
				}
			case *ast.BasicLit:
				if n.Kind != token.STRING {
					return true
				}
				s, err := strconv.Unquote(n.Value)
				if err != nil {
					return true
				}
				if m := versionLiteral.FindStringSubmatch(s); m != nil {
					minor, _ := strconv.Atoi(m[1])
					patch, _ := strconv.Atoi(m[2])
					add(minor, patch) // conservative: a release named may be compared against
				}
			}
			return true
		})
		return nil
	})
	return bounds, problems, err
}

// isVersionType reports whether a composite literal's type is daemonset's Version.
func isVersionType(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name == "Version"
	case *ast.SelectorExpr:
		x, ok := e.X.(*ast.Ident)
		return ok && x.Name == "daemonset" && e.Sel.Name == "Version"
	}
	return false
}

// releaseGroup is a set of releases no rule of the library tells apart, oldest first.
type releaseGroup []daemonset.Version

// releaseGroups partitions allReleases by minor and by side of each patch boundary, in order.
func releaseGroups(bounds map[int][]int) []releaseGroup {
	var out []releaseGroup
	key := func(v daemonset.Version) [2]int {
		side := 0
		for _, b := range bounds[v.Minor()] {
			if v.Patch() >= b {
				side++
			}
		}
		return [2]int{v.Minor(), side}
	}
	for i, v := range allReleases() {
		if i == 0 || key(v) != key(out[len(out)-1][0]) {
			out = append(out, nil)
		}
		out[len(out)-1] = append(out[len(out)-1], v)
	}
	return out
}

// corpusGroups are the release groups of this source tree, derived once per test binary.
var corpusGroups = func() func(testing.TB) []releaseGroup {
	var groups []releaseGroup
	return func(t testing.TB) []releaseGroup {
		t.Helper()
		if groups == nil {
			groups = releaseGroups(patchBoundaries(t, ".."))
		}
		return groups
	}
}()

// spotCheck is the release, other than a group's representative (its newest), whose verdict
// the case named name also computes and compares with its group's: one per case, drawn from
// the name, so that across the corpus every such release is compared several times (the 437
// cases draw from 23 releases) while a case costs one plan per group and one more.
func spotCheck(name string, groups []releaseGroup) (v daemonset.Version, group int, ok bool) {
	type member struct {
		v     daemonset.Version
		group int
	}
	var others []member
	for i, g := range groups {
		for _, v := range g[:len(g)-1] {
			others = append(others, member{v, i})
		}
	}
	if len(others) == 0 {
		return daemonset.Version{}, 0, false
	}
	h := fnv.New32a()
	h.Write([]byte(name))
	m := others[h.Sum32()%uint32(len(others))]
	return m.v, m.group, true
}

// TestReleaseGroups pins what the scan finds in today's source: VER-4's patches (1.33.6,
// 1.34.2) and the releases named as constants (the protocol's v1.36.3), so that a new patch
// rule shows up here as a new group.
func TestReleaseGroups(t *testing.T) {
	got := releaseGroups(patchBoundaries(t, ".."))
	var names []string
	total := 0
	for _, g := range got {
		names = append(names, fmt.Sprintf("%s-%s", g[0], g[len(g)-1]))
		total += len(g)
	}
	want := []string{"1.33.0-1.33.5", "1.33.6-1.33.13", "1.34.0-1.34.1", "1.34.2-1.34.4", "1.35.0-1.35.4", "1.36.0-1.36.2", "1.36.3-1.36.3", "1.37.0-1.37.2"}
	if !slices.Equal(names, want) {
		t.Errorf("release groups %v, want %v", names, want)
	}
	if total != len(allReleases()) {
		t.Errorf("the groups hold %d releases, want every one of %d", total, len(allReleases()))
	}
}

// everyRelease makes TestReleaseGroupsAreSound plan every corpus case at every release.
var everyRelease = flag.Bool("every-release", false, "TestReleaseGroupsAreSound: plan every corpus case at every release (about a minute)")

// TestReleaseGroupsAreSound plans every corpus case at every release, as the corpus was
// checked before the groups, and compares each release's verdict with its group's: the groups
// are sound for the corpus when none differs. It is slow, so it runs with -every-release;
// TestCorpusIsCurrent spot-checks one release besides the groups' for every case.
func TestReleaseGroupsAreSound(t *testing.T) {
	if !*everyRelease {
		t.Skip("plans every case at every release: run with -every-release")
	}
	cases, err := Corpus()
	if err != nil {
		t.Fatal(err)
	}
	groups := corpusGroups(t)
	for _, c := range cases {
		s, err := c.Snapshot()
		if err != nil {
			t.Fatal(err)
		}
		opts, err := c.Options()
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range groups {
			want := holdsAt(&c, s, opts, g[len(g)-1])
			for _, v := range g[:len(g)-1] {
				if got := holdsAt(&c, s, opts, v); got != want {
					t.Errorf("case %s: holds at %s is %t, at %s %t: the release groups are not sound", c.Name, v, got, g[len(g)-1], want)
				}
			}
		}
	}
}

// TestPatchBoundariesScan checks the scan on a tree of its own: constant release comparisons
// become boundaries, consumers are left out, and a Version read any other way is a problem.
func TestPatchBoundariesScan(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		"a/rule.go":      "package a\n\nfunc f(v daemonset.Version) bool { return v.AtLeast(1, 35, 2) || v == daemonset.Version{1, 36, 0} }\n",
		"a/name.go":      "package a\n\nconst protocol = \"v1.37.1\"\n",
		"a/rule_test.go": "package a\n\nfunc g(v daemonset.Version) bool { return v.AtLeast(1, 33, 9) }\n",
		"cmd/x/main.go":  "package main\n\nfunc h(v daemonset.Version) bool { return v.AtLeast(1, 34, 3) }\n",
		"b/patch.go":     "package b\n\nfunc p(v daemonset.Version, n int) bool { return v.Patch() > 2 || v.AtLeast(1, 35, n) || d.patch() != nil }\n",
	}
	for name, text := range files {
		path := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bounds, problems, err := scanPatchBoundaries(root)
	if err != nil {
		t.Fatal(err)
	}
	if want := map[int][]int{35: {2}, 37: {1}}; !reflect.DeepEqual(bounds, want) {
		t.Errorf("boundaries %v, want %v (tests and cmd/ are not rules; a .0 splits no minor)", bounds, want)
	}
	if len(problems) != 2 || !strings.Contains(problems[0]+problems[1], "reads a Version's patch (Patch)") ||
		!strings.Contains(problems[0]+problems[1], "Version.AtLeast with arguments that are not constants") {
		t.Errorf("problems %q, want v.Patch() and the AtLeast with a variable", problems)
	}
}
