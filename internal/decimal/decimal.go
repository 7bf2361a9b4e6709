// Package decimal parses the base-10 integers that label values and annotations hold, as
// upstream does with strconv.ParseInt, without allocating an error for the many values that
// are not numbers.
package decimal

// ParseInt64 accepts exactly what strconv.ParseInt(s, 10, 64) accepts (an optional sign,
// then one or more ASCII digits, within the int64 range) and returns the same value, without
// allocating on failure. A differential test holds it to strconv.
func ParseInt64(s string) (int64, bool) {
	if s == "" {
		return 0, false
	}
	neg := false
	switch s[0] {
	case '+':
		s = s[1:]
	case '-':
		neg = true
		s = s[1:]
	}
	if s == "" {
		return 0, false
	}
	const cutoff = uint64(1) << 63 // |min int64|
	var n uint64
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		if n > cutoff/10 {
			return 0, false
		}
		n = n*10 + uint64(c-'0')
		if n > cutoff {
			return 0, false
		}
	}
	if neg {
		return -int64(n), true // n == cutoff wraps to min int64, which is right
	}
	if n == cutoff {
		return 0, false
	}
	return int64(n), true
}
