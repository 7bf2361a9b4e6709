package manifest

import (
	"bufio"
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"unicode/utf8"
)

// opened is an input checked whole and ready to be split as it is decoded: its text (UTF-8,
// without a byte order mark) is the size bytes of ra from start. A file is read twice, once to
// check it (its size, NUL bytes, UTF-8) and once to decode it, so that neither read holds it
// whole; bytes in memory and streams (held whole: they cannot be read twice) are read in place.
type opened struct {
	ra          io.ReaderAt
	start, size int64
	json        bool   // a JSON stream, split and decoded whole (splitJSON)
	text        []byte // the text, when held in memory
	file        *os.File
	spool       *spool // a stream read as it is decoded (then ra, without size)
}

// whole returns the text of in, for the inputs decoded whole; a file read as a stream (a file
// of YAML holding a problem, readInOrder) is read to its problem, which is the error.
func (o opened) whole() ([]byte, error) {
	if o.text != nil {
		return o.text, nil
	}
	if o.spool != nil {
		return io.ReadAll(o.spool)
	}
	data := make([]byte, o.size)
	_, err := o.ra.ReadAt(data, o.start)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return data, nil
}

// open checks the input in, at most limit bytes: its size, NUL bytes, its encoding and UTF-8,
// with the messages and in the order of reading it whole. n is its size in bytes.
func open(in Input, limit int64) (name string, o opened, n int64, err error) {
	name = cmp.Or(in.Name, in.Path)
	var data []byte
	switch {
	case in.Data != nil:
		if int64(len(in.Data)) > limit {
			return name, o, 0, errInputBytes
		}
		data = in.Data
		// As a stream and a file are read (nulGuard): FuzzReadText found bytes in memory
		// passing with a NUL byte that both refuse.
		if i := bytes.IndexByte(data, 0); i >= 0 && !hasUTF16BOM(data) {
			return name, o, 0, fmt.Errorf("%s: line %d: a NUL byte: not YAML or JSON text", name, bytes.Count(data[:i], []byte("\n"))+1)
		}
	case in.Path != "":
		return openFile(name, in.Path, limit, "; read a stream from stdin (-f -)")
	case in.Reader != nil:
		size, err := streamSize(in.Reader)
		if err != nil {
			return name, o, 0, fmt.Errorf("%s: %w", name, err)
		}
		if size > limit {
			return name, o, 0, errInputBytes
		}
		if data, err = readSized(name, in.Reader, limit, size); err != nil {
			return name, o, 0, err
		}
	}
	o, err = openBytes(name, data)
	return name, o, int64(len(data)), err
}

// openStreamed opens in as open does, except that a stream (stdin from a pipe or a file within
// limit) holding YAML is not read first: it is checked as it is decoded (spool), so that a stream
// that fails a limit fails when it passes it, and n is 0 (the spool counts what it reads).
// A stream that may be JSON (its first byte past spaces "{", or more than peekLimit bytes of
// spaces) is read whole, as open reads it, but checked as it is read and refused at the bounds
// it passes whatever follows (readJSONHead); UTF-16 and other streams are read whole as before.
// objectBytes is Limits.ObjectBytes.
func openStreamed(in Input, limit int64, objectBytes int) (name string, o opened, n int64, err error) {
	if in.Data != nil || in.Path != "" || in.Reader == nil {
		return open(in, limit)
	}
	// Redirected from a regular file, stdin over the limit is refused by its size unread; one
	// within it is read as a pipe is, not whole: read whole, 1,000 MB of one Node took 1 GB
	// and 33 s to be refused for its size (audit34).
	if size, err := streamSize(in.Reader); err != nil || size > limit {
		return open(in, limit)
	}
	head, kind := peekStream(in.Reader)
	in.Reader = io.MultiReader(bytes.NewReader(head), in.Reader)
	if kind == peekWhole {
		return open(in, limit)
	}
	name = cmp.Or(in.Name, in.Path)
	sp := newSpool(in.Reader, limit)
	if bytes.HasPrefix(head, utf8BOM) {
		sp.pos = int64(len(utf8BOM))
	}
	start := sp.pos
	if kind == peekJSON {
		yaml, err := readJSONHead(sp, name, objectBytes)
		switch {
		case err != nil:
			return name, o, 0, err
		case !yaml:
			data, err := sp.readRest(name)
			if err != nil {
				return name, o, 0, err
			}
			o, err = openBytes(name, data)
			return name, o, int64(len(data)), err
		}
		sp.pos = start
	}
	return name, opened{ra: sp, start: start, spool: sp}, 0, nil
}

