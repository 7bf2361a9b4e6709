package rollout

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/daemonsched/daemonsched/affinity"
	"github.com/daemonsched/daemonsched/daemonset"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// podKey names a pod.
type podKey struct{ namespace, name string }

func keyOf(p *v1.Pod) podKey { return podKey{p.Namespace, p.Name} }

// world is a snapshot being changed: the DaemonSet of the plans, the nodes, the pods with an
// index by name, the revisions, and the other DaemonSets (kept as they are). Every object it
// changes is copied first, so the objects it started from are never modified; its slices are
// its own.
type world struct {
	dsIndex   int // of ds in daemonSets
	daemonSet []*appsv1.DaemonSet
	nodes     []*v1.Node
	nodeIx    map[string]int
	pods      []*v1.Pod
	podIx     map[podKey]int
	revisions []*appsv1.ControllerRevision
	// byNode holds, by node name, the node, the pods meant for it (OWN-9) and the
	// simulation's state of it: one look-up for all of them. A name can have pods and no node.
	byNode map[string]*nodeEntry
	// touched, when set, hears of every node whose object or pods change.
	touched func(e *nodeEntry)
	// specVersion counts changes of the DaemonSet's spec.
	specVersion uint64
	// dsVersion counts the writes to the DaemonSet (status, collision count, updates).
	// scratch is the DaemonSet object the world made itself and has shown to no one (no
	// snapshot, no Planner): a status write may change it in place instead of copying it.
	dsVersion uint64
	scratch   *appsv1.DaemonSet
	// exposures counts the snapshots the world has given out: a pod the world made after the
	// last one has been seen by nobody else.
	exposures uint64
	// applied holds the lists of the last apply, whose arrays the next one reuses.
	applied applied
}

func newWorld(s daemonset.Snapshot, dsIndex int) *world {
	w := &world{
		dsIndex:   dsIndex,
		daemonSet: append([]*appsv1.DaemonSet(nil), s.DaemonSets...),
		nodes:     append([]*v1.Node(nil), s.Nodes...),
		nodeIx:    make(map[string]int, len(s.Nodes)),
		pods:      make([]*v1.Pod, 0, len(s.Pods)),
		podIx:     make(map[podKey]int, len(s.Pods)),
		revisions: append([]*appsv1.ControllerRevision(nil), s.Revisions...),
	}
	for i, n := range w.nodes {
		w.nodeIx[n.Name] = i
	}
	w.byNode = make(map[string]*nodeEntry, len(s.Nodes))
	entries := make([]nodeEntry, len(w.nodes)) // one allocation for the nodes' entries
	for i, n := range w.nodes {
		// A Tracker of a node list already in name order indexes the nodes as the list does, so
		// the hint is right from the first touch: no look-up by name per node (at 100,000 nodes,
		// a cache miss each).
		entries[i] = nodeEntry{node: n, trackIdx: int32(i)}
		w.byNode[n.Name] = &entries[i]
	}
	for _, p := range s.Pods {
		w.podIx[keyOf(p)] = len(w.pods)
		w.pods = append(w.pods, p)
		e := w.entry(podNode(p))
		e.pods = append(e.pods, p)
	}
	return w
}

// podNode is the node a pod is meant for (OWN-9); "" when it has none.
func podNode(p *v1.Pod) string {
	if p.Spec.NodeName != "" {
		return p.Spec.NodeName
	}
	n, _ := affinity.TargetNodeName(p)
	return n
}

// nodeEntry is what the world knows of one node name.
type nodeEntry struct {
	node  *v1.Node  // nil: no such node
	pods  []*v1.Pod // meant for the node (OWN-9)
	epoch uint64    // the simulation's kubelet epoch of the node
	dirty bool      // touched since the simulation's last incremental plan (tracked)
	// trackIdx is the node's index in the last Tracker that looked it up: a hint, checked by
	// the Tracker (every Tracker of one node list orders the nodes alike). It fits in the
	// padding after dirty, so the entry stays 48 bytes.
	trackIdx int32
}

// entry returns the entry of name, made when there is none.
func (w *world) entry(name string) *nodeEntry {
	e := w.byNode[name]
	if e == nil {
		e = &nodeEntry{}
		w.byNode[name] = e
	}
	return e
}

// epoch is the kubelet epoch of the node of name.
func (w *world) epoch(name string) uint64 {
	if e := w.byNode[name]; e != nil {
		return e.epoch
	}
	return 0
}

