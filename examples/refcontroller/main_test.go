package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func TestRunRejectsBadFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--concurrent-daemonset-syncs", "0"}, "must be at least 1"},
		{[]string{"--no-such-flag"}, "flag provided but not defined"},
		{[]string{"--kubeconfig", "/nonexistent/kubeconfig"}, "no such file"},
	} {
		var stderr bytes.Buffer
		code := run(context.Background(), tc.args, &stderr)
		if code == 0 || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("run(%q) = %d, stderr %q; want failure with %q", tc.args, code, stderr.String(), tc.want)
		}
	}
}
