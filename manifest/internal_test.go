package manifest

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/daemonsched/daemonsched/internal/jsongate"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
)

// D-5: a DaemonSet without uid gets a deterministic, well-formed name-based UUID.
func TestNameUID(t *testing.T) {
	t.Parallel()
	u := string(nameUID("kube-system", "fluentd"))
	require.Regexp(t, regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`), u)
	require.Equal(t, u, string(nameUID("kube-system", "fluentd")), "same namespace/name, same uid")
	require.NotEqual(t, u, string(nameUID("default", "fluentd")), "namespace is part of the name")
	// Pinned, and equal to Python's uuid.uuid5(namespace, "daemonsets.apps/kube-system/fluentd"): the uid
	// is part of the golden output, so changing the derivation is a visible diff.
	require.Equal(t, "bec67390-ee01-5494-8cc5-c8e9227dfda3", u)
}

// The limit holds for streams too, where the size is known only by reading: Read passes
// Limits.InputBytes, the test a smaller limit so that it stays fast.
func TestReadSizedStopsAfterTheLimit(t *testing.T) {
	t.Parallel()
	const limit = 2 << 20
	r := &countingReader{fill: ' '}
	_, err := readSized("stdin", r, limit, 0)
	require.ErrorIs(t, err, errInputBytes)
	require.Equal(t, int64(limit+1), r.n, "reads one byte past the limit, no more")

	data, err := readSized("stdin", bytes.NewReader(bytes.Repeat([]byte(" "), limit)), limit, 0)
	require.NoError(t, err)
	require.Len(t, data, limit, "exactly the limit is allowed")
}

// countingReader is an endless stream of fill bytes.
type countingReader struct {
	n    int64
	fill byte
}

func (r *countingReader) Read(p []byte) (int, error) {
	r.n += int64(len(p))
	for i := range p {
		p[i] = r.fill
	}
	return len(p), nil
}

// An endless stream of NUL bytes (-f /dev/zero once read for 4 minutes and 8.4 GB) ends in
// its first block: neither YAML nor JSON holds a NUL byte.
func TestReadSizedStopsAtANULByte(t *testing.T) {
	t.Parallel()
	r := &countingReader{}
	_, err := readSized("stdin", r, 1<<30, 0)
	require.EqualError(t, err, "stdin: line 1: a NUL byte: not YAML or JSON text")
	require.Less(t, r.n, int64(1<<20))

	_, err = readSized("f", bytes.NewReader([]byte("a: 1\nb: \x00\n")), 1<<30, 0)
	require.EqualError(t, err, "f: line 2: a NUL byte: not YAML or JSON text")

	// UTF-16 holds NUL bytes.
	data, err := readSized("f", bytes.NewReader([]byte("\xFF\xFEa\x00")), 1<<30, 0)
	require.NoError(t, err)
	require.Len(t, data, 4)
}

// UPD-16 compares a revision's data byte for byte with the template's patch: data printed by
// kubectl (indented, any key order) is read back as the controller wrote it.
func TestCanonicalDataIsWhatTheControllerWrites(t *testing.T) {
	t.Parallel()
	ds := &appsv1.DaemonSet{Spec: appsv1.DaemonSetSpec{Template: v1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "a<b>&c"}},
		Spec: v1.PodSpec{
			TerminationGracePeriodSeconds: ptr.To[int64](30),
			Containers:                    []v1.Container{{Name: "c", Image: "busybox"}},
		},
	}}}
	rev, err := daemonset.NewRevision(ds, "", 0)
	require.NoError(t, err)
	want := rev.Data.Raw

	var indented bytes.Buffer
	require.NoError(t, json.Indent(&indented, want, "", "    "))
	cr := &appsv1.ControllerRevision{Data: runtime.RawExtension{Raw: indented.Bytes()}}
	require.NoError(t, canonicalData(cr))
	require.Equal(t, string(want), string(cr.Data.Raw))

	// Key order does not matter either.
	cr.Data.Raw = []byte(`{"spec": {"template": {"spec": {"terminationGracePeriodSeconds": 30, "containers": [{"name": "c", "image": "busybox", "resources": {}}]}, "metadata": {"labels": {"app": "a<b>&c"}}, "$patch": "replace"}}}`)
	require.NoError(t, canonicalData(cr))
	require.Equal(t, string(want), string(cr.Data.Raw))
}

// holdsOversizedRun judges only the runs around a multiple of the length bound or an
// exponent; it must answer as the judging of every run of number characters does (D-20).
func TestHoldsOversizedRunJudgesAsEveryRun(t *testing.T) {
	t.Parallel()
	everyRun := func(data []byte, lim Limits) bool {
		q := lim.quantities()
		for i := 0; i < len(data); {
			if !isNumberByte(data[i]) {
				i++
				continue
			}
			j := i
			for j < len(data) && isNumberByte(data[j]) {
				j++
			}
			if jsongate.Oversized(bytes.ReplaceAll(data[i:j], []byte("_"), nil), q) != "" {
				return true
			}
			i = j
		}
		return false
	}
	const alphabet = "0123456789.eE+-eE+- ax:\n1e-__"
	rnd := rand.New(rand.NewPCG(1, 2))
	for n := range 20000 {
		data := make([]byte, rnd.IntN(80))
		for i := range data {
			data[i] = alphabet[rnd.IntN(len(alphabet))]
		}
		lim := Limits{QuantityLength: 1 + rnd.IntN(12), QuantityExponent: 1 + rnd.IntN(12)}
		if got, want := holdsOversizedRun(data, lim), everyRun(data, lim); got != want {
			t.Fatalf("case %d: holdsOversizedRun(%q, %+v) = %v, want %v", n, data, lim, got, want)
		}
	}
	for _, s := range []string{"cpu: 1e-999999999\n", "cpu: 1e+101\n", "n: " + strings.Repeat("1", 65) + "\n", "cpu: 1_e_-_999999999\n", "n: " + strings.Repeat("1_", 65) + "\n"} {
		require.True(t, holdsOversizedRun([]byte(s), Limits{}.withDefaults()), s)
	}
	for _, s := range []string{"cpu: 1e-100\n", "time: 2026-03-01T10:00:00Z\n", "n: " + strings.Repeat("1", 64) + "\n", "name: eeeeeeeeeee-1\n", "n: " + strings.Repeat("1_", 64) + "\n", "name: a_e_9\n"} {
		require.False(t, holdsOversizedRun([]byte(s), Limits{}.withDefaults()), s)
	}
}
