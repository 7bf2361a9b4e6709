package fleet

import (
	"fmt"
	"maps"
	"slices"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
)

// mergeLimitRange gives every container and init container of s the default limits and
// requests of lr's Container items that it lacks (ADM-3). When several Container items name a
// resource, the last one's default counts.
func mergeLimitRange(s *v1.PodSpec, lr *v1.LimitRange) {
	limits, requests := v1.ResourceList{}, v1.ResourceList{}
	for _, it := range lr.Spec.Limits {
		if it.Type == v1.LimitTypeContainer {
			maps.Copy(limits, it.Default)
			maps.Copy(requests, it.DefaultRequest)
		}
	}
	if len(limits) == 0 && len(requests) == 0 {
		return
	}
	for _, cs := range [][]v1.Container{s.Containers, s.InitContainers} {
		for i := range cs {
			r := &cs[i].Resources
			if r.Limits == nil {
				r.Limits = v1.ResourceList{}
			}
			if r.Requests == nil {
				r.Requests = v1.ResourceList{}
			}
			fillMissing(r.Limits, limits)
			fillMissing(r.Requests, requests)
		}
	}
}

// validateLimitRange returns what lr's constraints refuse in s (ADM-4): each container's and
// init container's requests and limits against Container items' min, max and
// maxLimitRequestRatio, and the pod's (without overhead; pod-level cpu and memory replacing the
// containers') against Pod items'. Resources are visited in name order.
func validateLimitRange(s *v1.PodSpec, lr *v1.LimitRange) []string {
	var msgs []string
	check := func(kind string, it *v1.LimitRangeItem, req, lim v1.ResourceList) {
		for _, name := range slices.Sorted(maps.Keys(it.Min)) {
			msgs = appendIf(msgs, minConstraint(kind, name, it.Min[name], req, lim))
		}
		for _, name := range slices.Sorted(maps.Keys(it.Max)) {
			msgs = appendIf(msgs, maxConstraint(kind, name, it.Max[name], req, lim))
		}
		for _, name := range slices.Sorted(maps.Keys(it.MaxLimitRequestRatio)) {
			msgs = appendIf(msgs, ratioConstraint(kind, name, it.MaxLimitRequestRatio[name], req, lim))
		}
	}
	for i := range lr.Spec.Limits {
		it := &lr.Spec.Limits[i]
		switch it.Type {
		case v1.LimitTypeContainer:
			for _, cs := range [][]v1.Container{s.Containers, s.InitContainers} {
				for j := range cs {
					check(string(it.Type), it, cs[j].Resources.Requests, cs[j].Resources.Limits)
				}
			}
		case v1.LimitTypePod:
			req, lim := aggregate(s, addRequests), aggregate(s, addLimits)
			if s.Resources != nil {
				for _, name := range []v1.ResourceName{v1.ResourceCPU, v1.ResourceMemory} {
					if q, ok := s.Resources.Requests[name]; ok {
						req[name] = q.DeepCopy()
					}
					if q, ok := s.Resources.Limits[name]; ok {
						lim[name] = q.DeepCopy()
					}
				}
			}
			check(string(it.Type), it, req, lim)
		}
	}
	return msgs
}

func appendIf(msgs []string, msg string) []string {
	if msg == "" {
		return msgs
	}
	return append(msgs, msg)
}

// addRequests adds the requests of one container, as stored, to list.
func addRequests(list v1.ResourceList, r *v1.ResourceRequirements) { addList(list, r.Requests) }

// atOnePrecision returns request, limit and bound at one precision: milli-units when all three fit,
// whole units (rounded up) otherwise, as LimitRanger compares them.
func atOnePrecision(req, lim, bound resource.Quantity) (int64, int64, int64) {
	r, l, b := req.Value(), lim.Value(), bound.Value()
	if r <= resource.MaxMilliValue && l <= resource.MaxMilliValue && b <= resource.MaxMilliValue {
		return req.MilliValue(), lim.MilliValue(), bound.MilliValue()
	}
	return r, l, b
}

