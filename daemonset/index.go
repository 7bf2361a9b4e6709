package daemonset

import (
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"
)

// eligBits packs the two answers of ELIG-1 for one node.
type eligBits uint8

const (
	eligShouldRun eligBits = 1 << iota
	eligShouldContinue
)

func (e eligBits) shouldRun() bool             { return e&eligShouldRun != 0 }
func (e eligBits) shouldContinueRunning() bool { return e&eligShouldContinue != 0 }

// nodeGroup is the grouped pods of a node name absent from the node list.
type nodeGroup struct {
	name string
	pods []*v1.Pod
}

// podIndex is the one index of grouped pods by node built per plan (OWN-9, OWN-10): the
// pods of node i are pods[start[i]:start[i+1]], in DIFF-7 order. It costs a fixed number of
// allocations whatever the cluster size: no map or slice per node.
type podIndex struct {
	nodes   []*v1.Node
	elig    []eligBits
	start   []int32
	pods    []*v1.Pod
	missing []nodeGroup // sorted by name
	touched int         // keeps the early loads of newPodIndex

	scratch *planScratch
}

func compareNodeName(node *v1.Node, name string) int { return strings.Compare(node.Name, name) }

// indexClaims is the pod side of newPodIndex.
type indexClaims struct {
	p       *Planner
	res     *Result
	lost    map[*v1.Pod]string
	grouped []groupedPod
	start   []int32 // start[i+1] counts the pods of node i
	missing map[string][]*v1.Pod
}

// claim claims pod (OWN-1..OWN-6), recording adoptions, releases and conflicts, and returns
// its target node name when the pod is to be grouped.
func (ic *indexClaims) claim(pod *v1.Pod) (string, bool) {
	if pod == nil {
		return "", false
	}
	switch ic.p.classify(pod) {
	case claimOwned:
	case claimAdopt:
		if winner, ok := ic.lost[pod]; ok {
			ic.res.Conflicts = append(ic.res.Conflicts, Conflict{Namespace: pod.Namespace, Name: pod.Name, AdoptedBy: winner})
			return "", false
		}
		ic.res.Adopt = append(ic.res.Adopt, podRef(pod))
	case claimRelease:
		ic.res.Release = append(ic.res.Release, podRef(pod))
		return "", false
	default:
		return "", false
	}
	return groupable(pod)
}

// place groups pod under node i.
func (ic *indexClaims) place(pod *v1.Pod, i int32) {
	ic.grouped = append(ic.grouped, groupedPod{pod, i})
	ic.start[i+1]++
}

// groupedPod is a claimed pod with the index of its node, between the two passes of the
// counting sort.
type groupedPod struct {
	pod  *v1.Pod
	node int32
}

// planScratch is the working memory of one plan. It is recycled through the Planner's pool, so
// that a Planner planning snapshot after snapshot (a simulator's inner loop) allocates in
// proportion to its output only: at 100,000 nodes this saves about 12 MB per plan and the
// garbage collection that goes with it. Nothing of it is reachable from a Result.
type planScratch struct {
	byName   map[string]int32
	mapNodes int  // the node count byName was made for
	mapUsed  bool // byName holds entries to clear
	elig     []eligBits
	start    []int32
	next     []int32
	grouped  []groupedPod
	pods     []*v1.Pod
	states   []nodeState
}

func (p *Planner) getPlanScratch() *planScratch {
	sc, _ := p.pool.Get().(*planScratch)
	if sc == nil {
		sc = &planScratch{}
	}
	return sc
}

// nameIndex returns byName filled with the names of nodes (the first index of each name wins),
// making the map only when a plan needs it: a sorted node list with pods in node order never
// does. size is the node count of the plan, which nodes may be a prefix of.
func (sc *planScratch) nameIndex(nodes []*v1.Node, size int) map[string]int32 {
	// A map several times larger than needed would cost more to clear than to make.
	if n := size; sc.byName == nil || n > sc.mapNodes || 4*n < sc.mapNodes {
		sc.byName = make(map[string]int32, n)
		sc.mapNodes = n
	}
	sc.mapUsed = true
	for i := len(nodes) - 1; i >= 0; i-- {
		// Backwards, so that with duplicate names the first node wins without a lookup
		// before each insert.
		sc.byName[nodes[i].Name] = int32(i)
	}
	return sc.byName
}

