package hashdump_test

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/daemonsched/daemonsched/internal/hashdump"
	shapeold "github.com/daemonsched/daemonsched/internal/hashdump/internal/shapeold"
)

// TestEveryReleaseCompiles checks that every release's dump of the linked v1.PodTemplateSpec
// can be exact: each field a release has and the linked types lack is spelt from the table.
func TestEveryReleaseCompiles(t *testing.T) {
	t.Parallel()
	for minor := hashdump.Oldest; minor <= hashdump.Newest; minor++ {
		_, err := hashdump.Compile(hashdump.Fields(), minor, templateType)
		require.NoError(t, err, "release 1.%d", minor)
	}
}

// TestCompileRefusesWhatItCannotDumpExactly checks the errors of Compile.
func TestCompileRefusesWhatItCannotDumpExactly(t *testing.T) {
	t.Parallel()
	oldType := reflect.TypeFor[shapeold.Template]()
	tests := []struct {
		name    string
		edit    func(hashdump.Table, string)
		wantErr string
	}{
		{
			name: "a field whose type differs from the linked one",
			edit: func(tb hashdump.Table, path string) {
				tb[path+".Item"][0].Type = "*string"
			},
			wantErr: "Key is string in the linked types and *string in release 1.2",
		},
		{
			name: "an absent struct field whose struct the table does not list",
			edit: func(tb hashdump.Table, path string) {
				delete(tb, path+".Extra")
			},
			wantErr: "the zero shape.Extra cannot be spelled",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			table := shapeTable(oldType.PkgPath())
			tt.edit(table, oldType.PkgPath())
			_, err := hashdump.Compile(table, 2, oldType)
			require.ErrorContains(t, err, tt.wantErr)
		})
	}
	t.Run("an interface kind", func(t *testing.T) {
		_, err := hashdump.Compile(hashdump.Table{}, 2, reflect.TypeFor[struct{ X any }]())
		require.ErrorContains(t, err, "kind interface is not supported")
	})
}
