// Command refcontroller is the reference DaemonSet controller: kube-controller-manager's
// DaemonSet controller rebuilt on client-go and the daemonsched library. Run it beside a
// kube-controller-manager started with --controllers=*,-daemonset.
//
//	refcontroller --kubeconfig ~/.kube/config [--concurrent-daemonset-syncs 2] [--leader-elect]
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/daemonsched/daemonsched/examples/refcontroller/controller"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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

func run(ctx context.Context, args []string, stderr io.Writer) int {
	fs := flag.NewFlagSet("refcontroller", flag.ContinueOnError)
	fs.SetOutput(stderr)
	kubeconfig := fs.String("kubeconfig", os.Getenv("KUBECONFIG"), "path to a kubeconfig; empty means in-cluster configuration")
	workers := fs.Int("concurrent-daemonset-syncs", 2, "number of DaemonSets synced at once")
	elect := fs.Bool("leader-elect", false, "run only while holding the leader lease")
	lockNS := fs.String("leader-elect-resource-namespace", "kube-system", "namespace of the leader lease")
	lockName := fs.String("leader-elect-resource-name", "daemonsched-refcontroller", "name of the leader lease")
	klog.InitFlags(fs)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *workers < 1 {
		fmt.Fprintln(stderr, "refcontroller: --concurrent-daemonset-syncs must be at least 1")
		return 2
	}
	cfg, err := config(*kubeconfig)
	if err != nil {
		fmt.Fprintln(stderr, "refcontroller:", err)
		return 1
	}
	client, err := kubernetes.NewForConfig(rest.AddUserAgent(cfg, "daemonsched-refcontroller"))
	if err != nil {
		fmt.Fprintln(stderr, "refcontroller:", err)
		return 1
	}
	start := func(ctx context.Context) error {
		factory := informers.NewSharedInformerFactory(client, 0)
		c := controller.New(client, factory, controller.Options{Workers: *workers})
		return c.Run(ctx, factory)
	}
	if !*elect {
		err = start(ctx)
	} else {
		err = lead(ctx, client, *lockNS, *lockName, start)
	}
	if err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintln(stderr, "refcontroller:", err)
		return 1
	}
	return 0
}

func config(kubeconfig string) (*rest.Config, error) {
	if kubeconfig == "" {
		return rest.InClusterConfig()
	}
	return clientcmd.BuildConfigFromFlags("", kubeconfig)
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
