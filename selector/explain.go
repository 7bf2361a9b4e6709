package selector

import "github.com/daemonsched/daemonsched/internal/labeltext"

// Explanation says why a label set does or does not satisfy a [Selector]. Matched always
// equals what [Selector.Matches] returns for the same labels.
type Explanation struct {
	// Matched is the verdict.
	Matched bool
	// Nothing is set when the selector is nil and so matches no label set (SEL-1).
	Nothing bool
	// Failed is the first requirement, in key order, that the labels do not satisfy (SEL-12).
	// It is the zero Requirement when Matched or Nothing is set.
	Failed Requirement
	// Value and Present are the actual label for Failed.Key(): its value, and whether the key
	// is present at all.
	Value   string
	Present bool
}

// Explain evaluates labels like [Selector.Matches] and also reports the first failing
// requirement in key order (SEL-12) with the actual label. It may allocate.
func (s *Selector) Explain(labels map[string]string) Explanation {
	if s == nil || s.nothing {
		return Explanation{Nothing: true}
	}
	for i := range s.reqs {
		r := &s.reqs[i]
		v, ok := labels[r.key]
		if !r.matchesValue(v, ok) {
			return Explanation{Failed: *r, Value: v, Present: ok}
		}
	}
	return Explanation{Matched: true}
}

// String renders the explanation in plain words.
func (e Explanation) String() string {
	switch {
	case e.Matched:
		return "labels match the selector"
	case e.Nothing:
		return "the selector is nil and matches no labels"
	default:
		return "label " + labeltext.Label(e.Failed.Key(), e.Value, e.Present) +
			", which does not satisfy " + e.Failed.String()
	}
}
