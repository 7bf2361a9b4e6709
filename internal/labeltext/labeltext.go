// Package labeltext words labels and label requirements for explanations, as package selector
// and package affinity (its nodeSelector entries and node affinity requirements) both say them.
// It decides nothing: matching is package selector's.
package labeltext

import (
	"strconv"
	"strings"
)

// Label renders a label's (or a field's) presence and value, e.g. `zone is "a"` or
// `zone is absent`.
func Label(key, value string, present bool) string {
	if !present {
		return key + " is absent"
	}
	return key + " is " + strconv.Quote(value)
}

// Requirement renders a requirement given as API strings, such as `zone In ["a", "b"]` or
// `gpu Exists`: the values, quoted, follow every operator but Exists and DoesNotExist.
func Requirement(key, operator string, values []string) string {
	var b strings.Builder
	b.WriteString(key)
	b.WriteByte(' ')
	b.WriteString(operator)
	if operator == "Exists" || operator == "DoesNotExist" {
		return b.String()
	}
	b.WriteString(" [")
	for i, v := range values {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Quote(v))
	}
	b.WriteByte(']')
	return b.String()
}