// hasUTF16BOM reports whether data starts with a UTF-16 byte order mark, as nulGuard reads it.
func hasUTF16BOM(data []byte) bool {
	return len(data) >= 2 && (data[0] == 0xFF && data[1] == 0xFE || data[0] == 0xFE && data[1] == 0xFF)
}

// openBytes checks text held in memory.
func openBytes(name string, data []byte) (opened, error) {
	text, err := utf8Text(data)
	if err != nil {
		return opened{}, fmt.Errorf("%s: %w", name, err)
	}
	if err := validUTF8(text); err != nil {
		return opened{}, fmt.Errorf("%s: %w", name, err)
	}
	return opened{ra: bytes.NewReader(text), text: text, size: int64(len(text)), json: isJSONStream(text)}, nil
}

// isJSONStream says whether splitDocuments reads text as a JSON stream.
func isJSONStream(text []byte) bool {
	t := bytes.TrimSpace(text)
	return len(t) > 0 && t[0] == '{' && !bytes.Contains(text, []byte("\n---")) && !bytes.Contains(text, []byte("\n..."))
}

// streamSize returns what is left of r when it is a regular file (stdin redirected from one),
// for a stream over the limit to be refused before it is read, or 0 when that is not known.
func streamSize(r io.Reader) (int64, error) {
	f, ok := r.(*os.File)
	if !ok {
		return 0, nil
	}
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return 0, nil //nolint:nilerr // not a file whose size can be known: read it as a stream
	}
	at, err := f.Seek(0, io.SeekCurrent)
	if err != nil {
		return 0, nil //nolint:nilerr // as above
	}
	return max(st.Size()-at, 0), nil
}

// openFile checks the regular file at path in one pass of bounded memory. hint ends the
// message refusing a file that is not regular.
func openFile(name, path string, limit int64, hint string) (string, opened, int64, error) {
	st, err := os.Stat(path)
	if err == nil && st.Mode().IsRegular() && st.Size() <= limit {
		f, oerr := openRegular(path)
		if oerr != nil {
			return name, opened{}, 0, fmt.Errorf("%s: %w", name, pathErr(oerr))
		}
		if st, err = f.Stat(); err != nil || !st.Mode().IsRegular() || st.Size() > limit {
			f.Close()
		} else {
			return checkOpened(name, f, st, limit)
		}
	}
	switch {
	case err != nil:
		return name, opened{}, 0, fmt.Errorf("%s: %w", name, pathErr(err))
	case st.IsDir():
		return name, opened{}, 0, fmt.Errorf("%s: is a directory", name)
	case !st.Mode().IsRegular():
		return name, opened{}, 0, fmt.Errorf("%w%s", notRegular(name, st.Mode()), hint)
	default:
		return name, opened{}, 0, errInputBytes
	}
}

// openRegular opens path for reading without blocking in open(2): a named pipe put in the
// place of the regular file stat saw opens at once (openFlags), and is then refused by its
// own stat.
func openRegular(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|openFlags, 0)
}

// checkOpened checks the regular file f, of st, as openFile does.
func checkOpened(name string, f *os.File, st os.FileInfo, limit int64) (string, opened, int64, error) {
	var head [3]byte
	k, _ := io.ReadFull(f, head[:])
	if k >= 2 && (head[0] == 0xFF && head[1] == 0xFE || head[0] == 0xFE && head[1] == 0xFF) {
		// UTF-16 is converted whole, as before.
		defer f.Close()
		data, err := readSized(name, io.NewSectionReader(f, 0, limit+1), limit, st.Size())
		if err != nil {
			return name, opened{}, 0, err
		}
		o, err := openBytes(name, data)
		return name, o, int64(len(data)), err
	}
	o, n, err := checkFile(name, f, limit)
	if err != nil {
		f.Close()
		return name, opened{}, 0, err
	}
	o.file = f
	return name, o, n, nil
}

