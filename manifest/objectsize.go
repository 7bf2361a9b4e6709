package manifest

import (
	"bytes"
	"fmt"
)

// tooLarge is the error of a document or item at src larger than ObjectBytes, refused before
// it is parsed.
func (r reader) tooLarge(src Source) error {
	return fmt.Errorf("%v: %w", src, objectBytesError{r.objectTooLarge()})
}

// objectBytesError is the ObjectBytes limit worded.
type objectBytesError struct{ *LimitError }

func (e objectBytesError) Unwrap() error { return e.LimitError }

// listShaped reports whether a document, given by its first ObjectBytes bytes, may be a list:
// whether it has a top-level items key there. Only a list may be larger than ObjectBytes; any
// other document that is, whatever text it holds, is refused before it is parsed (a Node of
// 1,000 MB with the word "items" in it was parsed whole, 69.8 s and 4.1 GB; issue 25, F7).
// The streaming reader asks it of the same prefix, so both refuse the same documents.
func listShaped(prefix []byte) bool {
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
		return flowItemsKey(t)
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

// mayHoldItems reports whether a top-level items key whose value starts at t (the rest of its
// line on) may hold a list's items: a block sequence (nothing but a comment after the key), a
// flow sequence or mapping not closed on its line, an alias, anchor or tag. A value whole on its
// line (items: [], items: {}, items: null) holds no more than its line: the document's size
// is elsewhere, and it is refused as any object (`items: []` above a 1,000 MB label was held
// whole and parsed, 208 s and 5.9 GB).
func mayHoldItems(t []byte) bool {
	line, _, _ := bytes.Cut(t, []byte("\n"))
	line = bytes.TrimSpace(line)
	if i := bytes.Index(line, []byte(" #")); i >= 0 {
		line = bytes.TrimSpace(line[:i])
	}
	switch {
	case len(line) == 0 || line[0] == '#' || line[0] == '&' || line[0] == '*' || line[0] == '!':
		return true
	case line[0] == '[':
		return line[len(line)-1] != ']'
	case line[0] == '{':
		return line[len(line)-1] != '}'
	}
	return false
}

// flowItemsKey reports whether the JSON or YAML flow mapping that t starts holds an items key
// at its top level, within t.
func flowItemsKey(t []byte) bool {
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

// objectTooLarge words the ObjectBytes limit.
func (r reader) objectTooLarge() *LimitError {
	return limitError("ObjectBytes", "an object larger than "+byteSize(int64(r.opts.Limits.ObjectBytes)), "the API server's is 3 MiB")
}
