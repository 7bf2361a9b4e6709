package errlist_test

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/daemonsched/daemonsched/internal/errlist"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// TestCompareNaturalSortsIndexesByNumber: field paths sort by index (VAL-23), not as strings,
// which put [10000] before [9] (issue 25, F14).
func TestCompareNaturalSortsIndexesByNumber(t *testing.T) {
	t.Parallel()
	got := []string{"t[99].key", "t[9].key", "t[10000].key", "t[0].key", "t[1008].key", "t[09].key", "s"}
	slices.SortFunc(got, errlist.CompareNatural)
	require.Equal(t, []string{"s", "t[0].key", "t[09].key", "t[9].key", "t[99].key", "t[1008].key", "t[10000].key"}, got)
}

// TestAggregateIsBounded: 20,000 errors are one error of the first Shown, each cut, and a count
// of the others, worded as ToAggregate words them.
func TestAggregateIsBounded(t *testing.T) {
	t.Parallel()
	var errs field.ErrorList
	for i := range 20000 {
		errs = append(errs, field.Invalid(field.NewPath("t").Index(i), strings.Repeat("v", 5000), "bad"))
	}
	msg := errlist.Aggregate(errs).Error()
	require.Less(t, len(msg), errlist.Shown*(errlist.LineBytes+40)+100)
	require.True(t, strings.HasPrefix(msg, "[t[0]: Invalid value: "), msg[:40])
	require.True(t, strings.HasSuffix(msg, ", ... and 19900 more]"))
	require.Len(t, errlist.Aggregate(errs).(interface{ Unwrap() []error }).Unwrap(), 20000)
	one := field.ErrorList{field.Required(field.NewPath("x"), "")}
	require.Equal(t, one.ToAggregate().Error(), errlist.Aggregate(one).Error())
	two := field.ErrorList{one[0], field.Required(field.NewPath("y"), ""), one[0]}
	require.Equal(t, two.ToAggregate().Error(), errlist.Aggregate(two).Error())
	require.NoError(t, errlist.Aggregate(nil))
}

// TestWriteCounts: Write shows the first Shown and counts the rest and the more left out.
func TestWriteCounts(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	errlist.Write(&b, "p: ", 250, 7, func(i int) { fmt.Fprintf(&b, "p: %d\n", i) })
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	require.Len(t, lines, errlist.Shown+1)
	require.Equal(t, "p: ... and 157 more", lines[errlist.Shown])
}
