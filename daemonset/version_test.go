package daemonset_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"

	"github.com/daemonsched/daemonsched/daemonset"
)

func TestParseVersion(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		in      string
		want    string
		wantErr string
	}{
		{name: "VER-1 a minor alone is its newest supported patch", in: "1.35", want: "1.35.4"},
		{name: "VER-1 a full release is kept", in: "1.35.1", want: "1.35.1"},
		{name: "VER-1 a leading v is accepted", in: "v1.33.6", want: "1.33.6"},
		{name: "VER-1 patch 0 is supported", in: "1.34.0", want: "1.34.0"},
		{name: "VER-1 the newest release", in: "1.37", want: "1.37.2"},
		{name: "VER-1 the oldest release", in: "1.33", want: "1.33.13"},
		{name: "VER-1 an older minor is not supported", in: "1.32", wantErr: `kubernetes version "1.32" is not supported: supported are 1.33 to 1.37`},
		{name: "VER-1 a newer minor is not supported", in: "1.38.0", wantErr: `kubernetes version "1.38.0" is not supported: supported are 1.33 to 1.37`},
		{name: "VER-1 another major is not supported", in: "2.35", wantErr: `kubernetes version "2.35" is not supported: supported are 1.33 to 1.37`},
		{name: "VER-1 a patch newer than the newest supported one is refused", in: "1.36.4", wantErr: `kubernetes version "1.36.4" is not supported: the newest supported 1.36 release is 1.36.3`},
		{name: "VER-1 a major alone is malformed", in: "1", wantErr: `kubernetes version "1": want major.minor or major.minor.patch, such as 1.35 or 1.35.4`},
		{name: "VER-1 the empty string is malformed", in: "", wantErr: `kubernetes version "": want major.minor or major.minor.patch, such as 1.35 or 1.35.4`},
		{name: "VER-1 four parts are malformed", in: "1.35.4.1", wantErr: `kubernetes version "1.35.4.1": want major.minor or major.minor.patch, such as 1.35 or 1.35.4`},
		{name: "VER-1 a pre-release suffix is malformed", in: "1.35.4-rc1", wantErr: `kubernetes version "1.35.4-rc1": "4-rc1" is not a decimal number without leading zeros`},
		{name: "VER-1 a leading zero is malformed", in: "1.035", wantErr: `kubernetes version "1.035": "035" is not a decimal number without leading zeros`},
		{name: "VER-1 a sign is malformed", in: "1.+35", wantErr: `kubernetes version "1.+35": "+35" is not a decimal number without leading zeros`},
		{name: "VER-1 an empty part is malformed", in: "1..4", wantErr: `kubernetes version "1..4": "" is not a decimal number without leading zeros`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := daemonset.ParseVersion(tt.in)
			if tt.wantErr != "" {
				require.EqualError(t, err, tt.wantErr)
				require.True(t, got.IsZero())
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.want, got.String())
			again, err := daemonset.ParseVersion(got.String())
			require.NoError(t, err)
			require.Equal(t, got, again, "String parses back to the same Version")
		})
	}
}

func TestVersionValues(t *testing.T) {
	t.Parallel()
	parse := func(s string) daemonset.Version {
		v, err := daemonset.ParseVersion(s)
		require.NoError(t, err)
		return v
	}
	t.Run("VER-1 the supported releases are each minor's newest patch, oldest first", func(t *testing.T) {
		var got []string
		for _, v := range daemonset.SupportedVersions() {
			got = append(got, v.String())
		}
		require.Equal(t, []string{"1.33.13", "1.34.4", "1.35.4", "1.36.3", "1.37.2"}, got)
		require.True(t, slices.IsSortedFunc(daemonset.SupportedVersions(), daemonset.Version.Compare))
	})
	t.Run("VER-1 the newest release is 1.37.2", func(t *testing.T) {
		require.Equal(t, parse("1.37"), daemonset.NewestVersion())
	})
	t.Run("VER-1 versions compare by major, minor and patch", func(t *testing.T) {
		require.Equal(t, -1, parse("1.33.13").Compare(parse("1.34.0")))
		require.Equal(t, 1, parse("1.34.2").Compare(parse("1.34.1")))
		require.Equal(t, 0, parse("1.35").Compare(parse("v1.35.4")))
		require.Equal(t, -1, daemonset.Version{}.Compare(parse("1.33.0")))
		require.True(t, parse("1.34.2").AtLeast(1, 34, 2))
		require.False(t, parse("1.34.1").AtLeast(1, 34, 2))
		require.True(t, parse("1.35.0").AtLeast(1, 34, 2))
	})
	t.Run("VER-1 a version is comparable with ==", func(t *testing.T) {
		require.True(t, parse("1.36") == parse("1.36.3"))
		require.Equal(t, 36, parse("1.36").Minor())
		require.Equal(t, 1, parse("1.36").Major())
		require.Equal(t, 3, parse("1.36").Patch())
	})
	t.Run("VER-1 the zero Version prints empty", func(t *testing.T) {
		require.Equal(t, "", daemonset.Version{}.String())
		require.True(t, daemonset.Version{}.IsZero())
	})
	t.Run("VER-1 the zero Version stands for the newest release, any other for itself", func(t *testing.T) {
		require.Equal(t, daemonset.NewestVersion(), daemonset.Version{}.OrNewest())
		require.Equal(t, parse("1.33.13"), parse("1.33").OrNewest())
	})
	t.Run("VER-1 a version reads and writes as text", func(t *testing.T) {
		var got struct{ V daemonset.Version }
		require.NoError(t, json.Unmarshal([]byte(`{"V":"v1.34"}`), &got))
		require.Equal(t, parse("1.34.4"), got.V)
		out, err := json.Marshal(got)
		require.NoError(t, err)
		require.JSONEq(t, `{"V":"1.34.4"}`, string(out))
		require.ErrorContains(t, json.Unmarshal([]byte(`{"V":"1.40"}`), &got), "not supported")
	})
}

func ExampleParseVersion() {
	v, err := daemonset.ParseVersion("1.35")
	if err != nil {
		panic(err)
	}
	fmt.Println(v, v.Minor())
	_, err = daemonset.ParseVersion("1.32")
	fmt.Println(err)
	// Output:
	// 1.35.4 35
	// kubernetes version "1.32" is not supported: supported are 1.33 to 1.37
}

// TestPlanHashFollowsVersion: a plan names the revision its created pods carry with the hash of
// the release the options select (VER-2), and the zero Version is the newest release's (VER-1).
func TestPlanHashFollowsVersion(t *testing.T) {
	t.Parallel()
	ds := newDS()
	parse := func(s string) daemonset.Version {
		v, err := daemonset.ParseVersion(s)
		require.NoError(t, err)
		return v
	}
	for _, release := range []string{"", "1.33", "1.34.0", "1.35", "1.36", "1.37"} {
		o := opts()
		o.Version = daemonset.Version{}
		want := daemonset.NewestVersion().ComputeHash(&ds.Spec.Template, nil)
		if release != "" {
			o.Version = parse(release)
			want = o.Version.ComputeHash(&ds.Spec.Template, nil)
		}
		res, err := daemonset.Plan(ds, nodes(1), nil, o)
		require.NoError(t, err)
		require.Equal(t, want, res.RevisionHash, "release %q", release)
		require.Len(t, res.Create, 1)
		require.Equal(t, want, res.Create[0].Pod.Labels[appsv1.DefaultDaemonSetUniqueLabelKey], "release %q", release)
	}
}