func minConstraint(kind string, name v1.ResourceName, bound resource.Quantity, reqs, lims v1.ResourceList) string {
	req, hasReq := reqs[name]
	lim, hasLim := lims[name]
	r, l, b := atOnePrecision(req, lim, bound)
	switch {
	case !hasReq:
		return fmt.Sprintf("minimum %s usage per %s is %s.  No request is specified", name, kind, bound.String())
	case r < b:
		return fmt.Sprintf("minimum %s usage per %s is %s, but request is %s", name, kind, bound.String(), req.String())
	case hasLim && l < b:
		return fmt.Sprintf("minimum %s usage per %s is %s, but limit is %s", name, kind, bound.String(), lim.String())
	}
	return ""
}

func maxConstraint(kind string, name v1.ResourceName, bound resource.Quantity, reqs, lims v1.ResourceList) string {
	req, hasReq := reqs[name]
	lim, hasLim := lims[name]
	r, l, b := atOnePrecision(req, lim, bound)
	switch {
	case !hasLim:
		return fmt.Sprintf("maximum %s usage per %s is %s.  No limit is specified", name, kind, bound.String())
	case l > b:
		return fmt.Sprintf("maximum %s usage per %s is %s, but limit is %s", name, kind, bound.String(), lim.String())
	case hasReq && r > b:
		return fmt.Sprintf("maximum %s usage per %s is %s, but request is %s", name, kind, bound.String(), req.String())
	}
	return ""
}

func ratioConstraint(kind string, name v1.ResourceName, bound resource.Quantity, reqs, lims v1.ResourceList) string {
	req, hasReq := reqs[name]
	lim, hasLim := lims[name]
	r, l, _ := atOnePrecision(req, lim, bound)
	if !hasReq || r == 0 {
		return fmt.Sprintf("%s max limit to request ratio per %s is %s, but no request is specified or request is 0", name, kind, bound.String())
	}
	if !hasLim || l == 0 {
		return fmt.Sprintf("%s max limit to request ratio per %s is %s, but no limit is specified or limit is 0", name, kind, bound.String())
	}
	ratio := float64(l) / float64(r)
	observed, allowed := ratio, float64(bound.Value())
	if bound.Value() <= resource.MaxMilliValue {
		observed, allowed = ratio*1000, float64(bound.MilliValue())
	}
	if observed > allowed {
		return fmt.Sprintf("%s max limit to request ratio per %s is %s, but provided ratio is %f", name, kind, bound.String(), ratio)
	}
	return ""
}

// mergeTolerations returns first followed by second, without a toleration that another one
// kept, or a later different one, already covers (ADM-5c).
func mergeTolerations(first, second []v1.Toleration) []v1.Toleration {
	all := append(slices.Clip(first), second...)
	var merged []v1.Toleration
next:
	for i, t := range all {
		for _, m := range merged {
			if covers(m, t) {
				continue next
			}
		}
		for _, later := range all[i+1:] {
			if !equality.Semantic.DeepEqual(t, later) && covers(later, t) {
				continue next
			}
		}
		merged = append(merged, t)
	}
	return merged
}

// covers reports whether toleration s tolerates everything t tolerates.
func covers(s, t v1.Toleration) bool {
	if equality.Semantic.DeepEqual(t, s) {
		return true
	}
	if t.Key != s.Key && (s.Key != "" || s.Operator != v1.TolerationOpExists) {
		return false
	}
	if t.Effect != s.Effect && s.Effect != "" {
		return false
	}
	if s.Effect == v1.TaintEffectNoExecute && s.TolerationSeconds != nil &&
		(t.TolerationSeconds == nil || *t.TolerationSeconds > *s.TolerationSeconds) {
		return false
	}
	switch s.Operator {
	case v1.TolerationOpEqual, "":
		return t.Operator == v1.TolerationOpEqual && t.Value == s.Value
	case v1.TolerationOpExists:
		return true
	}
	return false
}
