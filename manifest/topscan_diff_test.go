package manifest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// This file keeps readJSONHead, listShaped and flowItemsKey as they were before the top-level
// scanner (topScanner) replaced their two scans, so that FuzzTopScannerAgrees can require the
// same answers from both on any input. It goes when the rewrite lands.

func oldReadJSONHead(sp *spool, name string, objectBytes int) (yaml bool, err error) {
	start := sp.pos
	const (
		spaces = iota // before the first value
		value         // in the first value, before it ends or a line may end a YAML document
		rest          // no more to check
	)
	var (
		state             = spaces
		n                 int64 // bytes of the phase: spaces, or the value's
		valueStart        int64
		depth             int
		inString, escaped bool
		tail              []byte // the last bytes read, for a marker across reads
		buf               = make([]byte, 64<<10)
		// The top level of the first value, for a list past ObjectBytes: its bytes outside the
		// value of a quoted "items" key (outside) are refused past the bound as any object's.
		listed        bool  // the value is past ObjectBytes and list-shaped
		outside       int64 // bytes of the value not inside its items value
		expectKey     bool  // at depth 1, a key may start here
		inKey, keyBad bool  // in a quoted top-level key; whether it is not "items"
		keyLen        int
		keyIsItems    bool // the last top-level key read is "items"
		itemsNext     bool // the next top-level byte starts the value of an items key
		plainKeys     bool // a top-level key is plain or single-quoted (YAML flow)
		inItems       bool // in the value of a top-level items key
	)
	// tooLarge refuses the first value past ObjectBytes as any object is refused.
	tooLarge := func() error {
		r := reader{opts: Options{Limits: Limits{ObjectBytes: objectBytes}}}
		return r.tooLarge(Source{File: name, Document: 1, Item: -1})
	}
	for {
		k, rerr := sp.Read(buf)
		chunk := buf[:k]
		if state == value {
			edge := append(tail, chunk[:min(len(chunk), 3)]...)
			if hasMarker(edge) || hasMarker(chunk) {
				state = rest
			}
		}
		for i := 0; i < len(chunk) && state != rest; i++ {
			c := chunk[i]
			switch state {
			case spaces:
				switch {
				case c == '{':
					state, n, valueStart, depth = value, 0, sp.pos-int64(k)+int64(i), 0
					if hasMarker(chunk[i:]) {
						state = rest
						continue
					}
				case isJSONSpace(c):
					if n++; n > int64(objectBytes) {
						return false, blankDocumentTooLarge(name, 1, objectBytes)
					}
					continue
				case c < utf8.RuneSelf && c != '\v' && c != '\f':
					return true, nil
				default:
					state = rest // a Unicode space may come before "{": as before
					continue
				}
			}
			// The first value: how jsonValueEnd reads it.
			n++
			if inKey {
				switch {
				case c == '"' && !escaped:
					inKey, keyIsItems = false, !keyBad && keyLen == 5
				case keyLen >= 5 || c != "items"[keyLen]:
					keyBad = true
				default:
					keyLen++
				}
			} else if depth == 1 && !inString {
				switch {
				case c == ',':
					expectKey, inItems = true, false
				case c == ':':
					itemsNext = keyIsItems
				case itemsNext && !isJSONSpace(c):
					// Only an array is a list's items: any other value counts as the object's.
					itemsNext, inItems = false, c == '['
				case c == '"' && expectKey:
					expectKey, inKey, keyBad, keyLen = false, true, false, 0
				case expectKey && !isJSONSpace(c) && c != '}':
					// A plain or single-quoted key: a YAML flow mapping, read whole as before.
					if listed {
						state = rest
						continue
					}
					expectKey, keyIsItems, plainKeys = false, false, true
				}
			}
			if !inItems {
				outside++
			}
			switch {
			case inString && escaped:
				escaped = false
			case inString && c == '\\':
				escaped = true
			case c == '"':
				inString = !inString
			case inString:
			case c == '{' || c == '[':
				if depth++; depth == 1 {
					expectKey = c == '{'
				}
			case c == '}' || c == ']':
				if depth--; depth == 0 {
					state = rest
				}
			}
			switch {
			case state != value:
			case listed && outside > int64(objectBytes):
				return false, tooLarge()
			case !listed && n > int64(objectBytes):
				if !oldListShaped(sp.prefix(valueStart, objectBytes)) && !oldListShaped(sp.prefix(start, objectBytes)) {
					return false, tooLarge()
				}
				if listed = true; plainKeys {
					state = rest
				}
			}
		}
		tail = append(tail[:0], chunk[max(0, len(chunk)-3):]...)
		switch {
		case rerr != nil && !errors.Is(rerr, io.EOF):
			return false, fmt.Errorf("%s: %w", name, pathErr(rerr))
		case rerr != nil || state == rest:
			return false, nil
		}
	}
}

func oldListShaped(prefix []byte) bool {
	t := prefix
	for {
		t = bytes.TrimLeft(t, " \t\r\n")
		switch {
		case bytes.HasPrefix(t, []byte("#")) || bytes.HasPrefix(t, []byte("%")):
			_, t, _ = bytes.Cut(t, []byte("\n"))
			continue
		case bytes.HasPrefix(t, []byte("---")):
			t = t[3:]
			continue
		}
		break
	}
	if len(t) > 0 && t[0] == '{' {
		return oldFlowItemsKey(t)
	}
	for _, key := range []string{"items:", `"items":`, `'items':`} {
		for rest := prefix; ; {
			at := bytes.Index(rest, []byte(key))
			if at < 0 {
				break
			}
			if (at == 0 && len(rest) == len(prefix) || at > 0 && rest[at-1] == '\n') && mayHoldItems(rest[at+len(key):]) {
				return true
			}
			rest = rest[at+len(key):]
		}
	}
	return false
}

