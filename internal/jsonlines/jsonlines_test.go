package jsonlines

import (
	"errors"
	"io"
	"math"
	"strings"
	"testing"
	"time"
)

// endless is an input that never ends and never holds a newline, as /dev/zero.
type endless struct{}

func (endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	return len(p), nil
}

func TestNext(t *testing.T) {
	tests := []struct {
		name, in string
		max      int
		want     []string
		wantErr  error
	}{
		{"lines are split on newlines and trimmed", "a\n b \r\nc", 8, []string{"a", "b", "c"}, io.EOF},
		{"blank lines are skipped", "\n \n\na\n\n", 8, []string{"a"}, io.EOF},
		{"a line of exactly the bound is read", "12345678\n", 8, []string{"12345678"}, io.EOF},
		{"a last line of exactly the bound is read", "12345678", 8, []string{"12345678"}, io.EOF},
		{"a line one byte over the bound is refused", "ok\n123456789\nnext\n", 8, []string{"ok"}, &TooLongError{Max: 8}},
		{"a last line one byte over the bound is refused", "123456789", 8, nil, &TooLongError{Max: 8}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewReader(strings.NewReader(tt.in), tt.max)
			var got []string
			var err error
			for {
				var line []byte
				if line, err = r.Next(); err != nil {
					break
				}
				got = append(got, string(line))
			}
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("lines %q, want %q", got, tt.want)
			}
			if err.Error() != tt.wantErr.Error() {
				t.Errorf("error %v, want %v", err, tt.wantErr)
			}
			if _, again := r.Next(); again != err {
				t.Errorf("a second call returns %v, want %v again", again, err)
			}
		})
	}
}

// TestNextEndlessLine: an endless line (serve < /dev/zero, F3) ends in an error after reading
// about the bound, not in an out-of-memory crash.
func TestNextEndlessLine(t *testing.T) {
	start := time.Now()
	_, err := NewReader(endless{}, 1<<20).Next()
	var tooLong *TooLongError
	if !errors.As(err, &tooLong) || tooLong.Max != 1<<20 {
		t.Fatalf("got %v, want a TooLongError", err)
	}
	if time.Since(start) > 5*time.Second {
		t.Errorf("took %v", time.Since(start))
	}
}

// TestNextTakesAnyPositiveBound: the bound is compared without adding to it, so that the
// largest (--max-line-bytes 9223372036854775807) reads lines; max+1 wrapped to the most
// negative int and every line was "longer than 9223372036854775807 bytes".
func TestNextTakesAnyPositiveBound(t *testing.T) {
	for _, max := range []int{math.MaxInt, math.MaxInt - 1, 1 << 62} {
		r := NewReader(strings.NewReader("{\"id\":1}\n{\"id\":2}"), max)
		for _, want := range []string{`{"id":1}`, `{"id":2}`} {
			got, err := r.Next()
			if err != nil || string(got) != want {
				t.Fatalf("max %d: Next() = %q, %v; want %q", max, got, err, want)
			}
		}
		if _, err := r.Next(); err != io.EOF {
			t.Fatalf("max %d: at the end: %v, want EOF", max, err)
		}
	}
}
