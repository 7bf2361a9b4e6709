package decimal

import (
	"math/rand/v2"
	"strconv"
	"testing"
)

// TestParseInt64MatchesStrconv holds ParseInt64 to strconv.ParseInt(s, 10, 64), which
// upstream's labels.Requirement uses for Gt and Lt (AFF-7).
func TestParseInt64MatchesStrconv(t *testing.T) {
	t.Parallel()
	fixed := []string{
		"", "+", "-", "0", "-0", "+0", "00", "016", "8", "+5", "-5", "--5", "+-5", "5-", " 5", "5 ",
		"1_000", "0x10", "1e3", "abc", "9223372036854775807", "9223372036854775808",
		"-9223372036854775808", "-9223372036854775809", "18446744073709551615",
		"18446744073709551616", "99999999999999999999", "000000000000000000000000009",
		"-000000000000000000009223372036854775808", "١٢", "12a",
	}
	check := func(s string) {
		want, err := strconv.ParseInt(s, 10, 64)
		got, ok := ParseInt64(s)
		if ok != (err == nil) || (ok && got != want) {
			t.Fatalf("ParseInt64(%q) = %d, %v; strconv.ParseInt = %d, %v", s, got, ok, want, err)
		}
	}
	for _, s := range fixed {
		check(s)
	}
	const alphabet = "0123456789+-_ x9"
	r := rand.New(rand.NewPCG(7, 11))
	for range 100_000 {
		b := make([]byte, r.IntN(22))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		check(string(b))
		check(strconv.FormatInt(int64(r.Uint64()), 10))
	}
}
