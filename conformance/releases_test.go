package conformance

import (
	"testing"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
)

func mustVersion(t *testing.T, s string) daemonset.Version {
	t.Helper()
	v, err := daemonset.ParseVersion(s)
	require.NoError(t, err)
	return v
}

// TestReleaseRanges checks how a case's releases are read, written and matched (VER-9).
func TestReleaseRanges(t *testing.T) {
	tests := []struct {
		name      string
		releases  []string
		at        string
		wantHolds bool
		wantErr   bool
	}{
		{name: "a minor alone holds for its first patch (VER-9)", releases: []string{"1.36"}, at: "1.36.0", wantHolds: true},
		{name: "a minor alone holds for its newest patch (VER-9)", releases: []string{"1.36"}, at: "1.36.3", wantHolds: true},
		{name: "a minor alone does not hold for the next minor (VER-2)", releases: []string{"1.36"}, at: "1.37.0"},
		{name: "a range of minors holds in between (VER-9)", releases: []string{"1.34-1.37"}, at: "1.35.1", wantHolds: true},
		{name: "a range of minors starts at the first patch of its first minor (VER-3)", releases: []string{"1.34-1.37"}, at: "1.33.13"},
		{name: "a patch range ends at its last patch (VER-4)", releases: []string{"1.33.6-1.33.13", "1.34.2-1.37"}, at: "1.34.1"},
		{name: "the second range of two holds (VER-4)", releases: []string{"1.33.6-1.33.13", "1.34.2-1.37"}, at: "1.34.2", wantHolds: true},
		{name: "without releases a case holds for the release it names alone (VER-1)", at: "1.36.3", wantHolds: true},
		{name: "without releases another patch of the same minor does not hold (VER-1)", at: "1.36.2"},
		{name: "an unsupported release in a range is an error (VER-1)", releases: []string{"1.30-1.36"}, at: "1.36.3", wantErr: true},
		{name: "a range that ends before it starts is an error (VER-9)", releases: []string{"1.37-1.36"}, at: "1.36.3", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Case{Name: "c", Kubernetes: "v1.36.3", Releases: tt.releases}
			before := Case{Name: "c", Kubernetes: "v1.36.3", Releases: append([]string(nil), tt.releases...)}
			got, err := c.HoldsAt(mustVersion(t, tt.at))
			if tt.wantErr {
				require.Error(t, err)
				require.Contains(t, err.Error(), "case c: releases[0]")
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.wantHolds, got)
			if diff := cmp.Diff(before, c); diff != "" {
				t.Errorf("HoldsAt mutated the case (-before +after):\n%s", diff)
			}
		})
	}
}

// TestReleaseRangesRoundTrip checks that releaseRanges writes what HoldsAt reads back: for
// sets of releases of every shape the corpus has, a release holds exactly when it is in the
// set (VER-9).
func TestReleaseRangesRoundTrip(t *testing.T) {
	all := allReleases()
	require.Equal(t, "1.33.0", all[0].String())
	require.Equal(t, daemonset.NewestVersion(), all[len(all)-1])
	pick := func(keep func(daemonset.Version) bool) []daemonset.Version {
		var out []daemonset.Version
		for _, v := range all {
			if keep(v) {
				out = append(out, v)
			}
		}
		return out
	}
	tests := []struct {
		name  string
		holds []daemonset.Version
		want  []string
	}{
		{name: "every release is one range of minors", holds: all, want: []string{"1.33-1.37"}},
		{name: "one minor is the minor alone", holds: pick(func(v daemonset.Version) bool { return v.Minor() == 36 }), want: []string{"1.36"}},
		{name: "from 1.34 on is a range of minors", holds: pick(func(v daemonset.Version) bool { return v.AtLeast(1, 34, 0) }), want: []string{"1.34-1.37"}},
		{name: "ownership by reference is two ranges", holds: pick(func(v daemonset.Version) bool {
			return (v.Minor() == 33 && v.AtLeast(1, 33, 6)) || v.AtLeast(1, 34, 2)
		}), want: []string{"1.33.6-1.33.13", "1.34.2-1.37"}},
		{name: "ownership by uid alone is two patch ranges", holds: pick(func(v daemonset.Version) bool {
			return (v.Minor() == 33 && !v.AtLeast(1, 33, 6)) || (v.Minor() == 34 && !v.AtLeast(1, 34, 2))
		}), want: []string{"1.33.0-1.33.5", "1.34.0-1.34.1"}},
		{name: "one patch is that patch", holds: []daemonset.Version{mustVersion(t, "1.35.2")}, want: []string{"1.35.2"}},
		{name: "none is no range", holds: nil, want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := releaseRanges(tt.holds)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Fatalf("releaseRanges() mismatch (-want +got):\n%s", diff)
			}
			c := Case{Name: "c", Kubernetes: "v1.36.3", Releases: got}
			if len(got) == 0 {
				return
			}
			for _, v := range all {
				holds, err := c.HoldsAt(v)
				require.NoError(t, err)
				want := false
				for _, h := range tt.holds {
					want = want || h == v
				}
				require.Equal(t, want, holds, "release %s", v)
			}
		})
	}
}

// TestProjectPassesCorpusAtEveryRelease runs the project's planner over the corpus at every
// supported minor's newest patch and at the last patch of each older ownership rule (1.33.5,
// 1.34.1): the cases that hold there pass at it, the others are skipped (VER-9).
func TestProjectPassesCorpusAtEveryRelease(t *testing.T) {
	releases := append(daemonset.SupportedVersions(), mustVersion(t, "1.33.5"), mustVersion(t, "1.34.1"))
	for _, v := range releases {
		t.Run(v.String(), func(t *testing.T) {
			RunAt(t, v, func(s daemonset.Snapshot, opts Options) ([]*daemonset.Result, error) {
				require.Equal(t, v, opts.Version, "a case run at a release is judged at it")
				c, err := s.Plan(opts.planOptions())
				if err != nil {
					return nil, err
				}
				return c.DaemonSets, nil
			})
		})
	}
}

// TestSelectAtCountsOtherReleases checks that a run at 1.37 leaves out the cases whose
// expectations are 1.36's template hash alone, each with an outcome that says which
// releases it holds for, and that the reports count them apart (VER-9).
func TestSelectAtCountsOtherReleases(t *testing.T) {
	cases, err := Corpus()
	require.NoError(t, err)
	v137 := mustVersion(t, "1.37")
	run, other, err := SelectAt(cases, v137)
	require.NoError(t, err)
	require.Equal(t, len(cases), len(run)+len(other))
	require.NotEmpty(t, run)
	require.NotEmpty(t, other)
	for _, c := range run {
		require.Equal(t, "v1.37.2", c.Kubernetes, "case %s", c.Name)
	}
	for _, o := range other {
		require.Equal(t, ResultOtherRelease, o.Result)
		require.Contains(t, o.Error, "not 1.37.2", "case %s", o.Case)
	}
	reports := Reports("x", other)
	n := 0
	for _, r := range reports {
		require.True(t, r.Conforms, "cases of other releases do not count against %s", r.Profile)
		n += r.OtherReleases
	}
	require.Equal(t, len(other), n)
}
