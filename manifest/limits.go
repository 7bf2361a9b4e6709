package manifest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/daemonsched/daemonsched/internal/jsongate"
)

// Limits bound what Read accepts, so that damaged or hostile input ends quickly, in memory
// proportional to its size, with one line naming the limit and where it was exceeded (the
// daemonsched command's flag of the same name changes each). A zero field means its default.
type Limits struct {
	// InputBytes bounds the bytes of all inputs together (default [DefaultInputBytes]). A file
	// larger than what is left is refused before it is read; a stream fails one byte past it.
	InputBytes int64
	// Objects bounds the objects of one input: documents, and the items of every list
	// (default [DefaultObjects]). A list longer than that is refused before its items are
	// decoded. Documents without objects (empty, or only comments) count with the documents,
	// so that an endless run of "---" lines ends after that many.
	Objects int
	// ObjectBytes bounds the size of one object, as the API server bounds a request (default
	// [DefaultObjectBytes]); a list is not an object, its items are.
	ObjectBytes int
	// QuantityLength bounds the length of a resource quantity (default
	// [DefaultQuantityLength]), and QuantityExponent the magnitude of the exponent it writes
	// after e or E (default [DefaultQuantityExponent]). Both are checked before the quantity is
	// parsed: apimachinery builds 10^|exponent| to parse "1e-999999999", which takes hours.
	QuantityLength, QuantityExponent int
	// Warnings bounds the distinct warnings kept in [Result.Warnings] (default
	// [DefaultWarnings]); [Result.WarningsLeftOut] counts the others.
	Warnings int
}

// The defaults of [Limits].
const (
	// DefaultInputBytes is 1 GiB: kubectl -o json of every object of a 5,000-node cluster at the
	// Kubernetes scalability limits (150,000 pods) is a few hundred MB.
	DefaultInputBytes = 1 << 30
	// DefaultObjects is 250,000: those 150,000 pods, 5,000 nodes and their revisions fit.
	DefaultObjects = 250_000
	// DefaultObjectBytes is the API server's 3 MiB limit on a request.
	DefaultObjectBytes = 3 << 20
	// DefaultQuantityLength is 64 characters: the largest quantity the API types hold, in
	// nano units, has 28 digits.
	DefaultQuantityLength = jsongate.DefaultLength
	// DefaultQuantityExponent is 100: 10^100 is beyond any resource, and 10^-100 rounds to 1n.
	DefaultQuantityExponent = jsongate.DefaultExponent
	// DefaultWarnings is 100 distinct warnings.
	DefaultWarnings = 100
)

// withDefaults returns l with every zero field set to its default.
func (l Limits) withDefaults() Limits {
	set := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	if l.InputBytes == 0 {
		l.InputBytes = DefaultInputBytes
	}
	set(&l.Objects, DefaultObjects)
	set(&l.ObjectBytes, DefaultObjectBytes)
	set(&l.QuantityLength, DefaultQuantityLength)
	set(&l.QuantityExponent, DefaultQuantityExponent)
	set(&l.Warnings, DefaultWarnings)
	return l
}

// check panics on a negative limit, a programming error.
func (l Limits) check() {
	if l.InputBytes < 0 || l.Objects < 0 || l.ObjectBytes < 0 || l.QuantityLength < 0 || l.QuantityExponent < 0 || l.Warnings < 0 {
		panic("manifest: negative Options.Limits")
	}
}

// LimitError is the part of an error that says an input passed one of its [Limits]: Limit is
// the name of the field of Limits passed ("InputBytes", "Objects" or "ObjectBytes"), and the
// message names it as "(limit Objects)", after which a caller that sets the bound another way
// (a command's flag) may name that too. ReadInputs wraps it with where it was passed.
type LimitError struct {
	Limit string
	msg   string
}

func (e *LimitError) Error() string { return e.msg }

// limitError words the limit named by the field of Limits limit: what passed it, then
// "(limit NAME[; note])".
func limitError(limit, what, note string) *LimitError {
	if note != "" {
		note = "; " + note
	}
	return &LimitError{Limit: limit, msg: fmt.Sprintf("%s (limit %s%s)", what, limit, note)}
}

// tooManyObjects is the error of the input name past Limits.Objects.
func tooManyObjects(name string, limit int) error {
	return fmt.Errorf("%s: %w", name, limitError("Objects", fmt.Sprintf("more than %d objects", limit), ""))
}

// errInputBytes is the error of an input over what is left of Limits.InputBytes; ReadInputs
// words it (inputTooLarge).
var errInputBytes = errors.New("input too large")

// inputTooLarge words the InputBytes limit for the input name, the first one or not.
func inputTooLarge(name string, limit int64, first bool) error {
	if first {
		return fmt.Errorf("%s: %w", name, limitError("InputBytes", "input is larger than "+byteSize(limit), ""))
	}
	return fmt.Errorf("%s: %w", name, limitError("InputBytes", "the inputs up to this one are larger than "+byteSize(limit)+" together", ""))
}

