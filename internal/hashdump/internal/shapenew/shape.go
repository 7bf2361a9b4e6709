// Package shape (shapenew) is the second release of shapeold's API: it adds fields of every
// kind and removes Spec.Gone.
package shape

// Template is the dumped root.
type Template struct {
	Name   string
	Labels map[string]string
	Spec   Spec
}

// Spec is shapeold's Spec with fields added and Gone removed.
type Spec struct {
	Items           []*Item
	AddedAfterItems *Item
	Count           int32
	AddedString     string
	Ratio           float64
	Flag            bool
	ByName          map[string]*Item
	Nested          *Nested
	Raw             []byte
	Arr             [2]uint16
	PP              **Item
	AddedMap        map[string]string
	AddedValue      Extra
	AddedSlice      []Item
	AddedNumber     uint64
}

// Item gained two fields.
type Item struct {
	Key      string
	Added    bool
	Value    *int64
	AddedInt int64
}

// Extra is new: a struct held by value, whose zero value the dump spells out.
type Extra struct {
	A string
	B *int32
	C []string
	D Deep
}

// Deep is new, inside Extra.
type Deep struct {
	N uint8
	F float32
}

// Nested is unchanged.
type Nested struct {
	Items  []Item
	Shared *Item
	Again  *Item
}