// checkFile reads f once, as readSized, utf8Text and validUTF8 would check it whole.
func checkFile(name string, f *os.File, limit int64) (opened, int64, error) {
	nul := &nulGuard{r: io.LimitReader(io.NewSectionReader(f, 0, limit+1), limit+1)}
	br := bufio.NewReaderSize(nul, 64<<10)
	var (
		total, lines int64
		carry        []byte // an incomplete rune at the end of the last chunk
		badAt        = int64(-1)
		badLine      int64
		badByte      byte
		first        byte // first byte that is not ASCII space
		tail         []byte
		markers      bool
		start        int64
	)
	buf := make([]byte, 64<<10)
	for {
		k, err := br.Read(buf)
		chunk := buf[:k]
		if total == 0 && bytes.HasPrefix(chunk, utf8BOM) {
			start = int64(len(utf8BOM))
		}
		if first == 0 {
			skip := chunk
			if total == 0 {
				skip = chunk[start:]
			}
			if t := bytes.TrimLeft(skip, " \t\n\v\f\r"); len(t) > 0 {
				first = t[0]
			}
		}
		if !markers {
			edge := append(tail, chunk[:min(len(chunk), 3)]...)
			markers = hasMarker(edge) || hasMarker(chunk)
			tail = append(tail[:0], edge[max(0, len(edge)-3):]...)
			if len(chunk) >= 3 {
				tail = append(tail[:0], chunk[len(chunk)-3:]...)
			}
		}
		if badAt < 0 {
			probe := chunk
			if len(carry) > 0 {
				probe = append(carry, chunk...)
			}
			cut, off := utf8Cut(probe, err != nil)
			if off >= 0 {
				badAt, badByte = total-int64(len(carry))+int64(off), probe[off]
				badLine = lines + int64(bytes.Count(probe[:off], []byte("\n"))) + 1
			}
			lines += int64(bytes.Count(probe[:cut], []byte("\n")))
			carry = append([]byte(nil), probe[cut:]...)
		}
		total += int64(k)
		if (errors.Is(err, errNUL) || errors.Is(err, io.EOF) && badAt >= 0) && readInOrder(first) {
			return streamed(f, start, limit), 0, nil
		}
		switch {
		case errors.Is(err, errNUL):
			line := int64(1)
			if _, serr := f.Seek(0, io.SeekStart); serr == nil {
				var cnt int64
				sc := io.LimitReader(f, nul.at)
				b := make([]byte, 64<<10)
				for {
					m, rerr := sc.Read(b)
					cnt += int64(bytes.Count(b[:m], []byte("\n")))
					if rerr != nil {
						break
					}
				}
				line = cnt + 1
			}
			return opened{}, 0, fmt.Errorf("%s: line %d: a NUL byte: not YAML or JSON text", name, line)
		case errors.Is(err, io.EOF):
			if total > limit {
				return opened{}, 0, errInputBytes
			}
			if badAt >= 0 {
				return opened{}, 0, fmt.Errorf("%s: line %d: invalid UTF-8 (byte 0x%02X)", name, badLine, badByte)
			}
			o := opened{ra: f, start: start, size: total - start, json: first == '{' && !markers}
			if first >= utf8.RuneSelf {
				// A Unicode space may come before "{": read whole, as before.
				data, err := o.whole()
				if err != nil {
					return opened{}, 0, fmt.Errorf("%s: %w", name, err)
				}
				o.json = isJSONStream(data)
			}
			return o, total, nil
		case err != nil:
			return opened{}, 0, fmt.Errorf("%s: %w", name, pathErr(err))
		}
	}
}

// readInOrder reports whether a file whose first byte past spaces is first, and which holds a
// NUL byte or invalid UTF-8, is decoded up to that byte before it is refused, as the same text
// streamed from a pipe is (spool): YAML, whose documents the pipe decodes as it reads them, so
// that a problem met before the byte (more than Limits.Objects objects) is the one named
// whichever way the text comes (issue 25 item 4, review33 F10). A file was refused for the
// byte before anything was decoded. Text starting with "{" (a pipe reads it whole first), and
// text whose first byte past spaces is the problem or beyond ASCII, are refused at once, as
// a pipe refuses them.
func readInOrder(first byte) bool {
	return first != 0 && first < utf8.RuneSelf && first != '{'
}

