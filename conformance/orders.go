package conformance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/daemonsched/daemonsched/internal/choice"
)

// The choice sets of one sync (D-1), as package daemonset computes them (Planner.Orders,
// Snapshot.Orders) over its own actions. Their types are internal to the module: the corpus
// stores them as the "orders" of a case (testdata/case.schema.json).
type (
	orders      = choice.Orders[daemonset.Creation, daemonset.Deletion]
	actionClass = choice.ActionClass[daemonset.Creation, daemonset.Deletion]
	actionGroup = choice.ActionGroup[daemonset.Creation, daemonset.Deletion]
	actionPart  = choice.ActionPart[daemonset.Creation, daemonset.Deletion]
)

// Orders are the choice sets of one DaemonSet's sync (D-1): every order in which the
// controller could submit its creates and deletes, which of several candidates it could pick,
// and how the status it writes depends on the picks (STAT-16). An Orders is opaque: [Expect]
// computes it, a corpus case stores it as JSON (its "orders", testdata/case.schema.json) and
// [Verify] reads it; what it holds is internal to this module. It is immutable once built and
// safe for concurrent use; a nil *Orders has no actions to choose from.
type Orders struct {
	sets *orders
}

// choices returns the choice sets of o, empty ones for a nil o.
func (o *Orders) choices() *orders {
	if o == nil || o.sets == nil {
		return &orders{}
	}
	return o.sets
}

// MarshalJSON writes the choice sets as a corpus case's orders.
func (o Orders) MarshalJSON() ([]byte, error) {
	return json.Marshal(o.sets)
}

// UnmarshalJSON reads a corpus case's orders. A key the format does not have is an error, as
// when LoadCases reads the whole case, whichever decoder holds o.
func (o *Orders) UnmarshalJSON(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var sets orders
	if err := dec.Decode(&sets); err != nil {
		return err
	}
	o.sets = &sets
	return nil
}

// deletedIn reports whether l deletes the pod namespace/name, for Orders.StatusWith.
func deletedIn(l []daemonset.Deletion) func(namespace, name string) bool {
	set := make(map[daemonset.ObjectRef]bool, len(l))
	for _, d := range l {
		set[daemonset.ObjectRef{Namespace: d.Namespace, Name: d.Name}] = true
	}
	return func(namespace, name string) bool { return set[daemonset.ObjectRef{Namespace: namespace, Name: name}] }
}

// An item is one action of a list, known by its key: the node of a create, the
// namespace/name of a deleted pod.
type item struct {
	key    string
	class  int
	group  int
	part   int
	oneOf  bool
	create *daemonset.Creation
	delete *daemonset.Deletion
}

// listIndex indexes the classes of one list (creates or deletes) by action key.
type listIndex struct {
	kind    string // "create" or "delete"
	classes []actionClass
	items   map[string]item
}

func newListIndex(kind string, classes []actionClass) *listIndex {
	ix := &listIndex{kind: kind, classes: classes, items: map[string]item{}}
	for c, cl := range classes {
		for g, gr := range cl.Groups {
			for p, part := range gr.Parts {
				for k := range part.Creates {
					cr := &part.Creates[k]
					ix.items[cr.Node] = item{key: cr.Node, class: c, group: g, part: p, create: cr}
				}
				for k := range part.Deletes {
					d := &part.Deletes[k]
					ix.items[d.Namespace+"/"+d.Name] = item{key: d.Namespace + "/" + d.Name, class: c, group: g, part: p, delete: d}
				}
				for k := range part.OneOf {
					d := &part.OneOf[k]
					ix.items[d.Namespace+"/"+d.Name] = item{key: d.Namespace + "/" + d.Name, class: c, group: g, part: p, oneOf: true, delete: d}
				}
			}
		}
	}
	return ix
}

// choiceProblem is a selection no order of the controller's lists could produce.
type choiceProblem struct {
	object string
	rule   string
	msg    string
}

