// Command refcontroller is the reference DaemonSet controller: kube-controller-manager's
// DaemonSet controller rebuilt on client-go and the daemonsched library. Run it beside a
// kube-controller-manager started with --controllers=*,-daemonset.
//
//	refcontroller --kubeconfig ~/.kube/config [--concurrent-daemonset-syncs 2] [--leader-elect]
//	              [--kube-api-qps 20] [--kube-api-burst 30] [--kubernetes-version 1.35]
//
// It behaves as the DaemonSet controller of the API server's release, read from /version at
// start; a release the library does not model is refused unless --kubernetes-version names
// the release to behave as.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/daemonsched/daemonsched/examples/refcontroller/controller"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	"k8s.io/klog/v2"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stderr))
}

// options are the command line's settings.
type options struct {
	kubeconfig       string
	workers          int
	elect            bool
	lockNS, lockName string
	kubeAPIQPS       float64
	kubeAPIBurst     int
	release          string // --kubernetes-version; empty means the API server's
	gates            daemonset.FeatureGates
}

// parse reads args; a usage error has been printed to stderr when it returns false.
func parse(args []string, stderr io.Writer) (options, bool) {
	var o options
	fs := flag.NewFlagSet("refcontroller", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.kubeconfig, "kubeconfig", os.Getenv("KUBECONFIG"), "path to a kubeconfig; empty means in-cluster configuration")
	fs.IntVar(&o.workers, "concurrent-daemonset-syncs", 2, "number of DaemonSets synced at once")
	fs.BoolVar(&o.elect, "leader-elect", false, "run only while holding the leader lease")
	fs.StringVar(&o.lockNS, "leader-elect-resource-namespace", "kube-system", "namespace of the leader lease")
	fs.StringVar(&o.lockName, "leader-elect-resource-name", "daemonsched-refcontroller", "name of the leader lease")
	// kube-controller-manager's client-connection defaults (pkg/controller/apis/config/v1alpha1:
	// SetDefaults_KubeControllerManagerConfiguration), not client-go's 5 and 10, which throttle
	// a rollout's pod creates. As there, a negative QPS turns client-side throttling off.
	fs.Float64Var(&o.kubeAPIQPS, "kube-api-qps", 20, "QPS to use while talking with the API server")
	fs.IntVar(&o.kubeAPIBurst, "kube-api-burst", 30, "burst to use while talking with the API server")
	fs.StringVar(&o.release, "kubernetes-version", "", "release whose DaemonSet controller to behave as (1.35 or 1.35.4); empty means the API server's, which must be a supported one")
	fs.Var(&o.gates, "feature-gates", "feature gates over the release's defaults, as kube-controller-manager's: Name=true,Other=false (those that change a decision)")
	klog.InitFlags(fs)
	if err := fs.Parse(args); err != nil {
		return o, false
	}
	if o.workers < 1 {
		fmt.Fprintln(stderr, "refcontroller: --concurrent-daemonset-syncs must be at least 1")
		return o, false
	}
	return o, true
}

func run(ctx context.Context, args []string, stderr io.Writer) int {
	o, ok := parse(args, stderr)
	if !ok {
		return 2
	}
	cfg, err := restConfig(o)
	if err != nil {
		fmt.Fprintln(stderr, "refcontroller:", err)
		return 1
	}
	client, err := kubernetes.NewForConfig(rest.AddUserAgent(cfg, "daemonsched-refcontroller"))
	if err != nil {
		fmt.Fprintln(stderr, "refcontroller:", err)
		return 1
	}
	version, err := release(client.Discovery(), o.release)
	if err != nil {
		fmt.Fprintln(stderr, "refcontroller:", err)
		return 1
	}
	if err := checkGates(version, o.gates); err != nil {
		fmt.Fprintln(stderr, "refcontroller:", err)
		return 1
	}
	klog.InfoS("Behaving as the DaemonSet controller of a Kubernetes release", "version", version, "fromFlag", o.release != "", "featureGates", o.gates.String())
	start := func(ctx context.Context) error {
		factory := informers.NewSharedInformerFactory(client, 0)
		c := controller.New(client, factory, controller.Options{Workers: o.workers, Version: version, FeatureGates: o.gates})
		return c.Run(ctx, factory)
	}
	if !o.elect {
		err = start(ctx)
	} else {
		err = lead(ctx, client, o.lockNS, o.lockName, start)
	}
	if err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintln(stderr, "refcontroller:", err)
		return 1
	}
	return 0
}

// release returns the release to behave as: flag when set, otherwise the API server's
// (/version's gitVersion, without a pre-release or build suffix: "v1.36.3-gke.1" is 1.36.3).
// A release the library does not model is an error that names the flag.
func release(d discovery.ServerVersionInterface, flag string) (daemonset.Version, error) {
	if flag != "" {
		v, err := daemonset.ParseVersion(flag)
		if err != nil {
			return daemonset.Version{}, fmt.Errorf("--kubernetes-version: %w", err)
		}
		return v, nil
	}
	info, err := d.ServerVersion()
	if err != nil {
		return daemonset.Version{}, fmt.Errorf("reading the API server's version: %w", err)
	}
	git := info.GitVersion
	if i := strings.IndexAny(git, "-+"); i >= 0 {
		git = git[:i]
	}
	v, err := daemonset.ParseVersion(git)
	if err != nil {
		return daemonset.Version{}, fmt.Errorf("the API server's version %s: %w; --kubernetes-version names a supported release to behave as instead", info.GitVersion, err)
	}
	return v, nil
}

// restConfig builds the client configuration from the kubeconfig (in-cluster without one) with
// the client-side rate limit of --kube-api-qps and --kube-api-burst, as kube-controller-manager
// sets them on its rest config.
func restConfig(o options) (*rest.Config, error) {
	var cfg *rest.Config
	var err error
	if o.kubeconfig == "" {
		cfg, err = rest.InClusterConfig()
	} else {
		cfg, err = clientcmd.BuildConfigFromFlags("", o.kubeconfig)
	}
	if err != nil {
		return nil, err
	}
	cfg.QPS, cfg.Burst = float32(o.kubeAPIQPS), o.kubeAPIBurst
	return cfg, nil
}

// lead runs start while this process holds the lease, with kube-controller-manager's default
// timings, and returns when ctx ends or the lease is lost.
func lead(ctx context.Context, client kubernetes.Interface, ns, name string, start func(context.Context) error) error {
	host, err := os.Hostname()
	if err != nil {
		return err
	}
	id := fmt.Sprintf("%s_%d", host, os.Getpid())
	lock := &resourcelock.LeaseLock{
		LeaseMeta:  metav1.ObjectMeta{Namespace: ns, Name: name},
		Client:     client.CoordinationV1(),
		LockConfig: resourcelock.ResourceLockConfig{Identity: id},
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var runErr error
	leaderelection.RunOrDie(ctx, leaderelection.LeaderElectionConfig{
		Lock:            lock,
		ReleaseOnCancel: true,
		LeaseDuration:   15 * time.Second,
		RenewDeadline:   10 * time.Second,
		RetryPeriod:     2 * time.Second,
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(ctx context.Context) { runErr = start(ctx); cancel() },
			OnStoppedLeading: func() { klog.InfoS("Leader lease lost", "identity", id); cancel() },
		},
	})
	return runErr
}

// checkGates refuses a feature gate the release behaved as does not know, as
// kube-controller-manager of that release refuses it.
func checkGates(version daemonset.Version, gates daemonset.FeatureGates) error {
	return daemonset.Options{Version: version, FeatureGates: gates}.CheckFeatureGates(field.NewPath("--feature-gates")).ToAggregate()
}
