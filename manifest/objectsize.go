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
		if bytes.HasPrefix(prefix, []byte(key)) || bytes.Contains(prefix, []byte("\n"+key)) {
			return true
		}
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
