package main

import (
	"cmp"
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

// kubernetesVersion is the Kubernetes release whose DaemonSet controller daemonsched models by
// default. The k8s.io/api module it is built with is the newest supported release (v0.37.x),
// whichever release is modelled: older releases are selected by a version value (VER-1, VER-2).
const kubernetesVersion = "v1.36.3"

// versionInfo is what `daemonsched version` prints.
type versionInfo struct {
	// Version is the module version of daemonsched, "(devel)" when built from a clone.
	Version string `json:"version"`
	// Kubernetes is the release whose controller semantics are modelled.
	Kubernetes string `json:"kubernetes"`
	// KubernetesAPI is the version of the k8s.io/api module the binary was built with.
	KubernetesAPI string `json:"kubernetesAPI"`
	// GoVersion is the Go release that built the binary.
	GoVersion string `json:"goVersion"`
}

// buildVersion reads the versions from the binary's build information.
func buildVersion() versionInfo {
	v := versionInfo{Version: "(unknown)", Kubernetes: kubernetesVersion, KubernetesAPI: "(unknown)", GoVersion: "(unknown)"}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return v
	}
	v.Version, v.GoVersion = cmp.Or(info.Main.Version, "(devel)"), info.GoVersion
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
				fmt.Fprintf(e.out, "daemonsched %s\nKubernetes semantics: %s (DaemonSet controller, k8s.io/api %s)\n%s\n",
					v.Version, v.Kubernetes, v.KubernetesAPI, strings.TrimSpace(v.GoVersion))
			})
		},
	}
	addOutputFlag(cmd.Flags(), &format, formatTable, formatJSON, formatYAML)
	return cmd
}
