package fleet

import v1 "k8s.io/api/core/v1"

// HostPort is a host port a pod claims on its node, as the scheduler's NodePorts filter sees it:
// IP "" is normalised to "0.0.0.0" (every address) and Protocol "" to TCP. Its JSON names
// are lower-case, as the CLI's documents print it (schedule.PortConflict).
type HostPort struct {
	IP       string      `json:"ip"`
	Protocol v1.Protocol `json:"protocol"`
	Port     int32       `json:"port"`
}

// Conflicts reports whether two pods claiming p and o could not share a node (the scheduler's
// HostPortInfo.CheckConflict): same protocol and port, and the same IP or either one 0.0.0.0.
func (p HostPort) Conflicts(o HostPort) bool {
	if p.Port != o.Port || p.Protocol != o.Protocol {
		return false
	}
	return p.IP == o.IP || p.IP == anyIP || o.IP == anyIP
}

const anyIP = "0.0.0.0"

// PodHostPorts returns the host ports a pod with spec claims, in declaration order (restartable
// init containers first, then regular containers), as the scheduler's NodePorts filter reads
// them (scheduler util.GetHostPorts): every port with a hostPort above zero of the regular
// containers and of the restartable init containers (sidecars); ordinary init containers have
// finished before the pod runs and claim nothing. With spec.hostNetwork the API server defaults
// a zero hostPort to the containerPort (core/v1 SetDefaults_Pod), so every containerPort above
// zero is claimed. spec is not modified; nil claims nothing.
func PodHostPorts(spec *v1.PodSpec) []HostPort {
	var out []HostPort
	if spec == nil {
		return out
	}
	add := func(c *v1.Container) {
		for _, p := range c.Ports {
			port := p.HostPort
			if port == 0 && spec.HostNetwork {
				port = p.ContainerPort
			}
			if port <= 0 {
				continue
			}
			hp := HostPort{IP: p.HostIP, Protocol: p.Protocol, Port: port}
			if hp.IP == "" {
				hp.IP = anyIP
			}
			if hp.Protocol == "" {
				hp.Protocol = v1.ProtocolTCP
			}
			out = append(out, hp)
		}
	}
	for i := range spec.InitContainers {
		c := &spec.InitContainers[i]
		if c.RestartPolicy != nil && *c.RestartPolicy == v1.ContainerRestartPolicyAlways {
			add(c)
		}
	}
	for i := range spec.Containers {
		add(&spec.Containers[i])
	}
	return out
}