// release clears every reference to the snapshot from the scratch space (so that the pool
// keeps no object alive) and returns it to the pool.
func (ix *podIndex) release(p *Planner) {
	sc := ix.scratch
	ix.scratch = nil
	if sc.mapUsed {
		clear(sc.byName)
		sc.mapUsed = false
	}
	clear(sc.grouped[:cap(sc.grouped)])
	clear(sc.pods[:cap(sc.pods)])
	clear(sc.states[:cap(sc.states)])
	p.pool.Put(sc)
}

// grow returns s resized to n elements, reusing its array when it is large enough. The
// elements are not cleared.
func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

func (ix *podIndex) podsOf(i int) []*v1.Pod { return ix.pods[ix.start[i]:ix.start[i+1]] }

// maxGuessMisses is how many pods of a plan are looked up by binary search in a sorted node
// list before the name map is built instead: a few pods out of node order (nodes gone, pods
// added) cost less than the map, a shuffled pod list costs less with it.
const maxGuessMisses = 64

// maxMergeWait is how many nodes in a row may pass without a pod while pods are matched to
// nodes in step (newPodIndex): past it the pods are taken as not in node order, and node names
// go into the name map while each node is in cache.
const maxMergeWait = 64

// newPodIndex decides every node (ELIG-*), claims every pod (OWN-1..OWN-6, recording
// adoptions, releases and, cluster-wide, conflicts in res) and groups the claimed pods by
// target node (OWN-9, OWN-10). lost lists orphans another DaemonSet adopts (D-2).
//
// An API server lists nodes sorted by name and a controller's pods usually follow (one per
// node, named or created in node order), so the pods are claimed in step with the nodes, a
// merge of two sorted lists: a pod whose nodeName is the current node's name belongs to it
// (the names so far strictly increase, so it is the first node of that name). Only when the
// lists are not in step is a pod's node looked up, by binary search if the names turn out
// sorted and few pods are out of step, else in a map of names, which is then filled while
// each node is in cache. The result is the same whatever the path (with duplicate names the
// first node wins).
func newPodIndex(p *Planner, res *Result, nodes []*v1.Node, pods []*v1.Pod, lost map[*v1.Pod]string) *podIndex {
	ix := &podIndex{nodes: nonNil(nodes)}
	n := len(ix.nodes)
	sc := p.getPlanScratch()
	ix.scratch = sc
	sc.elig = grow(sc.elig, n)
	ix.elig = sc.elig
	sc.start = grow(sc.start, n+1)
	clear(sc.start)
	ix.start = sc.start
	ic := indexClaims{p: p, res: res, lost: lost, grouped: sc.grouped[:0], start: ix.start}

	// sorted: names[:i+1] strictly increase. merging: pods[:j] are claimed and placed, and
	// pods[j] (pending when its target is known) waits for a later node. byName, once made,
	// gets every name seen so far.
	sorted, merging := true, true
	var byName map[string]int32
	j, waited := 0, 0
	var pendingTarget string
	pending, exhausted := false, false // exhausted: every pod is placed, nothing to look up
	prev := ""
	touch := 0
	for i, node := range ix.nodes {
		name := node.Name
		if byName == nil { // with the map, the order no longer matters
			if sorted && i > 0 && prev >= name {
				sorted, merging = false, false
			}
			prev = name
		}
		if i+2 < n {
			// Start the cache misses of a later node while this one is decided: its struct two
			// ahead, its label map one ahead. The loads are independent of this node's, so the
			// processor overlaps them with its chain of dependent misses.
			touch += len(ix.nodes[i+1].Labels) + len(ix.nodes[i+2].Name)
		}
		e := p.Eligibility(node)
		var b eligBits
		if e.ShouldRun {
			b |= eligShouldRun
		}
		if e.ShouldContinueRunning {
			b |= eligShouldContinue
		}
		ix.elig[i] = b
		for merging {
			if !pending {
				if j == len(pods) {
					merging, exhausted = false, true
					break
				}
				target, ok := ic.claim(pods[j])
				if !ok {
					j++
					continue
				}
				pendingTarget, pending = target, true
			}
			if pendingTarget != name {
				// A later node may be the pod's; an earlier one or none is for the lookup.
				if pendingTarget < name {
					merging = false
				}
				break
			}
			ic.place(pods[j], int32(i))
			pending, waited = false, -1
			j++
		}
		if merging {
			waited++
			if waited > maxMergeWait {
				merging = false
			}
		}
		if byName == nil && !merging && !exhausted && (!sorted || waited > maxMergeWait) {
			byName = sc.nameIndex(ix.nodes[:i+1], n)
		} else if byName != nil {
			byName[name] = int32(i)
		}
	}
	ix.touched = touch
	if byName != nil && len(byName) < n {
		// Duplicate names, inserted forwards after the map was made: the last one won.
		// Refill so that the first does.
		clear(byName)
		byName = sc.nameIndex(ix.nodes, n)
	}

	// The pods not placed in step: pods[j] (already claimed when pending) and the rest.
	guess, misses := 0, 0
	if j > 0 && len(ic.grouped) > 0 {
		guess = int(ic.grouped[len(ic.grouped)-1].node) + 1
	}
	for ; j < len(pods); j++ {
		pod := pods[j]
		var target string
		if pending {
			target, pending = pendingTarget, false
		} else {
			if pod == nil {
				continue
			}
			switch p.classify(pod) {
			case claimOwned:
			case claimAdopt:
				if winner, ok := lost[pod]; ok {
					res.Conflicts = append(res.Conflicts, Conflict{Namespace: pod.Namespace, Name: pod.Name, AdoptedBy: winner})
					continue
				}
				res.Adopt = append(res.Adopt, podRef(pod))
			case claimRelease:
				res.Release = append(res.Release, podRef(pod))
				continue
			default:
				continue
			}
			var ok bool
			if target, ok = groupable(pod); !ok {
				continue
			}
		}
		var i int32
		var found bool
		switch {
		case byName != nil:
			i, found = byName[target]
		case guess < n && ix.nodes[guess].Name == target:
			i, found = int32(guess), true
		case misses < maxGuessMisses:
			misses++
			k, ok := slices.BinarySearchFunc(ix.nodes, target, compareNodeName)
			i, found = int32(k), ok
		default:
			byName = sc.nameIndex(ix.nodes, n)
			i, found = byName[target]
		}
		if !found {
			if ic.missing == nil {
				ic.missing = map[string][]*v1.Pod{}
			}
			ic.missing[target] = append(ic.missing[target], pod)
			continue
		}
		guess = int(i) + 1
		ic.place(pod, i)
	}
	grouped, missing := ic.grouped, ic.missing
	sortClaims(res)
	for i := 1; i <= n; i++ {
		ix.start[i] += ix.start[i-1]
	}
	sc.grouped = grouped
	sc.pods = grow(sc.pods, len(grouped))
	ix.pods = sc.pods
	sc.next = grow(sc.next, n)
	next := sc.next
	copy(next, ix.start[:n])
	for _, g := range grouped {
		ix.pods[next[g.node]] = g.pod
		next[g.node]++
	}
	for i := 0; i < n; i++ {
		if pods := ix.podsOf(i); len(pods) > 1 {
			slices.SortFunc(pods, podCompare)
		}
	}
	for name, pods := range missing {
		slices.SortFunc(pods, podCompare)
		ix.missing = append(ix.missing, nodeGroup{name: name, pods: pods})
	}
	slices.SortFunc(ix.missing, func(a, b nodeGroup) int { return strings.Compare(a.name, b.name) })
	return ix
}
