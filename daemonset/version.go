package daemonset

import (
	"cmp"
	"fmt"
	"strconv"
	"strings"
)

// Version is a Kubernetes release whose DaemonSet controller the library can model:
// major.minor.patch, one of [SupportedVersions]' minors at a patch up to the newest supported
// one. It is a small comparable value: == compares releases. The zero Version is no release.
// Versions are made by [ParseVersion] and [NewestVersion].
type Version struct {
	major, minor, patch uint16
}

// supportedReleases are the supported minors of Kubernetes 1, oldest first, each with its
// newest patch the library is checked against (k8s.io/kubernetes and k8s.io/api at that patch).
// internal/hashdump's generated table covers the same minors (TestSupportedVersionsHaveHashFields).
var supportedReleases = [...]struct{ minor, newestPatch uint16 }{
	{33, 13},
	{34, 4},
	{35, 4},
	{36, 3},
	{37, 2},
}

// SupportedVersions returns the newest patch of every supported minor release, oldest first.
func SupportedVersions() []Version {
	out := make([]Version, len(supportedReleases))
	for i, r := range supportedReleases {
		out[i] = Version{1, r.minor, r.newestPatch}
	}
	return out
}

// NewestVersion returns the newest supported release (1.37.2).
func NewestVersion() Version {
	r := supportedReleases[len(supportedReleases)-1]
	return Version{1, r.minor, r.newestPatch}
}

// ParseVersion parses a release as "1.35", "1.35.4" or "v1.35.4". A minor alone means its
// newest supported patch ("1.35" is 1.35.4). A malformed string, a minor outside the
// supported ones or a patch newer than the newest supported one is an error that says what
// is supported.
func ParseVersion(s string) (Version, error) {
	parts := strings.Split(strings.TrimPrefix(s, "v"), ".")
	if len(parts) < 2 || len(parts) > 3 {
		return Version{}, fmt.Errorf("kubernetes version %q: want major.minor or major.minor.patch, such as 1.35 or 1.35.4", s)
	}
	var nums [3]uint16
	for i, p := range parts {
		n, err := strconv.ParseUint(p, 10, 16)
		if err != nil || p != strconv.FormatUint(n, 10) {
			return Version{}, fmt.Errorf("kubernetes version %q: %q is not a decimal number without leading zeros", s, p)
		}
		nums[i] = uint16(n)
	}
	oldest, newest := supportedReleases[0], supportedReleases[len(supportedReleases)-1]
	if nums[0] != 1 || nums[1] < oldest.minor || nums[1] > newest.minor {
		return Version{}, fmt.Errorf("kubernetes version %q is not supported: supported are 1.%d to 1.%d", s, oldest.minor, newest.minor)
	}
	r := supportedReleases[nums[1]-oldest.minor]
	if len(parts) == 2 {
		nums[2] = r.newestPatch
	} else if nums[2] > r.newestPatch {
		return Version{}, fmt.Errorf("kubernetes version %q is not supported: the newest supported 1.%d release is 1.%d.%d", s, r.minor, r.minor, r.newestPatch)
	}
	return Version{nums[0], nums[1], nums[2]}, nil
}

// String returns the release as major.minor.patch ("1.35.4"), or "" for the zero Version.
func (v Version) String() string {
	if v.IsZero() {
		return ""
	}
	return fmt.Sprintf("%d.%d.%d", v.major, v.minor, v.patch)
}

// IsZero reports whether v is the zero Version, which is no release.
func (v Version) IsZero() bool { return v == Version{} }

// OrNewest returns v, or NewestVersion when v is zero: what a zero Version in options means
// wherever this module takes one.
func (v Version) OrNewest() Version {
	if v.IsZero() {
		return NewestVersion()
	}
	return v
}

// Major returns the major release of v (1 for 1.35.4).
func (v Version) Major() int { return int(v.major) }

// Minor returns the minor release of v (35 for 1.35.4).
func (v Version) Minor() int { return int(v.minor) }

// Patch returns the patch release of v (4 for 1.35.4).
func (v Version) Patch() int { return int(v.patch) }

// Compare returns -1, 0 or +1 as v is older than, the same as or newer than w. The zero
// Version is older than every release.
func (v Version) Compare(w Version) int {
	return cmp.Or(cmp.Compare(v.major, w.major), cmp.Compare(v.minor, w.minor), cmp.Compare(v.patch, w.patch))
}

// AtLeast reports whether v is the release major.minor.patch or a newer one; it is how a rule
// says since which release it holds ("v.AtLeast(1, 34, 0)").
func (v Version) AtLeast(major, minor, patch int) bool {
	return v.Compare(Version{uint16(major), uint16(minor), uint16(patch)}) >= 0
}

// MarshalText returns v as String does, so that a Version reads and writes as "1.35.4" in
// JSON, YAML and flags.
func (v Version) MarshalText() ([]byte, error) { return []byte(v.String()), nil }

// UnmarshalText parses text as ParseVersion does.
func (v *Version) UnmarshalText(text []byte) error {
	parsed, err := ParseVersion(string(text))
	if err != nil {
		return err
	}
	*v = parsed
	return nil
}
