package fleet_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	v1 "k8s.io/api/core/v1"

	"github.com/daemonsched/daemonsched/fleet"
)

func TestPodHostPorts(t *testing.T) {
	t.Parallel()
	always := v1.ContainerRestartPolicyAlways
	tests := []struct {
		name string
		spec *v1.PodSpec
		want []fleet.HostPort
	}{
		{
			name: "a container port without hostPort claims nothing",
			spec: &v1.PodSpec{Containers: []v1.Container{{Name: "a", Ports: []v1.ContainerPort{{ContainerPort: 80}}}}},
			want: nil,
		},
		{
			name: "a hostPort claims every address over TCP when IP and protocol are empty",
			spec: &v1.PodSpec{Containers: []v1.Container{{Name: "a", Ports: []v1.ContainerPort{{ContainerPort: 80, HostPort: 8080}}}}},
			want: []fleet.HostPort{{IP: "0.0.0.0", Protocol: v1.ProtocolTCP, Port: 8080}},
		},
		{
			name: "hostNetwork claims every container port, as the API server defaults hostPort",
			spec: &v1.PodSpec{HostNetwork: true, Containers: []v1.Container{{Name: "a", Ports: []v1.ContainerPort{
				{ContainerPort: 53, Protocol: v1.ProtocolUDP}, {ContainerPort: 9100, HostPort: 9101, HostIP: "10.0.0.1"},
			}}}},
			want: []fleet.HostPort{{IP: "0.0.0.0", Protocol: v1.ProtocolUDP, Port: 53}, {IP: "10.0.0.1", Protocol: v1.ProtocolTCP, Port: 9101}},
		},
		{
			name: "sidecar ports come first and ordinary init container ports are never claimed",
			spec: &v1.PodSpec{
				HostNetwork: true,
				InitContainers: []v1.Container{
					{Name: "init", Ports: []v1.ContainerPort{{ContainerPort: 1000, HostPort: 1000}}},
					{Name: "proxy", RestartPolicy: &always, Ports: []v1.ContainerPort{{ContainerPort: 15000}}},
				},
				Containers: []v1.Container{{Name: "a", Ports: []v1.ContainerPort{{ContainerPort: 80}}}},
			},
			want: []fleet.HostPort{{IP: "0.0.0.0", Protocol: v1.ProtocolTCP, Port: 15000}, {IP: "0.0.0.0", Protocol: v1.ProtocolTCP, Port: 80}},
		},
		{
			name: "a negative hostPort claims nothing",
			spec: &v1.PodSpec{Containers: []v1.Container{{Name: "a", Ports: []v1.ContainerPort{{ContainerPort: 80, HostPort: -1}}}}},
			want: nil,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			before := tt.spec.DeepCopy()
			if diff := cmp.Diff(tt.want, fleet.PodHostPorts(tt.spec)); diff != "" {
				t.Errorf("PodHostPorts() mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(before, tt.spec); diff != "" {
				t.Errorf("PodHostPorts() modified its input (-before +after):\n%s", diff)
			}
		})
	}
}

func TestHostPortConflicts(t *testing.T) {
	t.Parallel()
	tcp := func(ip string, port int32) fleet.HostPort {
		return fleet.HostPort{IP: ip, Protocol: v1.ProtocolTCP, Port: port}
	}
	tests := []struct {
		name string
		a, b fleet.HostPort
		want bool
	}{
		{name: "same address, protocol and port conflict", a: tcp("10.0.0.1", 80), b: tcp("10.0.0.1", 80), want: true},
		{name: "every address conflicts with one address", a: tcp("0.0.0.0", 80), b: tcp("10.0.0.1", 80), want: true},
		{name: "one address conflicts with every address", a: tcp("10.0.0.1", 80), b: tcp("0.0.0.0", 80), want: true},
		{name: "two different addresses share a port", a: tcp("10.0.0.1", 80), b: tcp("10.0.0.2", 80), want: false},
		{name: "TCP and UDP share a port", a: tcp("0.0.0.0", 53), b: fleet.HostPort{IP: "0.0.0.0", Protocol: v1.ProtocolUDP, Port: 53}, want: false},
		{name: "different ports never conflict", a: tcp("0.0.0.0", 80), b: tcp("0.0.0.0", 81), want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tt.want, tt.a.Conflicts(tt.b))
		})
	}
}
