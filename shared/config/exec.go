package config

// ToolsExec is tools.exec. Only ApplyPatch is read today: exec itself is
// not offered (docs/roadmap.md).
type ToolsExec struct {
	ApplyPatch ToolsExecApplyPatch
}

// ToolsExecApplyPatch is tools.exec.applyPatch: apply_patch is offered
// only when Enabled (default false), and only to OpenAI models, as
// upstream ("experimental").
type ToolsExecApplyPatch struct {
	Enabled bool
}

// toolExecKeys are tools.exec: apply_patch's enablement.
func toolExecKeys() []Key {
	return []Key{
		{Path: "tools.exec", Kind: objectKind, Help: "exec settings (only applyPatch is used)",
			open: into(func(t *Tools, _ Value) *ToolsExec { return &t.Exec })},
		{Path: "tools.exec.applyPatch", Kind: objectKind, Help: "apply_patch (multi-hunk edits of workspace files)",
			open: into(func(e *ToolsExec, _ Value) *ToolsExecApplyPatch { return &e.ApplyPatch })},
		{Path: "tools.exec.applyPatch.enabled", Kind: boolKind, Default: false, Help: "offer apply_patch to OpenAI models (default false)",
			set: on(func(a *ToolsExecApplyPatch, v Value) { a.Enabled = v.Bool() })},
	}
}
