package manifest

import (
	"os"
	"runtime"
	"runtime/pprof"
	"testing"
)

func TestZZProf(t *testing.T) {
	p := os.Getenv("ZZPROF")
	if p == "" {
		t.Skip()
	}
	res, err := ReadFiles([]string{p}, Options{Workers: 2, Lean: true})
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	f, _ := os.Create("/tmp/inuse.prof")
	pprof.Lookup("heap").WriteTo(f, 0)
	f.Close()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	t.Logf("heapalloc %d MB, pods %d nodes %d", ms.HeapAlloc>>20, len(res.Snapshot.Pods), len(res.Snapshot.Nodes))
	runtime.KeepAlive(res)
}
