package daemonset

import (
	"slices"
	"strings"
	"sync/atomic"

	v1 "k8s.io/api/core/v1"

	"github.com/daemonsched/daemonsched/internal/parallel"
)

// eligBits packs the two answers of ELIG-1 for one node.
type eligBits uint8

const (
	eligShouldRun eligBits = 1 << iota
	eligShouldContinue
)

func (e eligBits) shouldRun() bool             { return e&eligShouldRun != 0 }
func (e eligBits) shouldContinueRunning() bool { return e&eligShouldContinue != 0 }

func eligBitsOf(e Eligibility) eligBits {
	var b eligBits
	if e.ShouldRun {
		b |= eligShouldRun
	}
	if e.ShouldContinueRunning {
		b |= eligShouldContinue
	}
	return b
}

// daemonPod is a grouped pod with what the plan reads of it.
type daemonPod struct {
	pod   *v1.Pod
	facts podFacts
}

// nodeGroup is the grouped pods of a node name absent from the node list.
type nodeGroup struct {
	name string
	pods []daemonPod
}

// podIndex is the one index of grouped pods by node built per plan (OWN-9, OWN-10): the
// pods of node i are pods[start[i]:start[i+1]], in DIFF-7 order. It costs a fixed number of
// allocations whatever the cluster size: no map or slice per node.
type podIndex struct {
	names   []string // the nodes' names, read while deciding them: later walks touch no node
	elig    []eligBits
	start   []int32
	pods    []daemonPod
	missing []nodeGroup // sorted by name

	scratch *planScratch
}

func (ix *podIndex) podsOf(i int) []daemonPod { return ix.pods[ix.start[i]:ix.start[i+1]] }

// podClaim is what claiming decided for one pod of the snapshot (OWN-1..OWN-6) and, for a pod
// to group (OWN-9, OWN-10), its target node name and facts.
type podClaim struct {
	target  string
	kind    claimKind
	grouped bool
	facts   podFacts
}

// placedPod is a grouped pod with the index of its node, between the two passes of the
// counting sort.
type placedPod struct {
	daemonPod
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
	names    []string
	elig     []eligBits
	claims   []podClaim
	start    []int32
	next     []int32
	placed   []placedPod
	pods     []daemonPod
	states   []nodeState
	creates  []string    // diffState.creates
	deletes  []Deletion  // diffState.deletes
	running  []daemonPod // diffState.running
}

func (p *Planner) getPlanScratch() *planScratch {
	sc, _ := p.pool.Get().(*planScratch)
	if sc == nil {
		sc = &planScratch{}
	}
	return sc
}