func (w *world) touch(e *nodeEntry) {
	if w.touched != nil {
		w.touched(e)
	}
}

// regroup replaces old (nil: none) by p (nil: none) in the node groups.
func (w *world) regroup(old, p *v1.Pod) {
	if old != nil {
		n := podNode(old)
		e := w.entry(n)
		list := e.pods
		if i := slices.Index(list, old); i >= 0 {
			if p != nil && podNode(p) == n {
				list[i] = p
				w.touch(e)
				return
			}
			list[i] = list[len(list)-1]
			list[len(list)-1] = nil
			e.pods = list[:len(list)-1]
		}
		w.touch(e)
	}
	if p != nil {
		e := w.entry(podNode(p))
		e.pods = append(e.pods, p)
		w.touch(e)
	}
}

func (w *world) ds() *appsv1.DaemonSet { return w.daemonSet[w.dsIndex] }

// sharedDS returns the DaemonSet for a holder that keeps it (a Planner): from now on it is
// never changed in place.
func (w *world) sharedDS() *appsv1.DaemonSet {
	w.scratch = nil
	return w.ds()
}

// setDS replaces the DaemonSet by ds, an object the world made and nobody else holds.
func (w *world) setDS(ds *appsv1.DaemonSet) {
	w.daemonSet[w.dsIndex] = ds
	w.scratch = ds
	w.dsVersion++
}

// snapshot returns the world's state. Its slices are shared with the world: the caller reads
// them before the world changes again.
func (w *world) snapshot() daemonset.Snapshot {
	w.scratch = nil
	w.exposures++
	return daemonset.Snapshot{DaemonSets: w.daemonSet, Nodes: w.nodes, Pods: w.pods, Revisions: w.revisions}
}

// exported returns a snapshot whose slices are copies, for callers that keep it.
func (w *world) exported() daemonset.Snapshot {
	w.scratch = nil
	w.exposures++
	return daemonset.Snapshot{
		DaemonSets: append([]*appsv1.DaemonSet(nil), w.daemonSet...),
		Nodes:      append([]*v1.Node(nil), w.nodes...),
		Pods:       append([]*v1.Pod(nil), w.pods...),
		Revisions:  append([]*appsv1.ControllerRevision(nil), w.revisions...),
	}
}

func (w *world) pod(k podKey) (*v1.Pod, bool) {
	_, p, ok := w.podAt(k)
	return p, ok
}

// podAt is pod with the pod's index in w.pods, for replaceAt and removeAt: a pod the caller
// both reads and replaces or removes is looked up by name once (its key hashes two strings).
func (w *world) podAt(k podKey) (int, *v1.Pod, bool) {
	i, ok := w.podIx[k]
	if !ok {
		return 0, nil, false
	}
	return i, w.pods[i], true
}

// setPod replaces the pod of the same name, or adds it.
func (w *world) setPod(p *v1.Pod) {
	k := keyOf(p)
	if i, ok := w.podIx[k]; ok {
		w.replaceAt(i, p)
		return
	}
	w.regroup(nil, p)
	w.podIx[k] = len(w.pods)
	w.pods = append(w.pods, p)
}

// replaceAt replaces the pod at index i of w.pods (podAt) by p, which has its name.
func (w *world) replaceAt(i int, p *v1.Pod) {
	w.regroup(w.pods[i], p)
	w.pods[i] = p
}

// removePod removes the named pod, moving the last one into its place.
func (w *world) removePod(k podKey) bool {
	i, ok := w.podIx[k]
	if !ok {
		return false
	}
	w.removeAt(i)
	return true
}

// removeAt removes the pod at index i of w.pods (podAt), moving the last one into its place.
func (w *world) removeAt(i int) {
	k := keyOf(w.pods[i])
	w.regroup(w.pods[i], nil)
	last := len(w.pods) - 1
	if i != last {
		w.pods[i] = w.pods[last]
		w.podIx[keyOf(w.pods[i])] = i
	}
	w.pods[last] = nil
	w.pods = w.pods[:last]
	delete(w.podIx, k)
}

func (w *world) node(name string) (*v1.Node, bool) {
	if e := w.byNode[name]; e != nil && e.node != nil {
		return e.node, true
	}
	return nil, false
}

