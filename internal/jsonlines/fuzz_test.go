package jsonlines

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

// FuzzNext checks the line reader against a plain split of its input: the same lines in the
// same order, none longer than the bound, and a TooLongError exactly where a line is longer.
func FuzzNext(f *testing.F) {
	f.Add([]byte("{\"id\":1}\n{\"id\":2}\n"), 8)           // two answers
	f.Add([]byte("{\"skip\":\"x\"}\n{\"skip\":\"x\"}"), 4) // an answer over the bound
	f.Add([]byte("\n\r\n \t\n"), 1)                        // blank lines only
	f.Add([]byte("0000000000000000000000000"), 3)          // /dev/zero-like: no newline at all
	f.Fuzz(func(t *testing.T, in []byte, max int) {
		max = 1 + max&63
		r := NewReader(bytes.NewReader(in), max)
		var want [][]byte
		tooLong := false
		for _, l := range bytes.Split(in, []byte("\n")) {
			if len(l) > max {
				tooLong = true
				break
			}
			if l = bytes.TrimSpace(l); len(l) > 0 {
				want = append(want, l)
			}
		}
		for i := 0; ; i++ {
			got, err := r.Next()
			if err != nil {
				var tle *TooLongError
				switch {
				case errors.As(err, &tle) != tooLong, !tooLong && err != io.EOF:
					t.Fatalf("line %d: error %v, want too long %v", i, err, tooLong)
				case i != len(want):
					t.Fatalf("%d lines, want %d", i, len(want))
				}
				return
			}
			if i >= len(want) || !bytes.Equal(got, want[i]) {
				t.Fatalf("line %d: %q, want %q", i, got, want)
			}
		}
	})
}
