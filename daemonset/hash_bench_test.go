package daemonset

import (
	"testing"

	utildump "k8s.io/utils/dump"
)

// BenchmarkComputeHashFor measures the hash of the typical template (UPD-15) for the linked
// release and the newest one, against "dump.ForHash", the formula's dump alone as k8s.io/utils
// writes it (what ComputeHash used until the hash became versioned).
func BenchmarkComputeHashFor(b *testing.B) {
	tmpl := revTemplates()["typical"]
	for _, v := range []string{"1.36", "1.37", "1.33"} {
		version, err := ParseVersion(v)
		if err != nil {
			b.Fatal(err)
		}
		b.Run("release="+v, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				revSinkHash = version.ComputeHash(&tmpl, nil)
			}
		})
	}
	b.Run("dump.ForHash", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			revSinkHash = utildump.ForHash(tmpl)
		}
	})
}
