package manifest

import (
	"errors"
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kjson "sigs.k8s.io/json"
)

// list is a v1 List or a typed list (NodeList, ...) as kubectl and the API server print them.
// Its items stay slices of the input.
type list struct {
	APIVersion string          `json:"apiVersion"`
	Kind       string          `json:"kind"`
	Metadata   metav1.ListMeta `json:"metadata"`
	Items      []rawSpan       `json:"items"`
}

// rawSpan is a JSON value as a slice of the input, not a copy (json.RawMessage copies): a
// kubectl dump's items are most of it. The input is never modified.
type rawSpan []byte

func (r *rawSpan) UnmarshalJSON(data []byte) error {
	*r = data
	return nil
}

// decodeListValue decodes a list and its items (in parallel); isList is false when data is not
// a list.
func (r reader) decodeListValue(src Source, data []byte) (out []decoded, isList bool, err error) {
	head, itemKind, items, isList, err := r.decodeList(src, data)
	if err != nil || !isList {
		return nil, isList, err
	}
	if err := r.count(len(items)); err != nil {
		return nil, true, err
	}
	out, err = r.decodeItems(head, len(items), func(i int, itemSrc Source) ([]decoded, error) {
		if len(items[i]) > r.opts.Limits.ObjectBytes {
			return nil, r.tooLarge(itemSrc) // before it is parsed, as the streaming reader refuses it
		}
		return r.decodeValue(itemSrc, items[i], itemKind)
	})
	return out, true, err
}

// decodeItems decodes the n items of the list head in parallel with item, and returns the head
// and the items' objects in order, or the first error in order.
func (r reader) decodeItems(head decoded, n int, item func(i int, src Source) ([]decoded, error)) ([]decoded, error) {
	// An item is one object (a list inside a list is an error): out holds them in place,
	// without a slice per item to concatenate, which for 250,000 tiny items was a third of
	// the reader's memory.
	out := make([]decoded, n+1)
	out[0] = head
	errs := make([]error, n)
	r.forEach(n, func(i int) {
		itemSrc := head.src
		itemSrc.Item = i
		res, err := item(i, itemSrc)
		switch {
		case err != nil:
			errs[i] = err
		case len(res) != 1:
			errs[i] = fmt.Errorf("%v: not one object", itemSrc) // never: decodeValue refuses nested lists
		default:
			out[i+1] = res[0]
		}
	})
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// decodeList decodes a list's own fields in one pass over data, keeping its items as slices,
// and returns the kind a typed list gives them. isList is false (and err nil) when data is
// valid JSON but not a list of a kind that is read.
func (r reader) decodeList(src Source, data []byte) (head decoded, itemKind string, items []rawSpan, isList bool, err error) {
	var l list
	strictErrs, err := kjson.UnmarshalStrict(data, &l)
	if err != nil {
		// Read the identity on its own for the message.
		d, ierr := r.identify(src, data, "")
		switch {
		case ierr != nil:
			return decoded{}, "", nil, false, ierr
		case !isListKind(d.tn.Kind):
			return decoded{}, "", nil, false, nil
		}
		return decoded{}, "", nil, false, fmt.Errorf("%s: %w", d.where(), decodeError(err))
	}
	if !isListKind(l.Kind) {
		return decoded{}, "", nil, false, nil
	}
	head, err = r.checkIdentity(src, typeAndName{APIVersion: l.APIVersion, Kind: l.Kind})
	if err != nil {
		return decoded{}, "", nil, false, err
	}
	if head.unknown, err = fieldErrors(strictErrs); err != nil {
		return decoded{}, "", nil, false, fmt.Errorf("%s: %w", head.where(), err)
	}
	if l.Kind != "List" {
		itemKind = strings.TrimSuffix(l.Kind, "List")
	}
	return head, itemKind, l.Items, true, nil
}

// errNotAList is decodeYAMLList's error when the document is shaped as a list but is not one.
var errNotAList = errors.New("not a list")
