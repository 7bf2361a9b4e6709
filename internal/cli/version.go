package cli

import (
	"cmp"
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/spf13/cobra"
)

// versionInfo is what `daemonsched version` prints.
type versionInfo struct {
	// Version is the module version of daemonsched, "(devel)" when built from a clone.
	Version string `json:"version"`
	// Kubernetes is the release whose controller semantics are modelled by default
	// (--kubernetes-version): the newest supported one.
	Kubernetes string `json:"kubernetes"`
	// Supported are the releases --kubernetes-version selects, the newest patch of each
	// supported minor, oldest first (VER-1).
	Supported []string `json:"supportedKubernetes"`
	// KubernetesAPI is the version of the k8s.io/api module the binary was built with.
	KubernetesAPI string `json:"kubernetesAPI"`
	// GoVersion is the Go release that built the binary.
	GoVersion string `json:"goVersion"`
}

// stampedVersion is the release a release build stamps in (release/release.sh:
// -ldflags "-X github.com/daemonsched/daemonsched/internal/cli.stampedVersion=v1.2.3"), for a
// binary built from a checkout has no module version; "" otherwise. The linker sets it; nothing
// else writes it.
var stampedVersion string

// buildVersion reads the versions from the binary's build information, the stamped release
// first.
func buildVersion() versionInfo {
	v := versionInfo{Version: "(unknown)", Kubernetes: "v" + daemonset.NewestVersion().String(), KubernetesAPI: "(unknown)", GoVersion: "(unknown)"}
	for _, r := range daemonset.SupportedVersions() {
		v.Supported = append(v.Supported, "v"+r.String())
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return v
	}
	v.Version, v.GoVersion = cmp.Or(stampedVersion, info.Main.Version, "(devel)"), info.GoVersion
	for _, d := range info.Deps {
		if d.Path == "k8s.io/api" {
			v.KubernetesAPI = d.Version
		}
	}
	return v
}

func newVersionCommand(e *env) *cobra.Command {
	format := formatTable
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print daemonsched's version and the Kubernetes version whose semantics it models",
		Args:  noArgs,
		RunE: func(*cobra.Command, []string) error {
			v := buildVersion()
			return render(e.out, format, func() any { return v }, func() {
				fmt.Fprintf(e.out, "daemonsched %s\nKubernetes semantics: %s by default (DaemonSet controller, k8s.io/api %s)\nSupported Kubernetes releases (--kubernetes-version): %s\n%s\n",
					v.Version, v.Kubernetes, v.KubernetesAPI, strings.Join(v.Supported, ", "), strings.TrimSpace(v.GoVersion))
			})
		},
	}
	addOutputFlag(cmd.Flags(), &format, formatTable, formatJSON, formatYAML)
	return cmd
}
