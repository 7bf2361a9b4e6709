package manifest

import "bytes"

// decodeFast decodes an object that decodes without a problem as decodeValue would, without
// reading its identity first: the identity is taken from the decoded object. ok is false when
// the object's kind is not found at its start, or anything fails; decodeValue then reads it
// in its order, for the messages. Reading the identity first was a second scan of every
// object, a fifth of Read's CPU on kubectl -o json.
func (r reader) decodeFast(src Source, data []byte, itemKind string) (out []decoded, ok bool) {
	peekedAPIVersion, peekedKind := peekType(data)
	var apiVersion, kind string
	switch {
	case peekedAPIVersion == nil && peekedKind == nil && itemKind != "":
		apiVersion, kind = kinds[itemKind], itemKind
	default:
		kind = knownKind(peekedKind)
		apiVersion = kinds[kind]
		if kind == "" || string(peekedAPIVersion) != apiVersion {
			return nil, false
		}
	}
	if isListKind(kind) || len(data) > r.opts.Limits.ObjectBytes {
		return nil, false
	}
	obj := newObject(kind)
	if checkQuantities(data, obj, r.opts.Limits) != nil {
		return nil, false
	}
	unknown, err := decodeStrict(data, obj)
	if err != nil {
		return nil, false
	}
	// The object's own apiVersion and kind are the ones found at its start (none in a typed
	// list's item): neither is given again further on.
	gotAPIVersion, gotKind := obj.GetObjectKind().GroupVersionKind().ToAPIVersionAndKind()
	if gotKind != string(peekedKind) || gotAPIVersion != string(peekedAPIVersion) {
		return nil, false
	}
	tn := typeAndName{APIVersion: apiVersion, Kind: kind}
	tn.Metadata.Name, tn.Metadata.Namespace = obj.GetName(), obj.GetNamespace()
	d, err := r.checkIdentity(src, tn)
	if err != nil || tn.Metadata.Name == "" {
		return nil, false
	}
	d.unknown = unknown
	if err := r.finish(obj, tn); err != nil {
		return nil, false
	}
	d.invalid = validateObject(obj)
	if r.opts.Lean {
		r.lean(obj)
		// The identity keeps the object's strings, as decodeValue's does, but not the namespace
		// finish gave an object without one: the identity says what the input wrote (an
		// applied manifest without a namespace takes -n's, as kubectl apply -n).
		d.tn.Metadata.Name = obj.GetName()
		if d.tn.Metadata.Namespace != "" {
			d.tn.Metadata.Namespace = obj.GetNamespace()
		}
	}
	if ns := obj.GetNamespace(); ns == d.namespace {
		d.namespace = ns
	}
	d.obj, d.raw = obj, r.rawOf(kind, data)
	return []decoded{d}, true
}

// peekType returns the apiVersion and kind given as plain strings by the first members of a
// JSON object, as kubectl prints them; either is empty when not found there.
func peekType(data []byte) (apiVersion, kind []byte) {
	t := bytes.TrimLeft(data, " \t\r\n")
	if len(t) == 0 || t[0] != '{' {
		return nil, nil
	}
	t = t[1:]
	for range 2 {
		key, rest, ok := plainString(t)
		if !ok {
			break
		}
		if rest = bytes.TrimLeft(rest, " \t\r\n"); len(rest) == 0 || rest[0] != ':' {
			break
		}
		value, rest, ok := plainString(rest[1:])
		if !ok {
			break
		}
		switch string(key) {
		case "apiVersion":
			apiVersion = value
		case "kind":
			kind = value
		default:
			return apiVersion, kind
		}
		if rest = bytes.TrimLeft(rest, " \t\r\n"); len(rest) == 0 || rest[0] != ',' {
			break
		}
		t = rest[1:]
	}
	return apiVersion, kind
}

// knownKind returns the kind read that k spells, "" if none, without allocating.
func knownKind(k []byte) string {
	for kind := range kinds {
		if string(k) == kind {
			return kind
		}
	}
	return ""
}

// plainString reads a JSON string without escapes at the start of t (after spaces).
func plainString(t []byte) (s, rest []byte, ok bool) {
	t = bytes.TrimLeft(t, " \t\r\n")
	if len(t) == 0 || t[0] != '"' {
		return nil, nil, false
	}
	end := bytes.IndexByte(t[1:], '"')
	if end < 0 || bytes.IndexByte(t[1:1+end], '\\') >= 0 {
		return nil, nil, false
	}
	return t[1 : 1+end], t[2+end:], true
}
