package automation

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/zero-gateway/zero/shared/config"
	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/tools"
)

// gatewayToolTimeout bounds one gateway tool call (an SSM read and a
// compare-and-set write, retried on a lost race).
const gatewayToolTimeout = 20 * time.Second

// nothingToRestart is the answer of restart and update.run.
const nothingToRestart = "Nothing to restart: ZERO runs serverless (Lambda functions), so there is no process to restart or update in place. " +
	"Configuration changes (config.apply, config.patch) are re-read by every function within its config TTL (30 s by default); " +
	"code updates are deployed with `sam deploy`, not from here."

// GatewayName is the gateway tool's name.
const GatewayName = "gateway"

// GatewayTool is gateway: the agent reads and changes the deployment's
// zero.json (the config parameter). It is offered only where the
// deployment has the config store and commands.restart enables it, and
// it obeys the tool policy like any other tool. Writes are validated
// first (an invalid document changes nothing) and use compare-and-set on
// the parameter version, so two writers never lose each other's change.
type GatewayTool struct {
	store config.DocumentStore
}

// NewGatewayTool is gateway over the stored zero.json in store.
func NewGatewayTool(store config.DocumentStore) GatewayTool { return GatewayTool{store: store} }

// gatewayArgs are the gateway tool's arguments.
type gatewayArgs struct {
	Action      string          `json:"action"`
	Raw         *string         `json:"raw"`
	Patch       json.RawMessage `json:"patch"`
	BaseVersion *string         `json:"baseVersion"`
	Prefix      string          `json:"prefix"`
	DelayMs     int             `json:"delayMs"` // accepted for upstream compatibility; nothing is delayed
	Note        string          `json:"note"`    // accepted for upstream compatibility
}

const gatewayToolSchema = `{"type":"object","properties":{` +
	`"action":{"type":"string","enum":["config.get","config.schema","config.apply","config.patch","restart","update.run"]},` +
	`"raw":{"type":"string","description":"config.apply: the whole new zero.json (JSON5)"},` +
	`"patch":{"type":"object","description":"config.patch: a JSON merge patch (RFC 7386; null deletes a key)"},` +
	`"baseVersion":{"type":"string","description":"config.apply/config.patch: write only if the stored version is still this one (from config.get)"},` +
	`"prefix":{"type":"string","description":"config.schema: only keys under this path, e.g. tools.web"},` +
	`"delayMs":{"type":"integer","minimum":0},"note":{"type":"string"}` +
	`},"required":["action"],"additionalProperties":false}`

// Spec implements tools.Tool.
func (g GatewayTool) Spec() model.ToolSpec {
	return model.ToolSpec{
		Name: GatewayName,
		Description: "Read and change this deployment's configuration (zero.json): config.get, config.schema, " +
			"config.apply (validate + write a whole document), config.patch (merge + validate + write). " +
			"restart and update.run: there is nothing to restart in a serverless deployment.",
		Schema: json.RawMessage(gatewayToolSchema),
	}
}

// Run performs one action within gatewayToolTimeout; a bad argument, an
// invalid document or a lost compare-and-set is a tool error naming it.
func (g GatewayTool) Run(ctx context.Context, raw json.RawMessage) (string, error) {
	var a gatewayArgs
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&a); err != nil {
		return "", fault.Wrap(fault.Invalid, err, "gateway: bad arguments (%v); see the tool schema", err)
	}
	ctx, cancel := context.WithTimeout(ctx, gatewayToolTimeout)
	defer cancel()
	var out any
	var err error
	switch a.Action {
	case "config.get":
		out, err = g.get(ctx)
	case "config.schema":
		return configSchemaText(a.Prefix), nil
	case "config.apply":
		out, err = g.apply(ctx, a)
	case "config.patch":
		out, err = g.patch(ctx, a)
	case "restart", "update.run":
		return nothingToRestart, nil
	default:
		return "", fault.New(fault.Invalid, "gateway: unknown action %q (config.get, config.schema, config.apply, config.patch, restart, update.run)", a.Action)
	}
	if err != nil {
		return "", fault.Wrap(fault.CodeOf(err), err, "gateway %s: %s", a.Action, fault.Message(err))
	}
	data, err := json.Marshal(out)
	if err != nil {
		return "", fault.Wrap(fault.Internal, err, "gateway: encoding the result")
	}
	return string(data), nil
}

// get is the stored document as written, its version and its warnings
// (an invalid one's error first, "invalid: ...").
func (g GatewayTool) get(ctx context.Context) (any, error) {
	raw, version, err := config.FetchStored(ctx, g.store)
	if err != nil {
		return nil, err
	}
	warnings := config.Check(raw)
	if len(raw) > tools.ResultBudget-1024 {
		return nil, fault.New(fault.Invalid, "the stored configuration is %d bytes, too large for a tool result", len(raw))
	}
	return map[string]any{"raw": string(raw), "version": version, "warnings": warnings}, nil
}

// apply validates and writes a whole document, with compare-and-set when
// baseVersion is given.
func (g GatewayTool) apply(ctx context.Context, a gatewayArgs) (any, error) {
	if a.Raw == nil {
		return nil, fault.New(fault.Invalid, "raw: required (the whole document)")
	}
	version, cfg, err := config.WriteStored(ctx, g.store, []byte(*a.Raw), a.BaseVersion)
	if err != nil {
		return nil, err
	}
	return written(version, cfg), nil
}

// patch merges, validates and writes: against baseVersion when given
// (a newer stored version is a conflict), else against the version read,
// merging again when another write wins the race.
func (g GatewayTool) patch(ctx context.Context, a gatewayArgs) (any, error) {
	if len(a.Patch) == 0 || string(a.Patch) == "null" {
		return nil, fault.New(fault.Invalid, "patch: required (a JSON object)")
	}
	if a.BaseVersion == nil {
		version, cfg, err := config.PatchStored(ctx, g.store, a.Patch)
		if err != nil {
			return nil, err
		}
		return written(version, cfg), nil
	}
	current, version, err := config.FetchStored(ctx, g.store)
	if err != nil {
		return nil, err
	}
	if version != *a.BaseVersion {
		return nil, fault.New(fault.Conflict, "the configuration is at version %q, not %q: read it again (config.get)", version, *a.BaseVersion)
	}
	doc, err := config.PatchDocument(current, a.Patch)
	if err != nil {
		return nil, err
	}
	version, cfg, err := config.WriteStored(ctx, g.store, doc, &version)
	if err != nil {
		return nil, err
	}
	return written(version, cfg), nil
}

// written is the answer of a write.
func written(version string, cfg *config.Config) map[string]any {
	return map[string]any{"version": version, "warnings": append([]string{}, cfg.Warnings()...),
		"note": "stored; every function reads it within its config TTL (nothing to restart)"}
}

// configSchemaText lists the keys ZERO reads under prefix, one line
// each, cut to the tool result budget.
func configSchemaText(prefix string) string {
	var b strings.Builder
	n := 0
	for _, k := range config.Schema() {
		if prefix != "" && k.Path != prefix && !strings.HasPrefix(k.Path, prefix+".") {
			continue
		}
		line := k.Path + " (" + k.Kind.Type
		if k.Default != nil {
			line += fmt.Sprintf(", default %v", k.Default)
		}
		line += "): " + k.Help + "\n"
		if b.Len()+len(line) > tools.ResultBudget-200 {
			b.WriteString("[… more keys: ask with a prefix, e.g. tools.web]\n")
			break
		}
		b.WriteString(line)
		n++
	}
	if n == 0 {
		return fmt.Sprintf("No configuration key under %q.", prefix)
	}
	return b.String()
}
