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
	return ConfigGetResult{Raw: string(raw), Version: version, Warnings: config.Check(raw)}, nil
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
//   - patch: a JSON object applied as an RFC 7386 merge patch
//     (config.PatchDocument) to the current document. The result is
//     stored as indented JSON with keys in lexical order, with
//     compare-and-set on the version read where the store offers it
//     (ssmparam.Parameter does): a patch racing another write is merged
//     again onto that write, so neither change is lost
//     (config.PatchStored).
//
// The new document is validated with config.Parse first: an invalid one
// is refused (400, the message names the key path) and nothing is
// stored. The running functions pick the new version up within their
// config TTL.
//
// Store calls: raw: 1 Config.Put; patch: 1 Config.Fetch + 1 write (with
// compare-and-set: PutIfVersion, 2 SSM calls), again on a lost race.
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
	store := documentStore(g.Config)
	var version string
	var cfg *config.Config
	var err error
	if p.Raw != nil {
		version, cfg, err = config.WriteStored(ctx, store, []byte(*p.Raw), nil)
	} else {
		version, cfg, err = config.PatchStored(ctx, store, p.Patch)
	}
	if err != nil && strings.HasPrefix(fault.Message(err), "patch: ") {
		return nil, paramsPrefix(err) // the patch param itself is bad
	}
	if err != nil {
		return nil, err
	}
	warnings := append([]string{}, cfg.Warnings()...)
	return ConfigPatchResult{Version: version, Warnings: warnings}, nil
}

// documentStore is s with compare-and-set where it offers it, else with
// unconditional writes.
func documentStore(s ConfigStore) config.DocumentStore {
	if d, ok := s.(config.DocumentStore); ok {
		return d
	}
	return unconditional{s}
}

// unconditional is a ConfigStore without compare-and-set: PutIfVersion
// writes whatever is stored.
type unconditional struct{ ConfigStore }

func (u unconditional) PutIfVersion(ctx context.Context, data []byte, _ string) (string, error) {
	return u.Put(ctx, data)
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