// byteSize writes n as "3 MiB", "1 GiB" when it is such a multiple, else in bytes.
func byteSize(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// pathErr drops the operation and path of a *PathError: messages name the input themselves.
func pathErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// NotRegular returns the refusal of path when it names a file that is neither regular nor a
// directory (a named pipe would block in open(2), a device never end), worded as this
// package's readers refuse it, and nil otherwise, a path that cannot be stat'ed included (its
// reader says why). A command may end the message with its own way to read a stream.
func NotRegular(path string) error {
	st, err := os.Stat(path)
	if err != nil || st.Mode().IsRegular() || st.IsDir() {
		return nil
	}
	return notRegular(path, st.Mode())
}

// notRegular is the refusal of the file name of mode m, which is not regular.
func notRegular(name string, m fs.FileMode) error {
	return fmt.Errorf("%s: not a regular file (%s)", name, fileType(m))
}

// fileType names the type of a file that is not regular.
func fileType(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "mode " + m.String()
}

// readSized reads r to its end, or fails after limit bytes without reading more than one byte
// past it. size, when known, is the expected size, so that a large file is read into one
// buffer of its size instead of growing one and copying it. A NUL byte outside UTF-16 text
// ends the read at once: neither YAML nor JSON text holds one, and /dev/zero or a binary file
// then fails in its first block rather than after filling memory.
//
// A stream of unknown size is read in chunks, joined once at its end: a buffer that doubles
// would hold 2 GiB and copy 1 GiB into it on the byte past a 1 GiB limit (issue 25, F16: 2 GB
// on stdin peaked at 3.6 GB before the refusal), while chunks hold at most the limit and a
// chunk before it is refused.
func readSized(name string, r io.Reader, limit, size int64) ([]byte, error) {
	nul := &nulGuard{r: io.LimitReader(r, limit+1)}
	var (
		data []byte
		err  error
	)
	if size > 0 {
		var b bytes.Buffer
		b.Grow(int(min(size, limit)) + bytes.MinRead) // ReadFrom wants MinRead free bytes for the read that sees the end
		_, err = b.ReadFrom(nul)
		data = b.Bytes()
	} else {
		data, err = readChunks(nul, limit+1)
	}
	switch {
	case errors.Is(err, errInputBytes):
		return nil, err
	case errors.Is(err, errNUL):
		return nil, fmt.Errorf("%s: line %d: a NUL byte: not YAML or JSON text", name, bytes.Count(data[:min(nul.at, int64(len(data)))], []byte("\n"))+1)
	case err != nil:
		return nil, fmt.Errorf("%s: %w", name, pathErr(err)) // "FILE: is a directory"
	case int64(len(data)) > limit:
		return nil, errInputBytes
	}
	return data, nil
}

// readChunks reads r to its end, at most "most" bytes, into chunks that double from 64 KiB up to
// 64 MiB, and joins them into one slice of the exact size. On an error it returns what it read;
// when r holds "most" bytes or more, it returns errInputBytes without joining them.
func readChunks(r io.Reader, most int64) ([]byte, error) {
	var (
		chunks [][]byte
		total  int
		next   = 64 << 10
		err    error
	)
	for err == nil && int64(total) < most {
		chunk := make([]byte, min(int64(next), most-int64(total)))
		k := 0
		for k < len(chunk) && err == nil {
			var m int
			m, err = r.Read(chunk[k:])
			k += m
		}
		if k > 0 {
			chunks = append(chunks, chunk[:k])
			total += k
		}
		next = min(next*2, 64<<20)
	}
	if errors.Is(err, io.EOF) {
		err = nil
	}
	if err == nil && int64(total) >= most {
		return nil, errInputBytes // refused: joining would copy it all
	}
	if len(chunks) == 1 {
		return chunks[0], err
	}
	data := make([]byte, 0, total)
	for i, c := range chunks {
		data = append(data, c...)
		chunks[i] = nil // the joined copy replaces it
	}
	return data, err
}

var errNUL = errors.New("NUL byte")

// nulGuard passes reads through and fails at the first NUL byte, unless the text starts with a
// UTF-16 byte order mark (UTF-16 holds NUL bytes in every ASCII character).
type nulGuard struct {
	r    io.Reader
	n    int64 // bytes read so far
	at   int64 // offset of the NUL byte found
	head []byte
}

func (g *nulGuard) Read(p []byte) (int, error) {
	n, err := g.r.Read(p)
	if len(g.head) < 2 {
		g.head = append(g.head, p[:min(n, 2-len(g.head))]...)
	}
	utf16 := len(g.head) == 2 && (g.head[0] == 0xFF && g.head[1] == 0xFE || g.head[0] == 0xFE && g.head[1] == 0xFF)
	if !utf16 {
		if i := bytes.IndexByte(p[:n], 0); i >= 0 {
			g.at = g.n + int64(i)
			g.n += int64(n)
			return n, errNUL
		}
	}
	g.n += int64(n)
	return n, err
}
