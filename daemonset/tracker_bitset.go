package daemonset

import "math/bits"

// bitset is an ordered set of node indices.
type bitset struct {
	words []uint64
	lo    int // no word below lo has a bit set
}

func newBitset(n int) bitset { return bitset{words: make([]uint64, (n+63)/64)} }

func (b *bitset) set(i int, on bool) {
	if on {
		b.words[i/64] |= 1 << (i % 64)
		b.lo = min(b.lo, i/64)
	} else {
		b.words[i/64] &^= 1 << (i % 64)
	}
}

// next returns the first index from i on, -1 when there is none. It skips the leading empty
// words it has seen before, so a scan from 0 costs the words from the first index on.
func (b *bitset) next(i int) int {
	for b.lo < len(b.words) && b.words[b.lo] == 0 {
		b.lo++
	}
	w := max(i/64, b.lo)
	if w >= len(b.words) {
		return -1
	}
	word := b.words[w]
	if w == i/64 {
		word &^= 1<<(i%64) - 1
	}
	for {
		if word != 0 {
			return w*64 + bits.TrailingZeros64(word)
		}
		if w++; w >= len(b.words) {
			return -1
		}
		word = b.words[w]
	}
}