// verifySelection decides whether got (keys of candidate actions, each known to ix) is a prefix
// of length min(limit, total) (limit negative: no cap) of some list the controller could build (DIFF-10 with the classes
// of the choice sets), and says why not. Keys unknown to ix are the caller's business.
func (ix *listIndex) verifySelection(got map[string]bool, limit int) []choiceProblem {
	var probs []choiceProblem
	byClass := make([]map[int][]item, len(ix.classes)) // class -> group -> got items, by key
	for _, k := range slices.Sorted(maps.Keys(got)) {
		it, ok := ix.items[k]
		if !ok {
			continue
		}
		if byClass[it.class] == nil {
			byClass[it.class] = map[int][]item{}
		}
		byClass[it.class][it.group] = append(byClass[it.class][it.group], it)
	}
	remaining := limit
	if remaining == 0 {
		remaining = int(^uint(0) >> 1)
	}
	for c, cl := range ix.classes {
		groups := byClass[c]
		full := classSize(cl)
		switch {
		case remaining == 0:
			for g := range cl.Groups {
				for _, it := range groups[g] {
					probs = append(probs, choiceProblem{it.key, "DIFF-10", fmt.Sprintf("extra %s: the burst cap of %d is reached by actions the controller submits first", ix.kind, limit)})
				}
			}
			continue
		case remaining >= full:
			probs = append(probs, ix.fullClass(cl, groups)...)
			remaining -= full
		default:
			probs = append(probs, ix.cutClass(c, cl, groups, remaining, limit)...)
			remaining = 0
		}
	}
	return probs
}

// classSize is how many actions a class contributes when nothing cuts it.
func classSize(cl actionClass) int {
	if cl.Rule != "" {
		return cl.Take // every group of a choice class holds one action
	}
	return groupsSize(cl.Groups)
}

func groupsSize(groups []actionGroup) int {
	n := 0
	for _, g := range groups {
		n += groupSize(g)
	}
	return n
}

func groupSize(g actionGroup) int {
	n := 0
	for _, p := range g.Parts {
		n += partSize(p)
	}
	return n
}

func partSize(p actionPart) int {
	n := len(p.Creates) + len(p.Deletes)
	if len(p.OneOf) > 0 {
		n++
	}
	return n
}

// fullClass checks a class the cap does not reach: a choice class has exactly Take of its
// candidates, any other class every action, with one of each OneOf.
func (ix *listIndex) fullClass(cl actionClass, groups map[int][]item) []choiceProblem {
	if cl.Rule != "" {
		return ix.choiceCount(cl, groups, cl.Take)
	}
	var probs []choiceProblem
	for g, gr := range cl.Groups {
		probs = append(probs, ix.partsPrefix(gr, groups[g], groupSize(gr))...)
	}
	return probs
}

// choiceCount checks that want candidates of a choice class were taken.
func (ix *listIndex) choiceCount(cl actionClass, groups map[int][]item, want int) []choiceProblem {
	n := 0
	for _, its := range groups {
		n += len(its)
	}
	if n == want {
		return nil
	}
	reason := ""
	if len(cl.Groups) > 0 && len(cl.Groups[0].Parts) > 0 {
		reason = string(actionReason(cl.Groups[0].Parts[0]))
	}
	return []choiceProblem{{reason, cl.Rule, fmt.Sprintf("%s with reason %s, want %d of the %d candidates (%s)",
		count(n, ix.kind), reason, want, len(cl.Groups), strings.Join(candidateKeys(cl), ", "))}}
}

func actionReason(p actionPart) daemonset.Reason {
	switch {
	case len(p.Creates) > 0:
		return p.Creates[0].Reason
	case len(p.Deletes) > 0:
		return p.Deletes[0].Reason
	case len(p.OneOf) > 0:
		return p.OneOf[0].Reason
	}
	return ""
}

func candidateKeys(cl actionClass) []string {
	var keys []string
	for _, g := range cl.Groups {
		for _, p := range g.Parts {
			for _, c := range p.Creates {
				keys = append(keys, c.Node)
			}
			for _, d := range p.Deletes {
				keys = append(keys, d.Namespace+"/"+d.Name)
			}
		}
	}
	slices.Sort(keys)
	return keys
}

