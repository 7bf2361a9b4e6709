package fleet

import (
	"math"
	"slices"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// resourceTable is the Set's compiled view of its DaemonSets' requests: one column per resource
// name any of them requests. A column whose quantities are all whole multiples of a common
// scale (1, milli, micro or nano) and whose grand total fits an int64 at that scale is summed
// as int64 counts of 10^scale units, so that a per-node total is a few integer additions
// instead of resource.Quantity arithmetic. Any other column (nano-precision values in the
// exabytes) is summed as Quantities, exactly and more slowly.
type resourceTable struct {
	names   []v1.ResourceName // sorted
	scales  []resource.Scale
	formats []resource.Format
	exact   []bool // false: summed as Quantities
	// perDS[i] is the request vector of DaemonSet i on exact columns, sparse, in column
	// order; perDSQuantity[i] the rest.
	perDS         [][]resourceAmount
	perDSQuantity [][]resourceQuantity
}

type resourceAmount struct {
	col int
	v   int64 // the quantity in 10^scale units
}

type resourceQuantity struct {
	col int
	q   resource.Quantity
}

// newResourceTable compiles the requests of every DaemonSet.
func newResourceTable(reqs []v1.ResourceList) *resourceTable {
	t := &resourceTable{perDS: make([][]resourceAmount, len(reqs)), perDSQuantity: make([][]resourceQuantity, len(reqs))}
	col := map[v1.ResourceName]int{}
	for _, rl := range reqs {
		for name := range rl {
			if _, ok := col[name]; !ok {
				col[name] = 0
				t.names = append(t.names, name)
			}
		}
	}
	slices.Sort(t.names)
	for i, name := range t.names {
		col[name] = i
	}
	n := len(t.names)
	t.scales = make([]resource.Scale, n)
	t.formats = make([]resource.Format, n)
	t.exact = make([]bool, n)
	for c, name := range t.names {
		t.scales[c], t.exact[c], t.formats[c] = chooseScale(name, reqs)
	}
	for i, rl := range reqs {
		var amounts []resourceAmount
		var quantities []resourceQuantity
		for name, q := range rl {
			c := col[name]
			if t.exact[c] {
				amounts = append(amounts, resourceAmount{col: c, v: q.ScaledValue(t.scales[c])})
			} else {
				quantities = append(quantities, resourceQuantity{col: c, q: q.DeepCopy()})
			}
		}
		slices.SortFunc(amounts, func(a, b resourceAmount) int { return a.col - b.col })
		slices.SortFunc(quantities, func(a, b resourceQuantity) int { return a.col - b.col })
		t.perDS[i], t.perDSQuantity[i] = amounts, quantities
	}
	return t
}

// chooseScale picks, for one resource, the coarsest scale among 1, milli, micro and nano at
// which every DaemonSet's quantity is a whole number, provided the sum of all of them still
// fits an int64 there (exact); otherwise the column is summed as Quantities. format is the
// first DaemonSet's, so that memory prints as binary-SI like its inputs.
func chooseScale(name v1.ResourceName, reqs []v1.ResourceList) (scale resource.Scale, exact bool, format resource.Format) {
	var sum float64
	for _, rl := range reqs {
		if q, ok := rl[name]; ok {
			if format == "" {
				format = q.Format
			}
			sum += math.Abs(q.AsApproximateFloat64())
		}
	}
	for _, s := range []resource.Scale{0, resource.Milli, resource.Micro, resource.Nano} {
		// Keep two decimal orders of headroom below MaxInt64 (9.2e18) for the float estimate.
		if sum*math.Pow10(-int(s)) >= 9e16 {
			break
		}
		all := true
		for _, rl := range reqs {
			if q, ok := rl[name]; ok && !wholeAt(q, s) {
				all = false
				break
			}
		}
		if all {
			return s, true, format
		}
	}
	return 0, false, format
}

func wholeAt(q resource.Quantity, s resource.Scale) bool {
	return resource.NewScaledQuantity(q.ScaledValue(s), s).Cmp(q) == 0
}

// quantity converts the total of an exact column back to a Quantity.
func (t *resourceTable) quantity(c int, v int64) resource.Quantity {
	q := *resource.NewScaledQuantity(v, t.scales[c])
	if t.formats[c] != "" {
		q.Format = t.formats[c]
	}
	return q
}
