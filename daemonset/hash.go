package daemonset

import (
	"encoding/binary"
	"fmt"
	"reflect"
	"strconv"
	"sync"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/rand"

	"github.com/daemonsched/daemonsched/internal/hashdump"
)

// ComputeHash returns the controller-revision-hash of template and collisionCount as release
// v's controller computes it (UPD-15, VER-2), the zero Version being the newest release as in
// [Options.Version], whatever k8s.io/api this program links: the go-spew dump the formula
// hashes prints every field of v1.PodTemplateSpec, nil ones included, so each release's hash
// differs from the next one's. The dump is written as the release's own types print it: fields
// of the linked types that the release lacks are left out (its API server drops them, so its
// controller never sees them), and fields it has that the linked types lack are printed as the
// zero values they must be. Only the minor release counts: the types do not change within one.
// The formula itself: FNV-1a (32 bits) over the dump (apimachinery dump.ForHash), then, when
// collisionCount is non-nil, the count as 4 little-endian bytes and 4 zero bytes; the sum is
// printed in decimal and each digit mapped into "456789bcdf". A nil collisionCount and a
// pointer to 0 give different hashes (SCN-105), and so do an empty and a nil slice or map
// anywhere in the template (UPD-17, SCN-106). Only the template counts: strategy,
// minReadySeconds and status play no part (SCN-107).
//
// ComputeHash panics if template is nil.
func (v Version) ComputeHash(template *v1.PodTemplateSpec, collisionCount *int32) string {
	if template == nil {
		panic("daemonset: Version.ComputeHash: nil template")
	}
	version := Options{Version: v}.release()
	var suffix [8]byte
	var tail []byte
	if collisionCount != nil {
		binary.LittleEndian.PutUint32(suffix[:4], uint32(*collisionCount))
		tail = suffix[:]
	}
	sum := templateDumper(version).Sum32(reflect.ValueOf(template).Elem(), tail)
	var digits [10]byte
	return rand.SafeEncodeString(string(strconv.AppendUint(digits[:0], uint64(sum), 10)))
}

// templateDumpers are the compiled dumps of v1.PodTemplateSpec, one per supported minor,
// built on first use. Compiling fails only when the linked k8s.io/api has a field that a
// release spells with another type, which internal/hashdump's tests rule out for the
// k8s.io/api this module requires.
var templateDumpers = sync.OnceValue(func() []*hashdump.Dumper {
	out := make([]*hashdump.Dumper, len(supportedReleases))
	for i, r := range supportedReleases {
		d, err := hashdump.Compile(hashdump.Fields(), int(r.minor), reflect.TypeFor[v1.PodTemplateSpec]())
		if err != nil {
			panic(fmt.Sprintf("daemonset: the hash of release 1.%d cannot be computed with the linked k8s.io/api: %v", r.minor, err))
		}
		out[i] = d
	}
	return out
})

func templateDumper(v Version) *hashdump.Dumper {
	return templateDumpers()[v.minor-supportedReleases[0].minor]
}
