package jsongate

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/daemonsched/daemonsched/internal/kubectldump"

	"k8s.io/apimachinery/pkg/api/resource"
)

// The gate reads a quantity's form as ParseQuantity does (issue 25, F1): every short string
// over the characters of quantities and spaces that quantityForm calls no quantity is one
// ParseQuantity refuses, and every one the gate passes parses at once. Strings of up to four
// of these characters cover signs, fractions, units, exponents and spaces on either side.
func TestQuantityFormAgreesWithParseQuantity(t *testing.T) {
	t.Parallel()
	const alphabet = " \t+-0195.eEikmMx\u00a0"
	runes := []rune(alphabet)
	lim := Limits{Length: DefaultLength, Exponent: 5}
	var visit func(prefix string, depth int)
	n := 0
	visit = func(prefix string, depth int) {
		n++
		trimmed := strings.TrimSpace(prefix)
		if _, ok := quantityForm(trimSpace(prefix)); !ok {
			if _, err := resource.ParseQuantity(trimmed); err == nil {
				t.Errorf("quantityForm(%q) = not a quantity, but ParseQuantity reads it", prefix)
			}
		}
		if got, want := trimSpace(prefix), trimmed; got != want {
			t.Errorf("trimSpace(%q) = %q, want %q", prefix, got, want)
		}
		if Oversized(prefix, lim) == "" {
			if q, err := resource.ParseQuantity(trimmed); err == nil && q.AsDec().Scale() > 9+DefaultLength {
				t.Errorf("%q passes the gate with scale %d", prefix, q.AsDec().Scale())
			}
		}
		if depth == 0 {
			return
		}
		for _, r := range runes {
			visit(prefix+string(r), depth-1)
		}
	}
	visit("", 4)
	if n < 80_000 {
		t.Fatalf("visited %d strings", n)
	}
}

// Each form of an exponent ParseQuantity reads is measured, and nothing else is.
func TestExponent(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, suffix string
		want         int
		wantOK       bool
	}{
		{"negative exponent", "e-9", 9, true},
		{"explicit plus", "E+12", 12, true},
		{"leading zeros", "e000007", 7, true},
		{"beyond int64 counts as huge", "e99999999999999999999", 1 << 30, true},
		{"exa is a unit", "E", 0, false},
		{"exbi is a unit", "Ei", 0, false},
		{"a sign alone is refused", "e-", 0, false},
		{"two letters are refused", "ee5", 0, false},
		{"a milli unit is no exponent", "m", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, ok := exponent(tt.suffix)
			if got != tt.want || ok != tt.wantOK {
				t.Errorf("exponent(%q) = %d, %v, want %d, %v", tt.suffix, got, ok, tt.want, tt.wantOK)
			}
		})
	}
}

// BenchmarkHasOversizedNumber scans the real dump as JSON, as Quantities scans every object
// before decoding it: the cost the quantity gate adds to reading.
func BenchmarkHasOversizedNumber(b *testing.B) {
	items, err := kubectldump.Items(kubectldump.Real())
	if err != nil {
		b.Fatal(err)
	}
	data, err := kubectldump.JSON(map[string]any{"apiVersion": "v1", "kind": "List", "items": items})
	if err != nil {
		b.Fatal(err)
	}
	lim := Defaults
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if hasOversizedNumber(data, lim) {
			b.Fatal("the real dump has an oversized quantity")
		}
	}
}

// A refusal names the bound, then the caller's setting of it when the caller names one: no
// flag of a command (issue 25), which the library cannot know.
func TestOversizedNamesTheBoundAndTheCallersOption(t *testing.T) {
	t.Parallel()
	named := Limits{Length: 8, Exponent: 3, LengthOption: "QuantityLength", ExponentOption: "QuantityExponent"}
	tests := []struct {
		name  string
		s     string
		lim   Limits
		which Limit
		want  string
	}{
		{"an exponent past the bound, no option", "1e-5", Limits{Length: 8, Exponent: 3}, LimitExponent, "a quantity with an exponent beyond ±3"},
		{"a length past the bound, no option", "123456789", Limits{Length: 8, Exponent: 3}, LimitLength, "a quantity longer than 8 characters"},
		{"an exponent past the bound, with its option", " 1E+5 ", named, LimitExponent, "a quantity with an exponent beyond ±3 (limit QuantityExponent)"},
		{"a length past the bound, with its option", "123456789", named, LimitLength, "a quantity longer than 8 characters (limit QuantityLength)"},
		{"a quantity within both bounds", "1e3", named, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			which, got := oversized(tt.s, tt.lim)
			if which != tt.which || got != tt.want {
				t.Errorf("oversized(%q) = %v, %q; want %v, %q", tt.s, which, got, tt.which, tt.want)
			}
		})
	}
}

