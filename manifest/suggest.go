package manifest

import (
	"cmp"
	"reflect"
	"slices"
	"strings"

	"github.com/daemonsched/daemonsched/internal/jsongate"
)

// Suggest returns the candidate s is most likely a typo of (at most two edits away, ignoring
// case, and fewer than half of s), or "". The daemonsched command uses it for node and
// DaemonSet names.
func Suggest(s string, candidates []string) string { return closest(s, candidates) }

// closest returns the candidate nearest to s by edit distance, ignoring case, when it is near
// enough to be a typo of it (at most 2 edits, and fewer than half of s) and no other candidate
// is as near (worker-9 among worker-1 to worker-6 suggests nothing), or "".
func closest(s string, candidates []string) string {
	best, bestDist, ties := "", 3, 0
	for _, c := range candidates {
		switch d := editDistance(strings.ToLower(s), strings.ToLower(c)); {
		case d < bestDist:
			best, bestDist, ties = c, d, 0
		case d == bestDist && c != best:
			ties++
		}
	}
	if best == "" || ties > 0 || 2*bestDist >= len(s) {
		return ""
	}
	return best
}

// editDistance is the Levenshtein distance of a and b, counting a swap of two neighbours as
// one edit (optimal string alignment).
func editDistance(a, b string) int {
	if len(a) > 256 || len(b) > 256 {
		return max(len(a), len(b)) // long strings are never typos of short names
	}
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

// kindNames are the kinds read, sorted, for suggestions.
var kindNames = func() []string {
	names := make([]string, 0, len(kinds))
	for k := range kinds {
		names = append(names, k)
	}
	slices.SortFunc(names, func(a, b string) int { return cmp.Compare(a, b) })
	return names
}()

// misspelledKind returns the kind read that kind, of apiVersion, is a typo of: a kind of that
// apiVersion, or of none given, near enough by closest; "" when there is none.
func misspelledKind(kind, apiVersion string) string {
	var same []string
	for _, k := range kindNames {
		if apiVersion == "" || kinds[k] == apiVersion {
			same = append(same, k)
		}
	}
	return closest(kind, same)
}

// fieldSuggestion returns " (did you mean NAME?)" when the last field of path, unknown in
// objects of type t, is a typo of a field its parent has, or "". path is a field path as
// decoding words it: "spec.template.spec.nodeSelecter", "spec.taints[0].tolerationSecond".
func fieldSuggestion(t reflect.Type, path string) string {
	if t == nil {
		return "" // a list's own fields
	}
	segs := strings.Split(strings.ReplaceAll(path, "[", ".["), ".")
	for _, seg := range segs[:len(segs)-1] {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		switch {
		case strings.HasPrefix(seg, "["):
			if t.Kind() != reflect.Slice && t.Kind() != reflect.Array {
				return ""
			}
			t = t.Elem()
		case t.Kind() == reflect.Map:
			t = t.Elem()
		case t.Kind() == reflect.Struct:
			f, ok := jsongate.Fields(t)[seg]
			if !ok {
				return ""
			}
			t = f
		default:
			return ""
		}
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return ""
	}
	fields := jsongate.Fields(t)
	names := make([]string, 0, len(fields))
	for n := range fields {
		names = append(names, n)
	}
	slices.Sort(names)
	if s := closest(segs[len(segs)-1], names); s != "" {
		return " (did you mean " + s + "?)"
	}
	return ""
}
