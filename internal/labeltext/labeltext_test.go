package labeltext_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/daemonsched/daemonsched/internal/labeltext"
)

func TestLabel(t *testing.T) {
	tests := []struct {
		name    string
		key     string
		value   string
		present bool
		want    string
	}{
		{name: "a present label shows its value quoted", key: "zone", value: "a", present: true, want: `zone is "a"`},
		{name: "a present empty label shows the empty string", key: "zone", present: true, want: `zone is ""`},
		{name: "an absent label says so, whatever the value", key: "zone", value: "a", want: "zone is absent"},
		{name: "a control character in the value is escaped", key: "zone", value: "a\nb", present: true, want: `zone is "a\nb"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, labeltext.Label(tt.key, tt.value, tt.present))
		})
	}
}

func TestRequirement(t *testing.T) {
	tests := []struct {
		name     string
		key      string
		operator string
		values   []string
		want     string
	}{
		{name: "In lists its values quoted", key: "zone", operator: "In", values: []string{"a", "b"}, want: `zone In ["a", "b"]`},
		{name: "Gt shows its one value", key: "cpus", operator: "Gt", values: []string{"4"}, want: `cpus Gt ["4"]`},
		{name: "NotIn without values shows an empty list", key: "zone", operator: "NotIn", want: `zone NotIn []`},
		{name: "Exists shows no values", key: "gpu", operator: "Exists", values: []string{"ignored"}, want: "gpu Exists"},
		{name: "DoesNotExist shows no values", key: "gpu", operator: "DoesNotExist", want: "gpu DoesNotExist"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, labeltext.Requirement(tt.key, tt.operator, tt.values))
		})
	}
}
