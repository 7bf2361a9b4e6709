// Package shape (shapeold) is the first of two releases of a small API, for the hashdump
// tests: shapenew is the next release, which adds fields (in the middle, at the end, in a
// nested struct, of every kind) and removes one, as a k8s.io/api release does. Both packages
// are named shape, so go-spew spells their types alike.
package shape

// Template is the dumped root.
type Template struct {
	Name   string
	Labels map[string]string
	Spec   Spec
}

// Spec holds a field of every kind the dump meets.
type Spec struct {
	Items  []*Item
	Gone   *string
	Count  int32
	Ratio  float64
	Flag   bool
	ByName map[string]*Item
	Nested *Nested
	Raw    []byte
	Arr    [2]uint16
	PP     **Item
}

// Item is a struct behind pointers.
type Item struct {
	Key   string
	Value *int64
}

// Nested holds values and pointers that may be shared.
type Nested struct {
	Items  []Item
	Shared *Item
	Again  *Item
}
