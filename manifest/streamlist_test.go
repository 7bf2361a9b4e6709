package manifest

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
)

// A list's items are held until the list ends as their object alone when their record is the
// one rebuilt from the object, as for every item of a kubectl dump, and whole otherwise: the
// record given back is the one decoded either way.
func TestListItemRecordsAreTheDecodedOnes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, item  string
		opts        Options
		wantCompact bool
	}{
		{name: "a pod as kubectl prints it", item: `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"ns"}}`, wantCompact: true},
		{name: "a pod read lean", item: `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"ns"}}`, opts: Options{Lean: true}, wantCompact: true},
		{name: "a node", item: `{"apiVersion":"v1","kind":"Node","metadata":{"name":"n"}}`, wantCompact: true},
		{name: "a daemonset", item: `{"apiVersion":"apps/v1","kind":"DaemonSet","metadata":{"name":"d","namespace":"ns"},"spec":{"selector":{"matchLabels":{"a":"b"}},"template":{"metadata":{"labels":{"a":"b"}},"spec":{"containers":[{"name":"c","image":"i"}]}}}}`, wantCompact: true},
		{name: "a pod without a namespace, put in default", item: `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"}}`},
		{name: "a pod with an unknown field", item: `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"ns"},"spek":{}}`},
		{name: "a kind not read", item: `{"apiVersion":"v1","kind":"Service","metadata":{"name":"s","namespace":"ns"}}`},
		{name: "a kind given by a typed list", item: `{"metadata":{"name":"p","namespace":"ns"}}`, wantCompact: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := &splitter{name: "dump.yaml", r: newReader(tt.opts)}
			l := &streamedList{items: make([]listItem, 2), doc: 3}
			itemKind := ""
			if tt.name == "a kind given by a typed list" {
				itemKind = "Pod"
			}
			res, err := s.r.decodeValue(Source{File: "dump.yaml", Document: 3, Item: 0}, []byte(tt.item), itemKind)
			require.NoError(t, err)
			require.Len(t, res, 1)
			l.put(s, 1, res[0])
			require.Equal(t, tt.wantCompact, l.items[1].full == nil, "held as its object alone")
			if diff := cmp.Diff(res[0], l.record(s, 1), cmp.AllowUnexported(decoded{}, typeAndName{})); diff != "" {
				t.Errorf("record() mismatch (-decoded +got):\n%s", diff)
			}
		})
	}
}
