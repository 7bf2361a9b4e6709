// Package jsonlines reads a line protocol (one JSON value per line) with a bound on the length
// of a line, so that a peer writing one endless line ends in an error instead of taking all
// memory. It does not decode the lines.
package jsonlines

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
)

// TooLongError is the error of a line longer than the bound; the rest of the line is not
// read.
type TooLongError struct {
	// Max is the bound, in bytes, the newline excluded.
	Max int
}

func (e *TooLongError) Error() string {
	return fmt.Sprintf("a line longer than %d bytes", e.Max)
}

// Reader reads lines of at most a fixed number of bytes. It is not safe for concurrent use.
type Reader struct {
	r   *bufio.Reader
	max int
	buf []byte
	err error
}

// NewReader returns a Reader of lines of at most max bytes (newline excluded) from r. It
// panics when max is not positive.
func NewReader(r io.Reader, max int) *Reader {
	if max <= 0 {
		panic("jsonlines: max must be positive")
	}
	return &Reader{r: bufio.NewReaderSize(r, min(max, 64<<10)+1), max: max}
}

// Next returns the next line that is not blank, without its newline and the spaces around
// it; the slice is valid until the next call. At the end of the input it returns io.EOF; a
// last line without a newline is a line. After a line longer than the bound it returns a
// *TooLongError, and so on every later call: the stream is out of step.
func (l *Reader) Next() ([]byte, error) {
	for {
		if l.err != nil {
			return nil, l.err
		}
		l.buf = l.buf[:0]
		for {
			chunk, err := l.r.ReadSlice('\n')
			// The line's bytes so far, its newline not counted; never max+1, which wraps for
			// the largest int.
			n := len(l.buf) + len(chunk)
			if err == nil {
				n--
			}
			if n > l.max {
				l.err = &TooLongError{Max: l.max}
				l.buf = nil
				return nil, l.err
			}
			l.buf = append(l.buf, chunk...)
			if err == bufio.ErrBufferFull {
				continue
			}
			if err != nil {
				l.err = err
			}
			break
		}
		if line := bytes.TrimSpace(l.buf); len(line) > 0 {
			return line, nil
		}
	}
}