// nameIndex returns byName filled with names, the first index of each name winning.
func (sc *planScratch) nameIndex(names []string) map[string]int32 {
	// A map several times larger than needed would cost more to clear than to make.
	if n := len(names); sc.byName == nil || n > sc.mapNodes || 4*n < sc.mapNodes {
		sc.byName = make(map[string]int32, n)
		sc.mapNodes = n
	}
	sc.mapUsed = true
	for i := len(names) - 1; i >= 0; i-- {
		// Backwards, so that with duplicate names the first node wins without a lookup
		// before each insert.
		sc.byName[names[i]] = int32(i)
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
	clear(sc.names[:cap(sc.names)])
	clear(sc.claims[:cap(sc.claims)])
	clear(sc.placed[:cap(sc.placed)])
	clear(sc.pods[:cap(sc.pods)])
	clear(sc.states[:cap(sc.states)])
	clear(sc.creates[:cap(sc.creates)])
	clear(sc.deletes[:cap(sc.deletes)])
	clear(sc.running[:cap(sc.running)])
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

// minShare is the fewest nodes or pods worth handing to another goroutine: below it the
// goroutine costs more than it saves.
const minShare = 2048

// maxGuessMisses is how many pods of a plan, out of node order, are looked up by binary search
// in a sorted node list before the name map is built instead: a few pods out of order (pods
// added late) cost less than the map, a shuffled pod list costs less with it.
const maxGuessMisses = 64

// nodeFinder finds the first node of a name. An API server lists nodes sorted by name and a
// controller's pods usually follow (named or created in node order, at most one per node,
// nodes without a pod in between), so the node of a pod is most often at or a little after
// the previous pod's. While the node names strictly increase, the finder searches forward
// from there, doubling its stride (a galloping search: a few comparisons per pod whatever
// the gaps); pods out of order are looked up by binary search, until there are too many and a
// map of names takes over. Unsorted node lists go to the map at once.
type nodeFinder struct {
	names  []string // of the nodes
	sorted bool     // the names strictly increase, so each names one node
	next   int      // the node after the previous pod's
	misses int
	byName map[string]int32
	sc     *planScratch
}

func (f *nodeFinder) find(name string) (int32, bool) {
	if f.byName == nil && !f.sorted {
		f.byName = f.sc.nameIndex(f.names)
	}
	if f.byName != nil {
		i, ok := f.byName[name]
		return i, ok
	}
	names := f.names
	lo, hi := f.next, len(names)
	switch {
	case lo > 0 && names[lo-1] == name:
		return int32(lo - 1), true // another pod of the same node
	case lo < len(names) && names[lo] <= name:
		// In step or ahead: narrow [lo, hi) to hold name by doubling strides.
		for step := 1; lo+step < len(names); step *= 2 {
			if names[lo+step] > name {
				hi = lo + step
				break
			}
			lo += step
		}
	case f.misses < maxGuessMisses:
		f.misses++
		lo = 0
	default:
		f.byName = f.sc.nameIndex(names)
		i, ok := f.byName[name]
		return i, ok
	}
	k, ok := slices.BinarySearch(names[lo:hi], name)
	if !ok {
		return 0, false
	}
	f.next = lo + k + 1
	return int32(lo + k), true
}

// newPodIndex decides every node (ELIG-*), claims every pod (OWN-1..OWN-6, recording
// adoptions, releases and, cluster-wide, conflicts in res) and groups the claimed pods by
// target node (OWN-9, OWN-10), reading what the rest of the plan needs of each grouped pod
// (podFacts) while it is in cache. cc, in a cluster-wide plan, lists the orphans another
// DaemonSet adopts and the pods an older DaemonSet releases to this one (D-2). With
// duplicate node names the first node of a name gets its pods.
//
// Deciding nodes and claiming pods depend on one object each, so Options.Workers goroutines
// share them; grouping is one walk over the claims.
func newPodIndex(p *Planner, res *Result, nodes []*v1.Node, pods []*v1.Pod, cc *clusterClaims, j *judge) *podIndex {
	ix := &podIndex{}
	nodes = nonNil(nodes)
	n := len(nodes)
	sc := p.getPlanScratch()
	ix.scratch = sc
	sc.elig = grow(sc.elig, n)
	ix.elig = sc.elig
	sc.names = grow(sc.names, n)
	ix.names = sc.names
	sc.claims = grow(sc.claims, len(pods))
	claims := sc.claims

	sorted := p.decideNodes(nodes, ix.names, ix.elig)
	p.claimPods(pods, claims, cc, j)

	sc.start = grow(sc.start, n+1)
	clear(sc.start)
	ix.start = sc.start
	if cap(sc.placed) < len(pods) {
		sc.placed = make([]placedPod, 0, len(pods))
	}
	placed := sc.placed[:0]
	finder := nodeFinder{names: ix.names, sorted: sorted, sc: sc}
	var missing map[string][]daemonPod
	for k := range claims {
		c := &claims[k]
		pod := pods[k]
		switch c.kind {
		case claimOwned:
		case claimAdopt:
			if winner, ok := cc.lostTo(pod); ok {
				res.Conflicts = append(res.Conflicts, Conflict{Namespace: pod.Namespace, Name: pod.Name, UID: pod.UID, AdoptedBy: winner})
				continue
			}
			res.Adopt = append(res.Adopt, podRef(pod))
		case claimRelease:
			res.Release = append(res.Release, podRef(pod))
			continue
		default:
			continue
		}
		if !c.grouped {
			continue
		}
		dp := daemonPod{pod: pod, facts: c.facts}
		i, found := finder.find(c.target)
		if !found {
			if missing == nil {
				missing = map[string][]daemonPod{}
			}
			missing[c.target] = append(missing[c.target], dp)
			continue
		}
		placed = append(placed, placedPod{dp, i})
		ix.start[i+1]++
	}
	sortClaims(res)

	// Counting sort of the placed pods by node.
	for i := 1; i <= n; i++ {
		ix.start[i] += ix.start[i-1]
	}
	sc.placed = placed
	sc.pods = grow(sc.pods, len(placed))
	ix.pods = sc.pods
	sc.next = grow(sc.next, n)
	next := sc.next
	copy(next, ix.start[:n])
	for _, pp := range placed {
		ix.pods[next[pp.node]] = pp.daemonPod
		next[pp.node]++
	}
	for i := 0; i < n; i++ {
		if pods := ix.podsOf(i); len(pods) > 1 {
			slices.SortFunc(pods, compareDaemonPods)
		}
	}
	for name, pods := range missing {
		slices.SortFunc(pods, compareDaemonPods)
		ix.missing = append(ix.missing, nodeGroup{name: name, pods: pods})
	}
	slices.SortFunc(ix.missing, func(a, b nodeGroup) int { return strings.Compare(a.name, b.name) })
	return ix
}

// decideNodes fills elig for nodes (ELIG-*) and names with their names, and reports whether
// the names strictly increase. Options.Workers goroutines share the nodes.
func (p *Planner) decideNodes(nodes []*v1.Node, names []string, elig []eligBits) (sorted bool) {
	if w := parallel.Workers(p.opts.Workers, len(nodes), minShare); w > 1 {
		var unsorted atomic.Bool
		parallel.Run(w, len(nodes), func(lo, hi int) {
			if !p.decideRange(nodes[lo:hi], names[lo:hi], elig[lo:hi]) || lo > 0 && nodes[lo-1].Name >= nodes[lo].Name {
				unsorted.Store(true)
			}
		})
		return !unsorted.Load()
	}
	return p.decideRange(nodes, names, elig)
}

func (p *Planner) decideRange(nodes []*v1.Node, names []string, elig []eligBits) (sorted bool) {
	sorted = true
	touched := 0
	for i, node := range nodes {
		if i+1 < len(nodes) {
			// Load the next node's label map header while this node is decided: its cache
			// misses overlap this node's chain of dependent misses inside the map (5% at
			// 100,000 nodes).
			touched += len(nodes[i+1].Labels) + len(nodes[i+1].Spec.Taints)
		}
		names[i] = node.Name
		if i > 0 && names[i-1] >= names[i] {
			sorted = false
		}
		elig[i] = eligBitsOf(p.Eligibility(node))
	}
	return sorted && touched >= 0
}

// claimPods claims every pod into claims. Options.Workers goroutines share the pods.
func (p *Planner) claimPods(pods []*v1.Pod, claims []podClaim, cc *clusterClaims, j *judge) {
	if w := parallel.Workers(p.opts.Workers, len(pods), minShare); w > 1 {
		parallel.Run(w, len(pods), func(lo, hi int) { p.claimRange(pods[lo:hi], claims[lo:hi], cc, j) })
		return
	}
	p.claimRange(pods, claims, cc, j)
}

func (p *Planner) claimRange(pods []*v1.Pod, claims []podClaim, cc *clusterClaims, j *judge) {
	for k, pod := range pods {
		claims[k] = p.claim(pod, cc, j)
	}
}

// claim claims pod (OWN-1..OWN-6, and D-2's released pods through cc) and, when it is to be
// grouped, reads its target node (OWN-9, OWN-10) and facts. A nil pod is ignored.
func (p *Planner) claim(pod *v1.Pod, cc *clusterClaims, j *judge) podClaim {
	if pod == nil {
		return podClaim{}
	}
	c := podClaim{kind: cc.classify(p, pod)}
	if c.kind == claimOwned || c.kind == claimAdopt {
		if c.target, c.grouped = groupable(pod); c.grouped {
			c.facts = j.facts(pod, c.kind == claimOwned)
		}
	}
	return c
}
