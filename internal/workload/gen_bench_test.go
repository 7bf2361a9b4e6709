package workload_test

import (
	"testing"

	"github.com/daemonsched/daemonsched/internal/workload"
)

func BenchmarkNodes(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		workload.Nodes(1, 10000)
	}
}