func oldFlowItemsKey(t []byte) bool {
	// key is whether a key may start at the byte read; isItems whether a colon follows a key
	// items that ends before i.
	depth, key := 0, false
	isItems := func(i int) bool {
		rest := bytes.TrimLeft(t[i:], " \t\r\n")
		return len(rest) > 0 && rest[0] == ':'
	}
	for i := 0; i < len(t); i++ {
		switch c := t[i]; c {
		case '"', '\'':
			j := i + 1
			for j < len(t) && t[j] != c {
				if c == '"' && t[j] == '\\' {
					j++
				}
				j++
			}
			if depth == 1 && key && j < len(t) && string(t[i+1:j]) == "items" && isItems(j+1) {
				return true
			}
			key = false
			i = j
		case '{', '[':
			depth++
			key = c == '{' && depth == 1
		case '}', ']':
			depth--
			if depth <= 0 {
				return false
			}
		case ',':
			key = depth == 1
		case ' ', '\t', '\r', '\n':
		default:
			if depth == 1 && key && bytes.HasPrefix(t[i:], []byte("items")) && isItems(i+5) {
				return true
			}
			key = false
		}
	}
	return false
}

// FuzzTopScannerAgrees requires the same answers of readJSONHead, listShaped and flowItemsKey
// as of their copies before the rewrite: whether the text is YAML, the error, and how far the
// stream was read, for any text, object bound and size of reads.
func FuzzTopScannerAgrees(f *testing.F) {
	for _, data := range topScannerSeeds(f) {
		for _, ob := range []uint16{16, 64, 1024} {
			f.Add(data, ob, uint8(7))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, objectBytes uint16, most uint8) {
		ob := int(objectBytes%8192) + 1
		if got, want := flowItemsKey(data), oldFlowItemsKey(data); got != want {
			t.Fatalf("flowItemsKey(%q) = %v, want %v", data, got, want)
		}
		if got, want := listShaped(data), oldListShaped(data); got != want {
			t.Fatalf("listShaped(%q) = %v, want %v", data, got, want)
		}
		read := func(head func(*spool, string, int) (bool, error)) string {
			sp := newSpool(&pieceReader{r: bytes.NewReader(data), most: int(most%64) + 1}, 1<<20)
			yaml, err := head(sp, "in", ob)
			return fmt.Sprintf("yaml %v, error %v, at %d of %d", yaml, err, sp.pos, sp.total)
		}
		if got, want := read(readJSONHead), read(oldReadJSONHead); got != want {
			t.Fatalf("readJSONHead(%q, %d): %s, want %s", data, ob, got, want)
		}
	})
}

// topScannerSeeds are the inputs of the package's fuzz corpora, of streamCases, and of the
// hostile tests' JSON and flow mappings.
func topScannerSeeds(t testing.TB) [][]byte {
	var seeds [][]byte
	for _, data := range streamCases(t) {
		if len(data) <= maxFuzzSeed {
			seeds = append(seeds, data)
		}
	}
	files, err := filepath.Glob(filepath.Join("testdata", "fuzz", "*", "*"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range files {
		file, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(file)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			line := sc.Text()
			for _, p := range []string{"[]byte(", "string("} {
				if q, ok := strings.CutPrefix(line, p); ok {
					if s, err := strconv.Unquote(strings.TrimSuffix(q, ")")); err == nil {
						seeds = append(seeds, []byte(s))
					}
				}
			}
		}
		file.Close()
	}
	for _, s := range []string{
		`{"items":[],"kind":"Node","metadata":{"name":"n","labels":{"a":"` + strings.Repeat("x", 2000) + `"}}}`,
		`{"kind":"Node","metadata":{"name":"n","labels":{"a":"` + strings.Repeat("x", 2000) + `"}}}`,
		`{"apiVersion":"v1","kind":"List","items":[` + strings.Repeat(`{"kind":"Pod"},`, 200) + `{}]}`,
		`{"a":"` + strings.Repeat(`b\"`, 500),
		"\xEF\xBB\xBF \n\t" + `{"a":"` + strings.Repeat("b", 2000),
		`{"a":` + strings.Repeat(" \n", 1000),
		strings.Repeat(" \r\n\t", 1000),
		`{}` + "\n" + `{"a":"` + strings.Repeat("b", 2000),
		`{"a":"` + "\n...\n" + strings.Repeat("b", 2000),
		`{"a":"` + "x\n\x00" + strings.Repeat("b", 2000),
		"{items: [\n" + strings.Repeat("  {a: b},\n", 200) + "]}",
		"{'items': [" + strings.Repeat("{a: b}, ", 200) + "]}",
		"{a: '}', items : [" + strings.Repeat("x, ", 500) + "]}",
		`{"kind" : "List", "items" x: [` + strings.Repeat(`{}, `, 500) + "]}",
		"\u00a0{}", "{", "}", "{\"items\"", "{items", "{'items'", `{"item\s": [`,
	} {
		seeds = append(seeds, []byte(s))
	}
	return seeds
}
