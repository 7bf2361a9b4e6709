package rollout

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/types"
)

// fnvName is the name and uid ROLL-2 derives, written with hash/fnv as the simulation first
// computed them: the oracle of newName's allocation-free FNV-1a.
func fnvName(taken map[podKey]int, namespace, generateName, node string, now time.Time) (string, types.UID) {
	for attempt := 0; ; attempt++ {
		h := fnv.New64a()
		for _, part := range []string{namespace, generateName, node, strconv.FormatInt(now.UnixNano(), 10)} {
			h.Write([]byte(part))
			h.Write([]byte{0})
		}
		h.Write([]byte(strconv.Itoa(attempt)))
		sum := h.Sum64()
		suffix := make([]byte, 5)
		for i, x := 0, sum; i < len(suffix); i++ {
			suffix[i] = nameAlphabet[x%uint64(len(nameAlphabet))]
			x /= uint64(len(nameAlphabet))
		}
		name := generateName + string(suffix)
		if _, ok := taken[podKey{namespace, name}]; ok {
			continue
		}
		lo := fnv.New64a()
		lo.Write([]byte(name))
		l := lo.Sum64()
		uid := fmt.Sprintf("%08x-%04x-4%03x-8%03x-%012x", sum>>32, sum>>16&0xffff, sum&0xfff, l>>48&0xfff, l&0xffffffffffff)
		return name, types.UID(uid)
	}
}

// TestNewNameIsFNV: the generated names and uids (ROLL-2) are those of hash/fnv's FNV-1a, also
// when the first attempts are taken, so trajectories keep their pod names.
func TestNewNameIsFNV(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	w := &world{podIx: map[podKey]int{}}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	retried := 0
	for i := range 2000 {
		ns, gen, node := fmt.Sprintf("ns-%d", r.IntN(3)), []string{"agent-", "fluentd-", ""}[r.IntN(3)], fmt.Sprintf("node-%05d", r.IntN(50))
		now := t0.Add(time.Duration(r.IntN(3)) * time.Second) // inputs repeat, so attempts are taken
		wantName, wantUID := fnvName(w.podIx, ns, gen, node, now)
		gotName, gotUID := w.newName(ns, gen, node, now)
		require.Equal(t, wantName, gotName, "case %d", i)
		require.Equal(t, wantUID, gotUID, "case %d", i)
		if first, _ := fnvName(nil, ns, gen, node, now); first != gotName {
			retried++
		}
		if r.IntN(2) == 0 { // taken from now on: the next draw for these inputs needs another attempt
			w.podIx[podKey{ns, gotName}] = i
		}
	}
	require.Greater(t, retried, 100, "too few names needed a second attempt to prove anything")
}
