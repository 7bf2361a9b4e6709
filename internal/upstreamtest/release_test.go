package upstreamtest

import (
	"fmt"
	"os"
	"runtime/debug"
	"testing"

	"github.com/daemonsched/daemonsched/daemonset"
)

// pinnedRelease is the release of k8s.io/kubernetes this module's go.mod requires; release.sh
// rewrites it with go.mod, and TestMain refuses a binary whose build information says otherwise.
const pinnedRelease = "1.37.2"

// release is the Kubernetes release whose k8s.io/kubernetes this test binary links (VER-8):
// v1.37.2, the newest, in the module as committed, another supported release when release.sh
// re-pins a copy.
// Every plan here sets Options.Version to it and every pod carries its hash, so each release's
// controller is checked against the plan at that release, never against the default.
var release daemonset.Version

func TestMain(m *testing.M) {
	v, err := daemonset.ParseVersion(pinnedRelease)
	if err == nil {
		err = checkLinked(v)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "upstreamtest:", err)
		os.Exit(2)
	}
	release = v
	os.Exit(m.Run())
}

// checkLinked compares want with the k8s.io/kubernetes of the build information, when the test
// binary records it (go test does not always list the dependencies).
func checkLinked(want daemonset.Version) error {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return nil
	}
	for _, d := range info.Deps {
		if d.Path != "k8s.io/kubernetes" {
			continue
		}
		version := d.Version
		if d.Replace != nil {
			version = d.Replace.Version
		}
		if v, err := daemonset.ParseVersion(version); err != nil || v != want {
			return fmt.Errorf("k8s.io/kubernetes %s is linked, pinnedRelease says %s: run release.sh --pin", version, want)
		}
	}
	return nil
}
