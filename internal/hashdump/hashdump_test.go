package hashdump_test

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"
	v1 "k8s.io/api/core/v1"

	"github.com/daemonsched/daemonsched/internal/hashdump"
	shapenew "github.com/daemonsched/daemonsched/internal/hashdump/internal/shapenew"
	shapeold "github.com/daemonsched/daemonsched/internal/hashdump/internal/shapeold"
)

var templateType = reflect.TypeFor[v1.PodTemplateSpec]()

// linkedMinor is the release whose fields are exactly the linked k8s.io/api's.
func linkedMinor(t *testing.T) int {
	t.Helper()
	minor, err := hashdump.Linked(hashdump.Fields(), templateType, hashdump.Oldest, hashdump.Newest)
	require.NoError(t, err)
	return minor
}

// TestLinkedTypesAreARelease fails when the linked k8s.io/api (and apimachinery) has a struct
// or field that no release of the table lists, or lists differently: after a bump of
// k8s.io/api, add the release to gen/main.go and run go generate, so that no bump changes a
// release's hash silently.
func TestLinkedTypesAreARelease(t *testing.T) {
	t.Parallel()
	minor, err := hashdump.Linked(hashdump.Fields(), templateType, hashdump.Oldest, hashdump.Newest)
	require.NoError(t, err, "run go generate ./internal/hashdump after adding the linked release to gen/main.go")
	t.Logf("the linked k8s.io/api is release 1.%d", minor)
}

// TestLinkedRefusesTheTableWithoutTheLinkedRelease is the hash guard on the real API (VER-2):
// with the linked release cut off the table, as right after a bump of k8s.io/api and before
// go generate, Linked fails and names a field, so a bump never changes a hash silently. With
// v0.37.2 linked the table ending at 1.36 lacks, among others, PodSpec.EvictionResponders.
func TestLinkedRefusesTheTableWithoutTheLinkedRelease(t *testing.T) {
	t.Parallel()
	linked, err := hashdump.Linked(hashdump.Fields(), templateType, hashdump.Oldest, hashdump.Newest)
	require.NoError(t, err)
	require.Greater(t, linked, hashdump.Oldest, "the guard needs a release older than the linked one")
	_, err = hashdump.Linked(hashdump.Fields(), templateType, hashdump.Oldest, linked-1)
	require.Error(t, err, "the table up to 1.%d accepted the types of 1.%d", linked-1, linked)
	if linked == 37 {
		require.ErrorContains(t, err, "EvictionResponders")
	}
}

// TestLinkedFindsTheReleaseOfEachShape checks Linked on the two releases of a small API, and
// that it names the difference when no release matches.
func TestLinkedFindsTheReleaseOfEachShape(t *testing.T) {
	t.Parallel()
	oldType, newType := reflect.TypeFor[shapeold.Template](), reflect.TypeFor[shapenew.Template]()
	got, err := hashdump.Linked(shapeTable(oldType.PkgPath()), oldType, 1, 2)
	require.NoError(t, err)
	require.Equal(t, 1, got)
	got, err = hashdump.Linked(shapeTable(newType.PkgPath()), newType, 1, 2)
	require.NoError(t, err)
	require.Equal(t, 2, got)
	_, err = hashdump.Linked(shapeTable(newType.PkgPath()), newType, 1, 1)
	require.ErrorContains(t, err, "AddedAfterItems")
}