// stringEndByBytes is stringEnd as it was written first, one byte at a time: the vectorised
// stringEnd must find the same end and the same escape flag.
func stringEndByBytes(data []byte, i int) (j int, escaped bool) {
	for j = i + 1; j < len(data) && data[j] != '"'; j++ {
		if data[j] == '\\' {
			escaped = true
			j++
		}
	}
	return min(j, len(data)), escaped
}

func TestStringEndAgreesWithTheByteLoop(t *testing.T) {
	for _, s := range []string{
		`""`, `"a"`, `"abc", "d"`, `"a\"b"`, `"a\\"b"`, `"a\\\"b"`, `"\u0031e9"`,
		`"unclosed`, `"ends in a backslash\`, `"escaped quote at the end\"`, `"\\`, `"\`, `"`,
		`"a\nb" "c"`, `"x\\\\"`, `"\"\"\""tail`,
	} {
		wantJ, wantEsc := stringEndByBytes([]byte(s), 0)
		gotJ, gotEsc := stringEnd([]byte(s), 0)
		if gotJ != wantJ || gotEsc != wantEsc {
			t.Errorf("stringEnd(%q) = %d, %v, want %d, %v", s, gotJ, gotEsc, wantJ, wantEsc)
		}
	}
}

func FuzzStringEnd(f *testing.F) {
	f.Add([]byte(`"a\"b" "c"`)) // an escaped quote, then a second string
	f.Add([]byte(`"ends\`))     // a backslash as the last byte
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		wantJ, wantEsc := stringEndByBytes(data, 0)
		if gotJ, gotEsc := stringEnd(data, 0); gotJ != wantJ || gotEsc != wantEsc {
			t.Errorf("stringEnd(%q) = %d, %v, want %d, %v", data, gotJ, gotEsc, wantJ, wantEsc)
		}
	})
}

// mayBeQuantityHolds is the promise of mayBeQuantity on raw, the text between the quotes of a
// JSON string: when it says no, json.Unmarshal unescapes raw to text that Oversized passes
// under the tightest limits, so that text has no quantity's form.
func mayBeQuantityHolds(raw []byte) error {
	data := append(append([]byte{'"'}, raw...), '"')
	if j, _ := stringEnd(data, 0); j != len(data)-1 || mayBeQuantity(raw) {
		return nil // not one string, or the unescaping decides
	}
	var s string
	if err := json.Unmarshal(data, &s); err != nil {
		return fmt.Errorf("mayBeQuantity(%q) = false, but it does not unescape: %v", raw, err)
	}
	if problem := Oversized(s, Limits{}); problem != "" {
		return fmt.Errorf("mayBeQuantity(%q) = false, but %q is refused: %s", raw, s, problem)
	}
	return nil
}

func TestMayBeQuantity(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		raw  string
		want bool
	}{
		{"a letter outside the escapes rules it out", `{\"a\":1}`, false},
		{"an escaped digit may be a quantity", `\u0031e9999`, true},
		{"escaped spaces around a quantity", `\t1e9999\n`, true},
		{"a quantity's characters only", `1\u00659999`, true},
		{"a malformed escape leaves it to the unescaping", `x\q`, true},
		{"a short unicode escape leaves it to the unescaping", `x\u12`, true},
		{"a control byte leaves it to the unescaping", "x\x01\\n", true},
		{"a byte beyond ASCII may be a space", "\u00a01e9999\\n", true},
		{"an escaped quote inside text", `say \"hi\"`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := mayBeQuantity([]byte(tt.raw)); got != tt.want {
				t.Errorf("mayBeQuantity(%q) = %v, want %v", tt.raw, got, tt.want)
			}
			if err := mayBeQuantityHolds([]byte(tt.raw)); err != nil {
				t.Error(err)
			}
		})
	}
}

func FuzzMayBeQuantity(f *testing.F) {
	f.Add([]byte(`{\"a\":1}`))     // an annotation holding JSON: ruled out
	f.Add([]byte(`\u0031e9999`))   // an escaped quantity
	f.Add([]byte(`x\u12`))         // a malformed escape
	f.Add([]byte("\u00a0\\u0031")) // a space beyond ASCII, then an escaped digit
	f.Fuzz(func(t *testing.T, raw []byte) {
		if err := mayBeQuantityHolds(raw); err != nil {
			t.Error(err)
		}
	})
}
