package rollout

// queue is the simulation's event queue: a binary min-heap of items by time, then by the order
// they were pushed (seq), so every item has its own place and the order of pops is fixed by
// the pushes alone. It is typed, not container/heap, so pushing and popping neither box an
// item nor call through an interface: the simulation pushes and pops about three items a sync.
type queue []item

// item is a queued pending: its time as an offset from Options.Start in nanoseconds, and its
// pod as a slot of sim.slots (-1: none).
type item struct {
	at    int64
	seq   uint64
	epoch uint64
	event int32
	slot  int32
	kind  itemKind
}

func (q queue) less(i, j int) bool {
	if q[i].at != q[j].at {
		return q[i].at < q[j].at
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
