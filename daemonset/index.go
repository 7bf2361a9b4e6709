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

	scratch *planScratch
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
	mapNodes int // the node count byName was made for
	elig     []eligBits
	start    []int32
	next     []int32
	grouped  []groupedPod
	pods     []*v1.Pod
	states   []nodeState
}

func (p *Planner) getPlanScratch(nodes int) *planScratch {
	sc, _ := p.pool.Get().(*planScratch)
	if sc == nil {
		sc = &planScratch{}
	}
	// A map several times larger than needed would cost more to clear than to make.
	if sc.byName == nil || nodes > sc.mapNodes || 4*nodes < sc.mapNodes {
		sc.byName = make(map[string]int32, nodes)
		sc.mapNodes = nodes
	}
	return sc
}

// release clears every reference to the snapshot from the scratch space (so that the pool
// keeps no object alive) and returns it to the pool.
func (ix *podIndex) release(p *Planner) {
	sc := ix.scratch
	ix.scratch = nil
	clear(sc.byName)
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

// newPodIndex decides every node (ELIG-*), claims every pod (OWN-1..OWN-6, recording
// adoptions, releases and, cluster-wide, conflicts in res) and groups the claimed pods by
// target node (OWN-9, OWN-10). lost lists orphans another DaemonSet adopts (D-2).
func newPodIndex(p *Planner, res *Result, nodes []*v1.Node, pods []*v1.Pod, lost map[*v1.Pod]string) *podIndex {
	ix := &podIndex{nodes: nonNil(nodes)}
	n := len(ix.nodes)
	sc := p.getPlanScratch(n)
	ix.scratch = sc
	sc.elig = grow(sc.elig, n)
	ix.elig = sc.elig
	byName := sc.byName
	for i := n - 1; i >= 0; i-- {
		// Backwards, so that with duplicate names the first node wins without a lookup
		// before each insert.
		node := ix.nodes[i]
		e := p.Eligibility(node)
		var b eligBits
		if e.ShouldRun {
			b |= eligShouldRun
		}
		if e.ShouldContinueRunning {
			b |= eligShouldContinue
		}
		ix.elig[i] = b
		byName[node.Name] = int32(i)
	}

	// One pass over the pods claims them and finds their node; then a counting sort by node
	// index.
	grouped := sc.grouped[:0]
	sc.start = grow(sc.start, n+1)
	clear(sc.start)
	ix.start = sc.start
	var missing map[string][]*v1.Pod
	for _, pod := range pods {
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
		target, ok := groupable(pod)
		if !ok {
			continue
		}
		i, found := byName[target]
		if !found {
			if missing == nil {
				missing = map[string][]*v1.Pod{}
			}
			missing[target] = append(missing[target], pod)
			continue
		}
		grouped = append(grouped, groupedPod{pod, i})
		ix.start[i+1]++
	}
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