func (w *world) setNode(n *v1.Node) {
	e := w.entry(n.Name)
	e.node = n
	w.touch(e)
	if i, ok := w.nodeIx[n.Name]; ok {
		w.nodes[i] = n
		return
	}
	w.nodeIx[n.Name] = len(w.nodes)
	w.nodes = append(w.nodes, n)
}

func (w *world) removeNode(name string) bool {
	i, ok := w.nodeIx[name]
	if !ok {
		return false
	}
	e := w.byNode[name]
	e.node = nil
	w.touch(e)
	w.nodes = append(w.nodes[:i:i], w.nodes[i+1:]...)
	delete(w.nodeIx, name)
	for j := i; j < len(w.nodes); j++ {
		w.nodeIx[w.nodes[j].Name] = j
	}
	return true
}

// nameAlphabet is the alphabet of the suffix the API server appends to generateName: no vowels,
// no digits that look like letters.
const nameAlphabet = "bcdfghjklmnpqrstvwxz2456789"

// newName returns a name for a pod created from generateName on node at now that no pod of the
// world has (ROLL-2): five characters of nameAlphabet derived from the inputs, the attempt
// number breaking ties. The derivation is 64-bit FNV-1a (hash/fnv's New64a) over the inputs
// separated by zero bytes, computed here without hash.Hash64: two allocations fewer for every
// pod the simulation creates (6% of a 10,000-node rolling update's allocations). The name and
// the uid are two parts of one string, one allocation instead of two.
func (w *world) newName(namespace, generateName, node string, now time.Time) (string, types.UID) {
	var num [20]byte
	h := fnvByte(fnvString(fnvOffset, namespace), 0)
	h = fnvByte(fnvString(h, generateName), 0)
	h = fnvByte(fnvString(h, node), 0)
	h = fnvByte(fnvBytes(h, strconv.AppendInt(num[:0], now.UnixNano(), 10)), 0)
	for attempt := 0; ; attempt++ {
		sum := fnvBytes(h, strconv.AppendInt(num[:0], int64(attempt), 10))
		var suffix [5]byte
		x := sum
		for i := range suffix {
			suffix[i] = nameAlphabet[x%uint64(len(nameAlphabet))]
			x /= uint64(len(nameAlphabet))
		}
		var b strings.Builder
		b.Grow(len(generateName) + len(suffix) + uidLen)
		b.WriteString(generateName)
		b.Write(suffix[:])
		n := b.Len()
		// The uid's second half hashes the name: generateName, then the suffix.
		putUID(&b, sum, fnvBytes(fnvString(fnvOffset, generateName), suffix[:]))
		both := b.String()
		if _, taken := w.podIx[podKey{namespace, both[:n]}]; !taken {
			return both[:n], types.UID(both[n:])
		}
	}
}

// 64-bit FNV-1a, as hash/fnv's New64a computes it.
const (
	fnvOffset uint64 = 14695981039346656037
	fnvPrime  uint64 = 1099511628211
)

func fnvByte(h uint64, c byte) uint64 { return (h ^ uint64(c)) * fnvPrime }

func fnvString(h uint64, s string) uint64 {
	for i := 0; i < len(s); i++ {
		h = fnvByte(h, s[i])
	}
	return h
}

func fnvBytes(h uint64, p []byte) uint64 {
	for _, c := range p {
		h = fnvByte(h, c)
	}
	return h
}

// uidLen is the length of a uid putUID writes.
const uidLen = 36

// putUID writes a version-4-shaped UUID from sum and lo, the 64-bit FNV-1a of the pod's name.
// The digits are set in an array and written at once: a WriteByte per digit cost about a
// twentieth of a 1,000-node rollout's instructions with newName.
func putUID(b *strings.Builder, sum, lo uint64) {
	const hex = "0123456789abcdef"
	var u [uidLen]byte
	put := func(at int, v uint64, digits int) {
		for i := digits - 1; i >= 0; i-- {
			u[at+i] = hex[v&0xf]
			v >>= 4
		}
	}
	put(0, sum>>32, 8)
	u[8] = '-'
	put(9, sum>>16, 4)
	u[13], u[14] = '-', '4'
	put(15, sum, 3)
	u[18], u[19] = '-', '8'
	put(20, lo>>48, 3)
	u[23] = '-'
	put(24, lo, 12)
	b.Write(u[:])
}

func metavNow(t time.Time) metav1.Time { return metav1.NewTime(t) }