// cutClass checks the class where the burst cap falls: exactly remaining of its actions, all
// of them from groups submitted whole except at most one, whose actions are a prefix of some
// order of its parts.
func (ix *listIndex) cutClass(c int, cl actionClass, groups map[int][]item, remaining, limit int) []choiceProblem {
	if cl.Rule != "" {
		return ix.choiceCount(cl, groups, remaining)
	}
	n := 0
	for _, its := range groups {
		n += len(its)
	}
	if n != remaining {
		return []choiceProblem{{fmt.Sprintf("class %d", c+1), "DIFF-10", fmt.Sprintf("%s of this priority class, want %d (the burst cap of %d cuts it)", count(n, ix.kind), remaining, limit)}}
	}
	var probs []choiceProblem
	partial := 0
	for g, gr := range cl.Groups {
		its := groups[g]
		if len(its) == 0 {
			continue
		}
		size := len(its)
		if size < groupSize(gr) {
			partial++
			if partial > 1 {
				probs = append(probs, choiceProblem{gr.Node, "DIFF-10", fmt.Sprintf("the burst cap cuts the %ss of node %s and of another node: the controller submits one node's %ss together", ix.kind, gr.Node, ix.kind)})
				continue
			}
		}
		probs = append(probs, ix.partsPrefix(gr, its, size)...)
	}
	return probs
}

// partsPrefix checks that its, size actions of group gr, are the first size actions of some
// order of its parts: every earlier part whole, then a subset of one part.
func (ix *listIndex) partsPrefix(gr actionGroup, its []item, size int) []choiceProblem {
	byPart := map[int][]item{}
	for _, it := range its {
		byPart[it.part] = append(byPart[it.part], it)
	}
	var probs []choiceProblem
	left := size
	for p, part := range gr.Parts {
		got := byPart[p]
		want := min(left, partSize(part))
		oneOf := 0
		for _, it := range got {
			if it.oneOf {
				oneOf++
			}
		}
		if oneOf > 1 {
			probs = append(probs, choiceProblem{gr.Node, "DIFF-17", fmt.Sprintf("%d Failed pods of node %s deleted: at most one Failed pod of a node goes per sync", oneOf, gr.Node)})
		} else if len(got) != want || (want == partSize(part) && len(part.OneOf) > 0 && oneOf == 0) {
			probs = append(probs, ix.partProblems(gr, part, got, want)...)
		}
		left -= want
	}
	return probs
}

// partProblems words what is wrong with the actions got of one part, want of which were due.
func (ix *listIndex) partProblems(gr actionGroup, part actionPart, got []item, want int) []choiceProblem {
	have := map[string]bool{}
	for _, it := range got {
		have[it.key] = true
	}
	var probs []choiceProblem
	if want == partSize(part) {
		for _, c := range part.Creates {
			if !have[c.Node] {
				probs = append(probs, choiceProblem{c.Node, ruleOf(c.Reason), "missing create on node " + c.Node + " (" + string(c.Reason) + ")"})
			}
		}
		for _, d := range part.Deletes {
			if k := d.Namespace + "/" + d.Name; !have[k] {
				probs = append(probs, choiceProblem{k, ruleOf(d.Reason), "missing delete of pod " + k + " on node " + d.Node + " (" + string(d.Reason) + ")"})
			}
		}
		if len(part.OneOf) > 0 {
			any := false
			var names []string
			for _, d := range part.OneOf {
				names = append(names, d.Namespace+"/"+d.Name)
				any = any || have[d.Namespace+"/"+d.Name]
			}
			switch {
			case any:
			case len(names) == 1:
				probs = append(probs, choiceProblem{names[0], "DIFF-17", "missing delete of Failed pod " + names[0] + " on node " + gr.Node})
			default:
				probs = append(probs, choiceProblem{gr.Node, "DIFF-17", "missing delete of one Failed pod of node " + gr.Node + ", one of " + strings.Join(names, ", ")})
			}
		}
		if len(probs) > 0 {
			return probs
		}
	}
	var keys []string
	for _, it := range got {
		keys = append(keys, it.key)
	}
	slices.Sort(keys)
	return []choiceProblem{{gr.Node, "DIFF-10", fmt.Sprintf("%d of the %ss the controller submits together on node %s (%s), want %d", len(got), ix.kind, gr.Node, strings.Join(keys, ", "), want)}}
}

// count says "1 delete", "2 deletes".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
