package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"

	"github.com/zero-gateway/zero/shared/config"
	"github.com/zero-gateway/zero/shared/fault"
)

// configGet returns the stored zero.json as written (JSON5, comments
// kept): {raw, version, warnings}. No stored document reads as raw "{}"
// and version "". warnings are config.Parse's; a stored document that
// does not validate (the functions then keep their last good config)
// gets its error as the first warning, prefixed "invalid: ".
//
// Store calls: 1 Config.Fetch.
func (g *gateway) configGet(ctx context.Context, params json.RawMessage) (any, error) {
	var p struct{}
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	raw, version, err := g.fetchConfig(ctx)
	if err != nil {
		return nil, err
	}
	warnings := []string{}
	if cfg, err := config.Parse(raw); err != nil {
		warnings = append(warnings, "invalid: "+fault.Message(err))
	} else {
		warnings = append(warnings, cfg.Warnings()...)
	}
	return ConfigGetResult{Raw: string(raw), Version: version, Warnings: warnings}, nil
}

// fetchConfig reads the stored document; a missing one is "{}", version "".
func (g *gateway) fetchConfig(ctx context.Context) ([]byte, string, error) {
	if g.Config == nil {
		return nil, "", missing("Config")
	}
	raw, version, err := g.Config.Fetch(ctx)
	if fault.Is(err, fault.NotFound) {
		return []byte("{}"), "", nil
	}
	return raw, version, err
}

// configPatch replaces or patches the stored zero.json: {version,
// warnings}.
//
//   - raw: a whole new JSON5 document, stored as written.
//   - patch: a JSON object applied as an RFC 7386 merge patch (null
//     deletes a key, objects merge, anything else replaces) to the
//     current document, read as JSON (a JSON5 document is converted with
//     config.ToJSON first, which drops its comments). The result is
//     stored as indented JSON with keys in lexical order.
//
// The new document is validated with config.Parse first: an invalid one
// is refused (400, the message names the key path) and nothing is
// stored. The running functions pick the new version up within their
// config TTL.
//
// There is no compare-and-set: two patches at the same moment may lose
// one (the config store's Put is unconditional).
//
// Store calls: raw: 1 Config.Put; patch: 1 Config.Fetch + 1 Config.Put.
func (g *gateway) configPatch(ctx context.Context, params json.RawMessage) (any, error) {
	var p ConfigPatchParams
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	hasPatch := len(p.Patch) > 0 && string(bytes.TrimSpace(p.Patch)) != "null"
	switch {
	case p.Raw == nil && !hasPatch:
		return nil, invalidf("params.raw: required (or params.patch)")
	case p.Raw != nil && hasPatch:
		return nil, invalidf("params.patch: give raw or patch, not both")
	}
	if g.Config == nil {
		return nil, missing("Config")
	}
	var doc []byte
	if p.Raw != nil {
		doc = []byte(*p.Raw)
	} else {
		patch, err := decodeJSON(p.Patch)
		if err != nil {
			return nil, invalidf("params.patch: not JSON: %v", err)
		}
		if _, ok := patch.(map[string]any); !ok {
			return nil, invalidf("params.patch: must be a JSON object")
		}
		current, _, err := g.fetchConfig(ctx)
		if err != nil {
			return nil, err
		}
		base, err := currentJSON(current)
		if err != nil {
			return nil, err
		}
		merged := mergePatch(base, patch)
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(merged); err != nil {
			return nil, fault.Wrap(fault.Internal, err, "encode the patched configuration")
		}
		doc = buf.Bytes()
	}
	cfg, err := config.Parse(doc)
	if err != nil {
		if fault.Is(err, fault.Invalid) {
			return nil, fault.Wrap(fault.Invalid, err, "%s", "invalid configuration: "+fault.Message(err))
		}
		return nil, err
	}
	version, err := g.Config.Put(ctx, doc)
	if err != nil {
		return nil, err
	}
	warnings := append([]string{}, cfg.Warnings()...)
	return ConfigPatchResult{Version: version, Warnings: warnings}, nil
}

// currentJSON reads the stored document as a JSON value: plain JSON as it
// is, JSON5 converted; an empty document (blanks and comments) is {}.
func currentJSON(doc []byte) (any, error) {
	js := doc
	if !json.Valid(doc) {
		if strings.TrimSpace(stripComments(doc)) == "" {
			return map[string]any{}, nil
		}
		var err error
		if js, err = config.ToJSON(doc); err != nil {
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

// schemaKeys is config.Schema as config.schema answers it: the table that
// also drives decoding and the defaults, so it cannot drift from them.
func schemaKeys() []SchemaKey {
	var keys []SchemaKey
	for _, k := range config.Schema() {
		keys = append(keys, SchemaKey{Path: k.Path, Type: k.Kind.Type, Default: k.Default, Required: k.Required, Description: k.Help})
	}
	return keys
}

// configSchema lists the keys ZERO reads from zero.json:
// {keys: [{path, type, default?, required?, description}]}, where
// "<name>" in a path stands for any key of a map and "[]" for a list's
// items. Other keys are accepted with a warning. No store call.
func (g *gateway) configSchema(ctx context.Context, params json.RawMessage) (any, error) {
	var p struct{}
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	return ConfigSchemaResult{Keys: schemaKeys()}, nil
}
