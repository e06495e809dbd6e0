// Package files is group:fs's tools on the agent's workspace: read,
// write, edit and apply_patch. A run's file tools share one workspace
// session (SessionOf), so a write or edit is conditional on what the same
// run read.
package files

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	wsfiles "github.com/zero-gateway/zero/shared/files"
	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/tools"
	"github.com/zero-gateway/zero/shared/workspace"
)

// The tools' names.
const (
	ReadName       = "read"
	WriteName      = "write"
	EditName       = "edit"
	ApplyPatchName = "apply_patch"
)

// Store is the workspace storage with conditional writes (the runner's
// bucket; shared/files.Store).
type Store = wsfiles.Store

// callTimeout bounds one read, write, edit or apply_patch call.
const callTimeout = 20 * time.Second

// sessionKey is the key of a run's workspace session (tools.Shared).
type sessionKey struct{}

// SessionOf is the workspace session of run's agent over store, one per
// run: every file tool of the run gets the same one.
func SessionOf(run tools.Run, store Store) *wsfiles.Session {
	return tools.Shared(run, sessionKey{}, func() *wsfiles.Session {
		return wsfiles.NewSession(store, workspace.Prefix(run.AgentID))
	})
}

// call runs one file operation within callTimeout after decoding its
// arguments into a; the error names the tool and the expected shape.
func call[A any](ctx context.Context, name, shape string, raw json.RawMessage, run func(context.Context, A) (string, error)) (string, error) {
	var a A
	if err := json.Unmarshal(raw, &a); err != nil {
		return "", fmt.Errorf("the arguments must be %s: %v", shape, err)
	}
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	out, err := run(ctx, a)
	if err != nil {
		return "", fmt.Errorf("%s: %w", name, err)
	}
	return out, nil
}

// ReadTool is read: lines of a workspace text file.
type ReadTool struct{ s *wsfiles.Session }

// NewReadTool is read in s.
func NewReadTool(s *wsfiles.Session) ReadTool { return ReadTool{s} }

type readArgs struct {
	Path   string        `json:"path"`
	Offset *tools.Number `json:"offset"`
	Limit  *tools.Number `json:"limit"`
}

var readSchema = fmt.Sprintf(`{"type":"object","properties":{`+
	`"path":{"type":"string","description":"a path relative to the workspace, e.g. memory/2026-05-01.md"},`+
	`"offset":{"type":"integer","minimum":1,"description":"first line, 1-based (default 1)"},`+
	`"limit":{"type":"integer","minimum":1,"description":"how many lines (default %d)"}`+
	`},"required":["path"],"additionalProperties":false}`, wsfiles.DefaultReadLines)

// Spec implements tools.Tool.
func (ReadTool) Spec() model.ToolSpec {
	return model.ToolSpec{Name: ReadName, Schema: json.RawMessage(readSchema), Description: "Read a text file of your workspace by lines. " +
		"Read a file before you write or edit it: a change is refused if the file changed since you read it."}
}

// Run reads the lines, cut at files.MaxReadBytes (it says where to read on).
func (r ReadTool) Run(ctx context.Context, raw json.RawMessage) (string, error) {
	return call(ctx, ReadName, "{path: string, offset?: number, limit?: number}", raw, func(ctx context.Context, a readArgs) (string, error) {
		ex, err := r.s.Read(ctx, a.Path, tools.Clamp(a.Offset, 1, 1, 1<<30), tools.Clamp(a.Limit, wsfiles.DefaultReadLines, 1, 1<<30))
		if err != nil {
			return "", err
		}
		head := fmt.Sprintf("%s, lines %d-%d of %d:\n", ex.Path, ex.From, ex.To, ex.TotalLines)
		if ex.Truncated {
			return head + ex.Text + fmt.Sprintf("\n[cut at %d bytes; read on with offset=%d]", wsfiles.MaxReadBytes, ex.To+1), nil
		}
		return head + ex.Text, nil
	})
}

// WriteTool is write: create a workspace file, or replace one read in
// the run.
type WriteTool struct{ s *wsfiles.Session }

// NewWriteTool is write in s.
func NewWriteTool(s *wsfiles.Session) WriteTool { return WriteTool{s} }

// WriteArgs are write's arguments.
type WriteArgs struct {
	Path    string `json:"path"`
	Content string `json:"content"`
}

const writeSchema = `{"type":"object","properties":{` +
	`"path":{"type":"string","description":"a path relative to the workspace"},` +
	`"content":{"type":"string","description":"the whole new content (at most 1 MiB)"}` +
	`},"required":["path","content"],"additionalProperties":false}`

