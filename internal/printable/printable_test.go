package printable

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestQuote(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"", ""},
		{"node-1", "node-1"},
		{"kube-system/agent x", "kube-system/agent x"},
		{"ünïcødé-名前", "ünïcødé-名前"},
		{"x\ny", `"x\ny"`},                           // a forged line
		{"a\x1b[31mred", `"a\x1b[31mred"`},           // a terminal escape
		{"tab\there", `"tab\there"`},                 // columns of the table
		{"n\x001", `"n\x001"`},                       // NUL
		{"bad\xffutf8", `"bad\xffutf8"`},             // invalid UTF-8
		{"rtl\u202eoverride", `"rtl\u202eoverride"`}, // a bidi override is a format character, not graphic
		{"nbsp\u00a0x", `"nbsp\u00a0x"`},             // a space that is not ' '
		{"line\u2028sep", `"line\u2028sep"`},         // a Unicode line separator
		{"del\x7f", `"del\x7f"`},
	}
	for _, tt := range tests {
		require.Equal(t, tt.want, Quote(tt.in), "Quote(%q)", tt.in)
		require.Equal(t, tt.in == tt.want, Safe(tt.in), "Safe(%q)", tt.in)
	}
}

func TestEscape(t *testing.T) {
	t.Parallel()
	require.Equal(t, "plain text: ok", Escape("plain text: ok"))
	require.Equal(t, `a\nb\x1b[31m \u202e\xff\t`, Escape("a\nb\x1b[31m \u202e\xff\t"))
}

// Whatever s is, Quote(s) is one line of graphic runes.
func FuzzQuote(f *testing.F) {
	f.Add("x\ny")
	f.Add("\xff\x1b")
	f.Fuzz(func(t *testing.T, s string) {
		q := Quote(s)
		for _, c := range []byte(q) {
			if c < ' ' || c == 0x7f {
				t.Fatalf("Quote(%q) = %q holds a control byte", s, q)
			}
		}
		if !Safe(q) && q != s {
			t.Fatalf("Quote(%q) = %q is not safe", s, q)
		}
		if e := Escape(s); !Safe(e) {
			t.Fatalf("Escape(%q) = %q is not safe", s, e)
		}
	})
}
