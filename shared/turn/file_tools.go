package turn

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/zero-gateway/zero/shared/agent"
	"github.com/zero-gateway/zero/shared/config"
	"github.com/zero-gateway/zero/shared/files"
	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/workspace"
)

// fileCallTimeout bounds one read, write, edit or apply_patch call.
const fileCallTimeout = 20 * time.Second

// fileTools are read, write and edit on the agent's workspace, and
// apply_patch when tools.exec.applyPatch.enabled is set and the model is
// an OpenAI one (upstream: experimental, OpenAI models only). They share
// one files.Session, so a write is conditional on what this run read.
// None without p.Files.
func (p *Processor) fileTools(cfg *config.Config, agentID string, ref model.Ref) []agent.Tool {
	if p.Files == nil {
		return nil
	}
	if cfg == nil {
		cfg = config.Default()
	}
	s := files.NewSession(p.Files, workspace.Prefix(agentID))
	out := []agent.Tool{readTool{s}, writeTool{s}, editTool{s}}
	if cfg.Tools.Exec.ApplyPatch.Enabled && strings.HasPrefix(ref.Provider, "openai") {
		out = append(out, applyPatchTool{s})
	}
	return out
}

// callFile runs one file operation within fileCallTimeout after decoding
// its arguments into a; the error names the tool and the expected shape.
func callFile[A any](ctx context.Context, name, shape string, raw json.RawMessage, run func(context.Context, A) (string, error)) (string, error) {
	var a A
	if err := json.Unmarshal(raw, &a); err != nil {
		return "", fmt.Errorf("the arguments must be %s: %v", shape, err)
	}
	ctx, cancel := context.WithTimeout(ctx, fileCallTimeout)
	defer cancel()
	out, err := run(ctx, a)
	if err != nil {
		return "", fmt.Errorf("%s: %w", name, err)
	}
	return out, nil
}

type readTool struct{ s *files.Session }

type readArgs struct {
	Path   string  `json:"path"`
	Offset *number `json:"offset"`
	Limit  *number `json:"limit"`
}

var readSchema = fmt.Sprintf(`{"type":"object","properties":{`+
	`"path":{"type":"string","description":"a path relative to the workspace, e.g. memory/2026-05-01.md"},`+
	`"offset":{"type":"integer","minimum":1,"description":"first line, 1-based (default 1)"},`+
	`"limit":{"type":"integer","minimum":1,"description":"how many lines (default %d)"}`+
	`},"required":["path"],"additionalProperties":false}`, files.DefaultReadLines)

func (readTool) Spec() model.ToolSpec {
	return model.ToolSpec{Name: "read", Schema: json.RawMessage(readSchema), Description: "Read a text file of your workspace by lines. " +
		"Read a file before you write or edit it: a change is refused if the file changed since you read it."}
}

func (r readTool) Run(ctx context.Context, raw json.RawMessage) (string, error) {
	return callFile(ctx, "read", "{path: string, offset?: number, limit?: number}", raw, func(ctx context.Context, a readArgs) (string, error) {
		ex, err := r.s.Read(ctx, a.Path, clamp(a.Offset, 1, 1, 1<<30), clamp(a.Limit, files.DefaultReadLines, 1, 1<<30))
		if err != nil {
			return "", err
		}
		head := fmt.Sprintf("%s, lines %d-%d of %d:\n", ex.Path, ex.From, ex.To, ex.TotalLines)
		if ex.Truncated {
			return head + ex.Text + fmt.Sprintf("\n[cut at %d bytes; read on with offset=%d]", files.MaxReadBytes, ex.To+1), nil
		}
		return head + ex.Text, nil
	})
}

type writeTool struct{ s *files.Session }

type writeArgs struct {
	Path    string `json:"path"`
	Content string `json:"content"`
}

const writeSchema = `{"type":"object","properties":{` +
	`"path":{"type":"string","description":"a path relative to the workspace"},` +
	`"content":{"type":"string","description":"the whole new content (at most 1 MiB)"}` +
	`},"required":["path","content"],"additionalProperties":false}`

func (writeTool) Spec() model.ToolSpec {
	return model.ToolSpec{Name: "write", Schema: json.RawMessage(writeSchema), Description: "Create a workspace file, or replace one you have read in this run. " +
		"Durable notes go to memory/YYYY-MM-DD.md or MEMORY.md."}
}

func (w writeTool) Run(ctx context.Context, raw json.RawMessage) (string, error) {
	return callFile(ctx, "write", "{path: string, content: string}", raw, func(ctx context.Context, a writeArgs) (string, error) {
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

type editTool struct{ s *files.Session }

type editArgs struct {
	Path    string `json:"path"`
	OldText string `json:"oldText"`
	NewText string `json:"newText"`
}

const editSchema = `{"type":"object","properties":{` +
	`"path":{"type":"string","description":"a path relative to the workspace"},` +
	`"oldText":{"type":"string","description":"text that occurs exactly once in the file, whitespace included"},` +
	`"newText":{"type":"string","description":"what replaces it"}` +
	`},"required":["path","oldText","newText"],"additionalProperties":false}`

func (editTool) Spec() model.ToolSpec {
	return model.ToolSpec{Name: "edit", Schema: json.RawMessage(editSchema), Description: "Replace one exact, unique occurrence of oldText with newText in a workspace file."}
}

func (e editTool) Run(ctx context.Context, raw json.RawMessage) (string, error) {
	return callFile(ctx, "edit", "{path: string, oldText: string, newText: string}", raw, func(ctx context.Context, a editArgs) (string, error) {
		res, err := e.s.Edit(ctx, a.Path, a.OldText, a.NewText)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("Edited %s (%d bytes).", res.Path, res.Bytes), nil
	})
}

type applyPatchTool struct{ s *files.Session }

type applyPatchArgs struct {
	Input string `json:"input"`
}

const applyPatchSchema = `{"type":"object","properties":{` +
	`"input":{"type":"string","description":"the patch: *** Begin Patch, then *** Add File: / *** Update File: (with @@ hunks of ' ', '-', '+' lines) / *** Delete File: sections, then *** End Patch"}` +
	`},"required":["input"],"additionalProperties":false}`

func (applyPatchTool) Spec() model.ToolSpec {
	return model.ToolSpec{Name: "apply_patch", Schema: json.RawMessage(applyPatchSchema), Description: "Apply a structured patch to one or more workspace files (multi-hunk edits, adds, deletes, renames with *** Move to:). " +
		"Nothing is written unless every file and hunk applies."}
}

func (ap applyPatchTool) Run(ctx context.Context, raw json.RawMessage) (string, error) {
	return callFile(ctx, "apply_patch", "{input: string}", raw, func(ctx context.Context, a applyPatchArgs) (string, error) {
		return ap.s.ApplyPatch(ctx, a.Input)
	})
}