// Spec implements tools.Tool.
func (WriteTool) Spec() model.ToolSpec {
	return model.ToolSpec{Name: WriteName, Schema: json.RawMessage(writeSchema), Description: "Create a workspace file, or replace one you have read in this run. " +
		"Durable notes go to memory/YYYY-MM-DD.md or MEMORY.md."}
}

// Run writes the file (conditionally: see files.Session.Write).
func (w WriteTool) Run(ctx context.Context, raw json.RawMessage) (string, error) {
	return call(ctx, WriteName, "{path: string, content: string}", raw, func(ctx context.Context, a WriteArgs) (string, error) {
		res, err := w.s.Write(ctx, a.Path, a.Content)
		if err != nil {
			return "", err
		}
		verb := "Replaced"
		if res.Created {
			verb = "Created"
		}
		return fmt.Sprintf("%s %s (%d bytes).", verb, res.Path, res.Bytes), nil
	})
}

// EditTool is edit: replace one exact, unique occurrence in a file.
type EditTool struct{ s *wsfiles.Session }

// NewEditTool is edit in s.
func NewEditTool(s *wsfiles.Session) EditTool { return EditTool{s} }

// EditArgs are edit's arguments.
type EditArgs struct {
	Path    string `json:"path"`
	OldText string `json:"oldText"`
	NewText string `json:"newText"`
}

const editSchema = `{"type":"object","properties":{` +
	`"path":{"type":"string","description":"a path relative to the workspace"},` +
	`"oldText":{"type":"string","description":"text that occurs exactly once in the file, whitespace included"},` +
	`"newText":{"type":"string","description":"what replaces it"}` +
	`},"required":["path","oldText","newText"],"additionalProperties":false}`

// Spec implements tools.Tool.
func (EditTool) Spec() model.ToolSpec {
	return model.ToolSpec{Name: EditName, Schema: json.RawMessage(editSchema), Description: "Replace one exact, unique occurrence of oldText with newText in a workspace file."}
}

// Run edits the file (conditionally: see files.Session.Edit).
func (e EditTool) Run(ctx context.Context, raw json.RawMessage) (string, error) {
	return call(ctx, EditName, "{path: string, oldText: string, newText: string}", raw, func(ctx context.Context, a EditArgs) (string, error) {
		res, err := e.s.Edit(ctx, a.Path, a.OldText, a.NewText)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("Edited %s (%d bytes).", res.Path, res.Bytes), nil
	})
}

// ApplyPatchTool is apply_patch: a structured multi-file patch, applied
// whole or not at all.
type ApplyPatchTool struct{ s *wsfiles.Session }

// NewApplyPatchTool is apply_patch in s.
func NewApplyPatchTool(s *wsfiles.Session) ApplyPatchTool { return ApplyPatchTool{s} }

// PatchArgs are apply_patch's arguments.
type PatchArgs struct {
	Input string `json:"input"`
}

const applyPatchSchema = `{"type":"object","properties":{` +
	`"input":{"type":"string","description":"the patch: *** Begin Patch, then *** Add File: / *** Update File: (with @@ hunks of ' ', '-', '+' lines) / *** Delete File: sections, then *** End Patch"}` +
	`},"required":["input"],"additionalProperties":false}`

// Spec implements tools.Tool.
func (ApplyPatchTool) Spec() model.ToolSpec {
	return model.ToolSpec{Name: ApplyPatchName, Schema: json.RawMessage(applyPatchSchema), Description: "Apply a structured patch to one or more workspace files (multi-hunk edits, adds, deletes, renames with *** Move to:). " +
		"Nothing is written unless every file and hunk applies."}
}

// Run applies the patch (see files.Session.ApplyPatch).
func (ap ApplyPatchTool) Run(ctx context.Context, raw json.RawMessage) (string, error) {
	return call(ctx, ApplyPatchName, "{input: string}", raw, func(ctx context.Context, a PatchArgs) (string, error) {
		return ap.s.ApplyPatch(ctx, a.Input)
	})
}

// PatchPaths are the workspace paths a patch writes: each operation's
// path and, for a move, its destination.
func PatchPaths(a PatchArgs) ([]string, error) {
	ops, err := wsfiles.ParsePatch(a.Input)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, op := range ops {
		out = append(out, op.Path)
		if op.MoveTo != "" {
			out = append(out, op.MoveTo)
		}
	}
	return out, nil
}
