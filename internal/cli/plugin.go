package cli

import (
	"fmt"

	"github.com/spf13/cobra"
)

// pluginRoot makes root the kubectl plugin's: its name (kubectl runs kubectl-daemonsched for
// `kubectl daemonsched`), kubectl's connection flags on every command, and rbac.
func pluginRoot(root *cobra.Command, e *env) {
	root.Use = "kubectl-daemonsched"
	root.Short = "What the Kubernetes DaemonSet controller would do, asked of the live cluster"
	root.Long = pluginLong
	fs := root.PersistentFlags()
	e.plugin.cluster.AddFlags(fs)
	fs.StringVar(&e.plugin.save, "save", "", "write what was read from the cluster to `FILE`, a kubectl-style dump that -f reads offline")
	root.AddCommand(newRBACCommand(e))
}

const pluginLong = `kubectl daemonsched (kubectl-daemonsched) asks the live cluster of kubectl's connection flags
(--kubeconfig, --context, --cluster, --user, --as, --request-timeout, ...) what daemonsched asks
of a dump: plan, explain, rollout status, whatif, node-ready and the rest. Each command reads
only what its question needs (one DaemonSet's namespace, one node), with get, list and watch
alone (rbac prints the read-only role); --save FILE keeps what was read as a kubectl-style dump,
which daemonsched -f FILE answers offline with the same answer. -f or --example reads files, as
daemonsched does. The cluster's version (from /version) selects the release whose controller
is modelled: 1.33 to 1.37.`

// newRBACCommand returns rbac: the ClusterRole (and its binding) a read-only user of the plugin
// needs, as the plugin's Cluster knows what it reads.
func newRBACCommand(e *env) *cobra.Command {
	var user string
	cmd := &cobra.Command{
		Use:   "rbac",
		Short: "Print the read-only RBAC role the plugin needs (get, list and watch)",
		Long: `rbac prints a ClusterRole with every verb on every resource the plugin uses (get, list and
watch only: it never writes), and, with --bind, a ClusterRoleBinding granting it, ready for
kubectl apply -f -. A namespaced question reads nodes and RuntimeClasses, which are
cluster-wide, so the role is a ClusterRole.`,
		Example: "  kubectl daemonsched rbac --bind jane | kubectl apply -f -",
		Args:    noArgs,
		RunE: func(*cobra.Command, []string) error {
			fmt.Fprint(e.out, e.plugin.cluster.Role(user))
			return nil
		},
	}
	cmd.Flags().StringVar(&user, "bind", "", "also bind the role to this `USER` (a ClusterRoleBinding)")
	return cmd
}