// streamed is the regular file f, of at most limit bytes, its text from start, read as a
// stream from a pipe is read: checked as it is decoded (spool), a problem met where it is.
func streamed(f *os.File, start, limit int64) opened {
	sp := newSpool(io.NewSectionReader(f, 0, limit+1), limit)
	sp.pos = start
	return opened{ra: sp, start: start, spool: sp}
}

func hasMarker(b []byte) bool {
	return bytes.Contains(b, []byte("\n---")) || bytes.Contains(b, []byte("\n..."))
}

// ReadText reads the one input in whole through the gate every input of [Read] passes, for
// text read beside a cluster (a node template, a candidate plan, a conformance case): a Path
// must name a regular file, and a named pipe, a device or a directory is refused before
// anything is read, without blocking in open(2); a stream (Reader) is read to at most limit
// bytes and one more, and one redirected from a regular file larger than that is refused
// before it is read; a NUL byte and invalid UTF-8 are refused with their line; UTF-16 is
// converted and a byte order mark dropped. Errors start with the input's name (Name, else
// Path); limit must be positive. Apply and the other fields of [Input] are not read.
func ReadText(in Input, limit int64) ([]byte, error) {
	if limit <= 0 {
		panic("manifest: ReadText limit is not positive")
	}
	name := cmp.Or(in.Name, in.Path)
	var (
		o   opened
		err error
	)
	if in.Path != "" && in.Data == nil {
		_, o, _, err = openFile(name, in.Path, limit, "")
	} else {
		_, o, _, err = open(in, limit)
	}
	if errors.Is(err, errInputBytes) {
		return nil, inputTooLarge(name, limit, true)
	}
	if err != nil {
		return nil, err
	}
	if o.file != nil {
		defer o.file.Close()
	}
	data, err := o.whole()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, pathErr(err))
	}
	return data, nil
}

// DirFS returns the files of the directory dir, each read by [ReadText] at most limit bytes:
// fs.ReadFile of a named pipe or a device in it is refused without blocking, of /dev/zero
// (a link to it) without reading it. Errors name the file as given to ReadFile. Open of a
// file that is not a directory or a regular file is refused too.
func DirFS(dir string, limit int64) fs.FS {
	if limit <= 0 {
		panic("manifest: DirFS limit is not positive")
	}
	return dirFS{fsys: os.DirFS(dir), dir: dir, limit: limit}
}

type dirFS struct {
	fsys  fs.FS
	dir   string
	limit int64
}

func (d dirFS) Open(name string) (fs.File, error) {
	if st, err := fs.Stat(d.fsys, name); err == nil && !st.IsDir() && !st.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fmt.Errorf("not a regular file (%s)", fileType(st.Mode()))}
	}
	return d.fsys.Open(name)
}

func (d dirFS) ReadDir(name string) ([]fs.DirEntry, error) { return fs.ReadDir(d.fsys, name) }

func (d dirFS) ReadFile(name string) ([]byte, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "readfile", Path: name, Err: fs.ErrInvalid}
	}
	return ReadText(Input{Name: name, Path: filepath.Join(d.dir, filepath.FromSlash(name))}, d.limit)
}

// utf8Cut judges one piece of a text read in pieces, probe being the piece after the bytes the
// previous one carried: cut is how much of probe is judged now (all of it when last, else up to
// a rune split at its end, which is carried into the next), and off the offset of the first
// invalid UTF-8 byte in probe[:cut], or -1.
func utf8Cut(probe []byte, last bool) (cut, off int) {
	cut = len(probe)
	if !last {
		for i := len(probe) - 1; i >= max(0, len(probe)-utf8.UTFMax); i-- {
			if utf8.RuneStart(probe[i]) {
				if !utf8.FullRune(probe[i:]) {
					cut = i
				}
				break
			}
		}
	}
	if utf8.Valid(probe[:cut]) {
		return cut, -1
	}
	for off < cut {
		r, size := utf8.DecodeRune(probe[off:cut])
		if r == utf8.RuneError && size <= 1 {
			break
		}
		off += size
	}
	return cut, off
}
