package taints

import (
	"strconv"
	"testing"

	"k8s.io/apimachinery/pkg/api/validate/content"
)

// FuzzParseDecimal checks parseDecimal against what v1.36 does with an Lt/Gt operand
// (TAINT-10): content.IsDecimalInteger, then strconv.ParseInt.
func FuzzParseDecimal(f *testing.F) {
	for _, s := range []string{
		"0",                    // the only canonical value starting with 0
		"-0",                   // not canonical
		"007",                  // leading zeros: ParseInt accepts, upstream rejects
		"+5",                   // explicit plus: ParseInt accepts, upstream rejects
		"-",                    // sign only
		"",                     // empty
		"42",                   // plain positive
		"-42",                  // plain negative
		"9223372036854775807",  // int64 maximum
		"9223372036854775808",  // one past the maximum: canonical but out of range
		"-9223372036854775808", // int64 minimum
		"-9223372036854775809", // one past the minimum
		"1_000",                // underscores: ParseInt with base 10 rejects them
		"0x1F",                 // hex prefix
		" 1",                   // leading space
		"١",                    // a non-ASCII digit
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, gotOK := parseDecimal(s)
		var want int64
		wantOK := len(content.IsDecimalInteger(s)) == 0
		if wantOK {
			n, err := strconv.ParseInt(s, 10, 64)
			if wantOK = err == nil; wantOK {
				want = n
			}
		}
		if gotOK != wantOK || got != want {
			t.Fatalf("parseDecimal(%q) = (%d, %v), upstream (%d, %v)", s, got, gotOK, want, wantOK)
		}
	})
}
