package conformance

import (
	"fmt"
	"strings"

	"github.com/daemonsched/daemonsched/daemonset"
)

// A case's releases (Case.Releases) are the Kubernetes releases whose controller produces the
// case's expected plans (VER-1): the template hash changes with every minor (VER-2),
// availability at minReadySeconds with 1.34 (VER-3), ownership with 1.33.6 and 1.34.2
// (VER-4), so a case whose plan depends on one of them holds for some releases only.
//
// Each entry is a range of releases, written as ParseVersion reads a release: "1.36" is every
// patch of 1.36, "1.33.0-1.33.5" and "1.34-1.37" are the releases from the first to the last,
// both included, a minor alone standing for its first patch on the left and its newest on
// the right.

// releaseRange is one entry of Case.Releases.
type releaseRange struct{ from, to daemonset.Version }

// parseReleaseRange reads one entry of Case.Releases.
func parseReleaseRange(s string) (releaseRange, error) {
	lo, hi, isRange := strings.Cut(s, "-")
	if !isRange {
		hi = lo
	}
	from, err := daemonset.ParseVersion(lo)
	if err != nil {
		return releaseRange{}, err
	}
	if strings.Count(strings.TrimPrefix(lo, "v"), ".") == 1 {
		// A minor alone starts at its first patch.
		if from, err = daemonset.ParseVersion(fmt.Sprintf("%d.%d.0", from.Major(), from.Minor())); err != nil {
			return releaseRange{}, err
		}
	}
	to, err := daemonset.ParseVersion(hi)
	if err != nil {
		return releaseRange{}, err
	}
	if from.Compare(to) > 0 {
		return releaseRange{}, fmt.Errorf("release range %q: %s is after %s", s, from, to)
	}
	return releaseRange{from, to}, nil
}

// contains says whether v is in r.
func (r releaseRange) contains(v daemonset.Version) bool {
	return r.from.Compare(v) <= 0 && v.Compare(r.to) <= 0
}

// String writes r as Case.Releases holds it, a minor alone where the range starts at its
// first patch or ends at its newest one.
func (r releaseRange) String() string {
	from, to := r.from.String(), r.to.String()
	fromMinor := r.from.Patch() == 0
	toMinor := r.to == newestPatchOf(r.to)
	switch {
	case fromMinor && toMinor && r.from.Minor() == r.to.Minor():
		return fmt.Sprintf("%d.%d", r.from.Major(), r.from.Minor())
	case fromMinor && toMinor:
		return fmt.Sprintf("%d.%d-%d.%d", r.from.Major(), r.from.Minor(), r.to.Major(), r.to.Minor())
	case fromMinor && r.from.Minor() != r.to.Minor():
		from = fmt.Sprintf("%d.%d", r.from.Major(), r.from.Minor())
	case toMinor && r.from.Minor() != r.to.Minor():
		to = fmt.Sprintf("%d.%d", r.to.Major(), r.to.Minor())
	}
	if from == to {
		return from
	}
	return from + "-" + to
}

// newestPatchOf is the newest supported patch of v's minor.
func newestPatchOf(v daemonset.Version) daemonset.Version {
	w, err := daemonset.ParseVersion(fmt.Sprintf("%d.%d", v.Major(), v.Minor()))
	if err != nil {
		return v
	}
	return w
}

// allReleases returns every supported release, every patch of every supported minor from
// its .0 to its newest, oldest first: the releases a case's ranges are drawn from.
func allReleases() []daemonset.Version {
	var out []daemonset.Version
	for _, newest := range daemonset.SupportedVersions() {
		for p := 0; p <= newest.Patch(); p++ {
			v, err := daemonset.ParseVersion(fmt.Sprintf("%d.%d.%d", newest.Major(), newest.Minor(), p))
			if err != nil {
				panic(err) // every patch up to the newest supported one parses
			}
			out = append(out, v)
		}
	}
	return out
}

// releaseRanges writes a set of releases (sorted, from allReleases) as Case.Releases holds
// them: consecutive releases of allReleases merged into one range.
func releaseRanges(holds []daemonset.Version) []string {
	all := allReleases()
	in := map[daemonset.Version]bool{}
	for _, v := range holds {
		in[v] = true
	}
	var out []string
	for i := 0; i < len(all); i++ {
		if !in[all[i]] {
			continue
		}
		j := i
		for j+1 < len(all) && in[all[j+1]] {
			j++
		}
		out = append(out, releaseRange{all[i], all[j]}.String())
		i = j
	}
	return out
}

// HoldsAt says whether the case's expectations are those of release v's controller: v is in
// one of its Releases, or, for a case without Releases (one written before they were), v is
// the release it names (Kubernetes). A malformed entry is an error naming the case.
func (c *Case) HoldsAt(v daemonset.Version) (bool, error) {
	if len(c.Releases) == 0 {
		own, err := c.release()
		if err != nil {
			return false, err
		}
		return own == v, nil
	}
	for i, s := range c.Releases {
		r, err := parseReleaseRange(s)
		if err != nil {
			return false, fmt.Errorf("case %s: releases[%d]: %w", c.Name, i, err)
		}
		if r.contains(v) {
			return true, nil
		}
	}
	return false, nil
}

// At returns the case as run at release v: the same objects and expectations, its requests and
// judgement at v (Kubernetes). The case must hold at v (HoldsAt).
func (c Case) At(v daemonset.Version) Case {
	c.Kubernetes = "v" + v.String()
	return c
}

// release is the release the case names (Kubernetes), RecordedVersion when it names none.
func (c *Case) release() (daemonset.Version, error) {
	s := c.Kubernetes
	if s == "" {
		s = RecordedVersion
	}
	v, err := daemonset.ParseVersion(s)
	if err != nil {
		return daemonset.Version{}, fmt.Errorf("case %s: kubernetes: %w", c.Name, err)
	}
	return v, nil
}
