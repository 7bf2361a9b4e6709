package rollout

// queue is the simulation's event queue: a binary min-heap of items by time, then by the order
// they were pushed (seq), so every item has its own place and the order of pops is fixed by
// the pushes alone. It is typed, not container/heap, so pushing and popping neither box an
// item nor call through an interface: the simulation pushes and pops about three items a sync.
type queue []item

func (q queue) less(i, j int) bool {
	if c := q[i].at.Compare(q[j].at); c != 0 {
		return c < 0
	}
	return q[i].seq < q[j].seq
}

// push adds it.
func (q *queue) push(it item) {
	*q = append(*q, it)
	h := *q
	for j := len(h) - 1; j > 0; {
		i := (j - 1) / 2
		if !h.less(j, i) {
			break
		}
		h[i], h[j] = h[j], h[i]
		j = i
	}
}

// pop removes and returns the first item; the queue is not empty.
func (q *queue) pop() item {
	h := *q
	top := h[0]
	last := len(h) - 1
	h[0] = h[last]
	h[last] = item{} // drop the pod key's strings
	h = h[:last]
	for i := 0; ; {
		l := 2*i + 1
		if l >= len(h) {
			break
		}
		m := l
		if r := l + 1; r < len(h) && h.less(r, l) {
			m = r
		}
		if !h.less(m, i) {
			break
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
	*q = h
	return top
}
