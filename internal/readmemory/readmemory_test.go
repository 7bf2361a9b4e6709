package readmemory

import (
	"math"
	"runtime/debug"
	"testing"
)

func TestLimit(t *testing.T) {
	for _, c := range []struct{ n, want int64 }{
		{0, Floor},
		{19 << 20, Floor},                  // 240,000 tiny pods: the floor
		{300 << 20, 900 << 20},             // a large dump: 3x
		{math.MaxInt64 / 2, math.MaxInt64}, // no overflow
	} {
		if got := Limit(c.n); got != c.want {
			t.Errorf("Limit(%d) = %d, want %d", c.n, got, c.want)
		}
	}
}

func TestSetHonoursTheEnvironmentAndRestores(t *testing.T) {
	before := debug.SetMemoryLimit(-1)
	percent := debug.SetGCPercent(100)
	defer debug.SetGCPercent(percent)
	restore := Set(300<<20, func(string) string { return "" })
	if got := debug.SetMemoryLimit(-1); got != 900<<20 {
		t.Errorf("limit while reading = %d, want %d", got, 900<<20)
	}
	if got := debug.SetGCPercent(GCPercent); got != GCPercent {
		t.Errorf("GOGC while reading = %d, want %d", got, GCPercent)
	}
	restore()
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Errorf("limit after reading = %d, want %d as before", got, before)
	}
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("GOGC after reading = %d, want 100 as before", got)
	}
	for _, env := range []string{"GOMEMLIMIT", "GOGC"} {
		restore := Set(300<<20, func(k string) string {
			if k == env {
				return "100"
			}
			return ""
		})
		if got := debug.SetMemoryLimit(-1); got != before {
			t.Errorf("with %s set, limit = %d, want %d untouched", env, got, before)
		}
		if got := debug.SetGCPercent(100); got != 100 {
			t.Errorf("with %s set, GOGC = %d, want 100 untouched", env, got)
		}
		restore()
	}
}
