package daemonset

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/daemonsched/daemonsched/internal/reasonrule"
	"github.com/google/go-cmp/cmp"
)

// reasonConstants reads reason.go and returns the value of every constant declared of type
// Reason, so that a code added without a table entry is found without listing it twice.
func reasonConstants(t *testing.T) []Reason {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "reason.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []Reason
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, spec := range g.Specs {
			vs := spec.(*ast.ValueSpec)
			if id, ok := vs.Type.(*ast.Ident); !ok || id.Name != "Reason" {
				continue
			}
			for _, v := range vs.Values {
				lit, ok := v.(*ast.BasicLit)
				if !ok {
					t.Fatalf("reason.go: a Reason constant is not a string literal: %T", v)
				}
				s, err := strconv.Unquote(lit.Value)
				if err != nil {
					t.Fatal(err)
				}
				out = append(out, Reason(s))
			}
		}
	}
	return out
}

// TestReasonTableHoldsEveryCodeOnce: every Reason constant has exactly one entry in the reason table (internal/reasonrule),
// and the table holds no other code, so no rule about a code can live outside it (issue 20).
func TestReasonTableHoldsEveryCodeOnce(t *testing.T) {
	t.Parallel()
	consts := reasonConstants(t)
	if len(consts) < 20 {
		t.Fatalf("found %d Reason constants in reason.go; the parser missed some", len(consts))
	}
	entries := map[Reason]int{}
	for code := range reasonrule.All() {
		entries[Reason(code)]++
	}
	for _, c := range consts {
		if entries[c] != 1 {
			t.Errorf("reason %s has %d entries in the reason table, want 1", c, entries[c])
		}
		delete(entries, c)
	}
	for c := range entries {
		t.Errorf("the reason table holds %s, which is no Reason constant", c)
	}
}

// TestReasonTableShape: the step and class of each entry fit its rule: base-diff codes come
// from DIFF rules, rolling-step codes from UPD rules, codes on no action have no class, and
// only a code whose actions a budget picks from names the rule of that pick.
func TestReasonTableShape(t *testing.T) {
	t.Parallel()
	for c, e := range reasonrule.All() {
		code := Reason(c)
		family := e.Rule[:strings.LastIndex(e.Rule, "-")]
		switch e.Step {
		case reasonrule.Base:
			if family != "DIFF" {
				t.Errorf("%s: base-diff code given by %s, want a DIFF rule", code, e.Rule)
			}
		case reasonrule.Rolling:
			if family != "UPD" {
				t.Errorf("%s: rolling-step code given by %s, want an UPD rule", code, e.Rule)
			}
		case reasonrule.None:
			if e.Class != 0 || e.Budget != "" {
				t.Errorf("%s: a code on no action has class %d, budget %q", code, e.Class, e.Budget)
			}
		}
		if e.Replaces && (e.Step == reasonrule.None || code == ReasonMissingPod || code == ReasonSurgeCandidate || code == ReasonSurgeOldUnavailable) {
			t.Errorf("%s: only deletions replace an old pod", code)
		}
		if e.Budget != "" && (e.Step != reasonrule.Rolling || e.Class == 0) {
			t.Errorf("%s: budgeted candidates (%s) are rolling-step actions of a class after the budget-free ones", code, e.Budget)
		}
		if got, ok := reasonEntry(code); !ok || got != e {
			t.Errorf("reasonEntry(%s) = %+v, %v; want the table's entry %+v", code, got, ok, e)
		}
	}
	if _, ok := reasonEntry("NoSuchReason"); ok {
		t.Error("reasonEntry knows a code the table does not hold")
	}
}

// docsEntries reads docs/rules and returns each rule's text by ID.
func docsEntries(t *testing.T) map[string]string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "docs", "rules", "*.md"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no docs/rules/*.md: %v", err)
	}
	heading := regexp.MustCompile(`^#{2,4} ([A-Z]+-[0-9]+)$`)
	out := map[string]string{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		id := ""
		for _, line := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(line, "#") {
				id = ""
				if m := heading.FindStringSubmatch(line); m != nil {
					id = m[1]
				}
				continue
			}
			if id != "" {
				out[id] += line + "\n"
			}
		}
	}
	return out
}

// TestReasonTableAgreesWithDocs: each code's rule exists in docs/rules and names the code, each
// budget rule exists, and DIFF-16, the list of delete codes, gives each code the table's rule.
func TestReasonTableAgreesWithDocs(t *testing.T) {
	t.Parallel()
	docs := docsEntries(t)
	for c, e := range reasonrule.All() {
		code := Reason(c)
		text, ok := docs[e.Rule]
		switch {
		case !ok:
			t.Errorf("%s: rule %s has no entry in docs/rules", code, e.Rule)
		case !strings.Contains(text, "`"+string(code)+"`"):
			t.Errorf("%s: docs/rules entry %s does not name the code", code, e.Rule)
		}
		if _, ok := docs[e.Budget]; e.Budget != "" && !ok {
			t.Errorf("%s: budget rule %s has no entry in docs/rules", code, e.Budget)
		}
	}
	// DIFF-16 reads "`FailedPod` and `SucceededPod` ([DIFF-3](#diff-3)); ...": a code's rule is
	// the first link after it.
	text, ok := docs["DIFF-16"]
	if !ok {
		t.Fatal("docs/rules has no DIFF-16")
	}
	text, _, _ = strings.Cut(text, "\n- Upstream:")
	code := regexp.MustCompile("`([A-Za-z]+)`|\\[([A-Z]+-[0-9]+)\\]")
	got := map[Reason]string{}
	var pending []Reason
	for _, m := range code.FindAllStringSubmatch(text, -1) {
		if m[1] != "" {
			pending = append(pending, Reason(m[1]))
			continue
		}
		for _, r := range pending {
			got[r] = m[2]
		}
		pending = nil
	}
	creates := map[Reason]bool{ReasonMissingPod: true, ReasonSurgeOldUnavailable: true, ReasonSurgeCandidate: true}
	want := map[Reason]string{}
	for c, e := range reasonrule.All() {
		if e.Step != reasonrule.None && !creates[Reason(c)] {
			want[Reason(c)] = e.Rule
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("DIFF-16's delete codes and their rules disagree with the reason table (-table +docs):\n%s", diff)
	}
}
