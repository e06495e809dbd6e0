package config

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"

	"github.com/zero-gateway/zero/shared/fault"
)

// currentJSON reads the stored document as a JSON value: plain JSON as it
// is, JSON5 converted; an empty document (blanks and comments) is {}.
func currentJSON(doc []byte) (any, error) {
	js := doc
	if !json.Valid(doc) {
		if strings.TrimSpace(stripComments(doc)) == "" {
			return map[string]any{}, nil
		}
		var err error
		if js, err = ToJSON(doc); err != nil {
			return nil, fault.Wrap(fault.Invalid, err, "the stored configuration is not valid JSON5 (%v); replace it with raw", err)
		}
	}
	v, err := decodeJSON(js)
	if err != nil {
		return nil, fault.Wrap(fault.Internal, err, "read the stored configuration")
	}
	return v, nil
}

// stripComments is doc without its // and /* */ comments, enough to tell
// an empty JSON5 document (which ToJSON refuses) from a broken one.
func stripComments(doc []byte) string {
	var b strings.Builder
	s := string(doc)
	for len(s) > 0 {
		switch {
		case strings.HasPrefix(s, "//"):
			if i := strings.IndexByte(s, '\n'); i >= 0 {
				s = s[i:]
			} else {
				s = ""
			}
		case strings.HasPrefix(s, "/*"):
			if i := strings.Index(s[2:], "*/"); i >= 0 {
				s = s[i+4:]
			} else {
				return s // unterminated: not empty
			}
		default:
			b.WriteByte(s[0])
			s = s[1:]
		}
	}
	return b.String()
}

// decodeJSON decodes one JSON value keeping numbers exact.
func decodeJSON(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// mergePatch applies patch to target as RFC 7386 specifies.
func mergePatch(target, patch any) any {
	p, ok := patch.(map[string]any)
	if !ok {
		return patch
	}
	t, ok := target.(map[string]any)
	if !ok {
		t = map[string]any{}
	}
	for k, v := range p {
		if v == nil {
			delete(t, k)
			continue
		}
		t[k] = mergePatch(t[k], v)
	}
	return t
}

// PatchDocument applies patch, a JSON object, as an RFC 7386 merge patch
// (null deletes a key, objects merge, anything else replaces) to current,
// the stored document read as JSON (JSON5 is converted with ToJSON,
// which drops its comments; an empty document is {}). The result is
// indented JSON with keys in lexical order. It is not validated (Parse).
// A patch that is not a JSON object is fault.Invalid "patch: ...".
func PatchDocument(current, patch []byte) ([]byte, error) {
	p, err := decodeJSON(patch)
	if err != nil {
		return nil, fault.New(fault.Invalid, "patch: not JSON: %v", err)
	}
	if _, ok := p.(map[string]any); !ok {
		return nil, fault.New(fault.Invalid, "patch: must be a JSON object")
	}
	base, err := currentJSON(current)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(mergePatch(base, p)); err != nil {
		return nil, fault.Wrap(fault.Internal, err, "encode the patched configuration")
	}
	return buf.Bytes(), nil
}

// DocumentStore is the stored zero.json (ssmparam.Parameter is one):
// Fetch answers a missing document with fault.NotFound; PutIfVersion
// writes only while the stored version is still version ("" : none is
// stored) and answers a lost race with fault.Conflict.
type DocumentStore interface {
	Fetch(ctx context.Context) (data []byte, version string, err error)
	Put(ctx context.Context, data []byte) (version string, err error)
	PutIfVersion(ctx context.Context, data []byte, version string) (string, error)
}

// patchTries is how often PatchStored re-reads and re-merges after
// another writer won the race.
const patchTries = 3

// FetchStored reads the stored document; a missing one is "{}", version "".
func FetchStored(ctx context.Context, s DocumentStore) ([]byte, string, error) {
	raw, version, err := s.Fetch(ctx)
	if fault.Is(err, fault.NotFound) {
		return []byte("{}"), "", nil
	}
	return raw, version, err
}

// PatchStored merges patch into the stored document (PatchDocument),
// validates the result (Parse) and writes it with compare-and-set on the
// version it read, so a concurrent writer's change is never lost: when
// another write wins, the patch is merged again onto that one, up to
// patchTries times, then the conflict is returned. An invalid result
// stores nothing and is fault.Invalid "invalid configuration: <key>: ...".
// It returns the new version and the parsed configuration.
//
// Store calls per try: 1 Fetch + 1 PutIfVersion.
func PatchStored(ctx context.Context, s DocumentStore, patch []byte) (string, *Config, error) {
	var err error
	for range patchTries {
		current, version, ferr := FetchStored(ctx, s)
		if ferr != nil {
			return "", nil, ferr
		}
		doc, perr := PatchDocument(current, patch)
		if perr != nil {
			return "", nil, perr
		}
		var v string
		var cfg *Config
		v, cfg, err = WriteStored(ctx, s, doc, &version)
		if !fault.Is(err, fault.Conflict) {
			return v, cfg, err
		}
	}
	return "", nil, err
}

// WriteStored validates doc (Parse) and stores it as written: only while
// the stored version is still *base when base is set (fault.Conflict
// otherwise), unconditionally when base is nil. An invalid doc stores
// nothing and is fault.Invalid "invalid configuration: <key>: ...".
func WriteStored(ctx context.Context, s DocumentStore, doc []byte, base *string) (string, *Config, error) {
	cfg, err := Parse(doc)
	if err != nil {
		if fault.Is(err, fault.Invalid) {
			return "", nil, fault.Wrap(fault.Invalid, err, "%s", "invalid configuration: "+fault.Message(err))
		}
		return "", nil, err
	}
	var version string
	if base != nil {
		version, err = s.PutIfVersion(ctx, doc, *base)
	} else {
		version, err = s.Put(ctx, doc)
	}
	if err != nil {
		return "", nil, err
	}
	return version, cfg, nil
}

// Check is what a stored document's readers show next to it: its parse
// error first ("invalid: ..."), else its warnings; never nil.
func Check(raw []byte) []string {
	cfg, err := Parse(raw)
	if err != nil {
		return []string{"invalid: " + fault.Message(err)}
	}
	return append([]string{}, cfg.Warnings()...)
}
