package files

import (
	"strings"

	"github.com/zero-gateway/zero/shared/fault"
)

// The upstream apply_patch format:
//
//	*** Begin Patch
//	*** Add File: notes/new.md
//	+every line of the new file, each prefixed with +
//	*** Update File: notes/todo.md
//	*** Move to: notes/done.md        (optional: rename)
//	@@ ## Today                        (optional: a line to find first)
//	 context line
//	-removed line
//	+added line
//	*** End of File                    (optional: the hunk ends the file)
//	*** Delete File: scratch/old.md
//	*** End Patch
const (
	beginPatch = "*** Begin Patch"
	endPatch   = "*** End Patch"
	addFile    = "*** Add File: "
	updateFile = "*** Update File: "
	deleteFile = "*** Delete File: "
	moveTo     = "*** Move to: "
	endOfFile  = "*** End of File"
)

// OpKind is what a patch does to one file.
type OpKind string

const (
	OpAdd    OpKind = "add"
	OpUpdate OpKind = "update"
	OpDelete OpKind = "delete"
)

// Op is one file operation of a patch.
type Op struct {
	Kind   OpKind
	Path   string
	MoveTo string   // update only: the new path, or ""
	Lines  []string // add only: the new file's lines
	Hunks  []Hunk   // update only
}

// Hunk is one @@ section of an update: Old lines (context and removals)
// are replaced by New lines (context and additions).
type Hunk struct {
	Anchor string // the @@ line's text: found first, the hunk matches after it
	Old    []string
	New    []string
	AtEOF  bool // *** End of File: Old must end the file
}

// ParsePatch parses input in the upstream format. Any line it does not
// understand is a fault.Invalid error naming the line, so a malformed
// patch changes nothing.
func ParsePatch(input string) ([]Op, error) {
	if len(input) > MaxPatchBytes {
		return nil, fault.New(fault.Invalid, "the patch is %d bytes; at most %d", len(input), MaxPatchBytes)
	}
	lines := strings.Split(strings.ReplaceAll(strings.TrimSpace(input), "\r\n", "\n"), "\n")
	if len(lines) < 2 || strings.TrimSpace(lines[0]) != beginPatch || strings.TrimSpace(lines[len(lines)-1]) != endPatch {
		return nil, fault.New(fault.Invalid, "a patch starts with %q and ends with %q", beginPatch, endPatch)
	}
	var ops []Op
	body := lines[1 : len(lines)-1]
	for i := 0; i < len(body); {
		op, next, err := parseOp(body, i)
		if err != nil {
			return nil, err
		}
		ops = append(ops, op)
		i = next
	}
	if len(ops) == 0 {
		return nil, fault.New(fault.Invalid, "the patch changes no file")
	}
	if len(ops) > MaxPatchFiles {
		return nil, fault.New(fault.Invalid, "the patch touches %d files; at most %d", len(ops), MaxPatchFiles)
	}
	return ops, nil
}

// parseOp parses the file operation starting at body[i] and returns the
// index of the line after it.
func parseOp(body []string, i int) (Op, int, error) {
	line := body[i]
	bad := func(n int, why string) (Op, int, error) {
		return Op{}, 0, fault.New(fault.Invalid, "patch line %d %q: %s", n+2, body[n], why)
	}
	switch {
	case strings.HasPrefix(line, addFile):
		op := Op{Kind: OpAdd, Path: strings.TrimSpace(strings.TrimPrefix(line, addFile))}
		j := i + 1
		for ; j < len(body) && !strings.HasPrefix(body[j], "*** "); j++ {
			if !strings.HasPrefix(body[j], "+") {
				return bad(j, "every line of an added file starts with +")
			}
			op.Lines = append(op.Lines, body[j][1:])
		}
		return op, j, nil
	case strings.HasPrefix(line, deleteFile):
		return Op{Kind: OpDelete, Path: strings.TrimSpace(strings.TrimPrefix(line, deleteFile))}, i + 1, nil
	case strings.HasPrefix(line, updateFile):
		op := Op{Kind: OpUpdate, Path: strings.TrimSpace(strings.TrimPrefix(line, updateFile))}
		j := i + 1
		if j < len(body) && strings.HasPrefix(body[j], moveTo) {
			op.MoveTo = strings.TrimSpace(strings.TrimPrefix(body[j], moveTo))
			j++
		}
		hunks, next, errAt, why := parseHunks(body, j)
		if why != "" {
			return bad(errAt, why)
		}
		if len(hunks) == 0 && op.MoveTo == "" {
			return bad(i, "an update needs at least one @@ hunk")
		}
		op.Hunks = hunks
		return op, next, nil
	}
	return bad(i, "expected *** Add File:, *** Update File: or *** Delete File:")
}

// parseHunks parses the hunks of an update from body[j]; on a bad line it
// returns its index and why.
func parseHunks(body []string, j int) ([]Hunk, int, int, string) {
	var hunks []Hunk
	var h *Hunk
	for ; j < len(body); j++ {
		line := body[j]
		switch {
		case line == endOfFile:
			if h == nil {
				return nil, 0, j, "*** End of File outside a hunk"
			}
			h.AtEOF = true
		case strings.HasPrefix(line, "*** "):
			return hunks, j, 0, ""
		case strings.HasPrefix(line, "@@"):
			hunks = append(hunks, Hunk{Anchor: strings.TrimSpace(strings.TrimPrefix(line, "@@"))})
			h = &hunks[len(hunks)-1]
		case h == nil && len(hunks) == 0:
			// Upstream lets the first hunk omit its @@ line.
			hunks = append(hunks, Hunk{})
			h = &hunks[0]
			j--
		case line == "" || line[0] == ' ':
			text := strings.TrimPrefix(line, " ")
			h.Old, h.New = append(h.Old, text), append(h.New, text)
		case line[0] == '-':
			h.Old = append(h.Old, line[1:])
		case line[0] == '+':
			h.New = append(h.New, line[1:])
		default:
			return nil, 0, j, "a hunk line starts with ' ', '-' or '+'"
		}
	}
	return hunks, j, 0, ""
}

// applyHunks returns content with hunks applied in order, each matched
// after the previous one: exactly first, then ignoring trailing
// whitespace. A hunk whose lines are not found is fault.Invalid.
func applyHunks(path, content string, hunks []Hunk) (string, error) {
	out, _, err := patchLines(path, content, hunks)
	return out, err
}

// patchLines is applyHunks, also returning the matcher's steps. Every
// hunk is found after the previous one's Old lines, so all are found in
// the original lines and the result is built once: the work is linear in
// the file and the patch (see matcher), never their product.
func patchLines(path, content string, hunks []Hunk) (string, int, error) {
	lines := splitLines(content)
	m := newMatcher(lines)
	var out []string
	at := 0 // lines before at are settled: copied to out or replaced
	for n, h := range hunks {
		if h.Anchor != "" {
			i, err := m.find([]string{h.Anchor}, at, false)
			if err != nil {
				return "", m.steps, err
			}
			if i < 0 {
				return "", m.steps, fault.New(fault.Invalid, "hunk %d of %s: the @@ line %q was not found; read the file again", n+1, path, h.Anchor)
			}
			out, at = append(out, lines[at:i+1]...), i+1
		}
		i, err := m.find(h.Old, at, h.AtEOF)
		if err != nil {
			return "", m.steps, err
		}
		if i < 0 {
			return "", m.steps, fault.New(fault.Invalid, "hunk %d of %s: its context and - lines were not found; read the file again", n+1, path)
		}
		out = append(append(out, lines[at:i]...), h.New...)
		at = i + len(h.Old)
	}
	out = append(out, lines[at:]...)
	if len(out) == 0 {
		return "", m.steps, nil
	}
	return strings.Join(out, "\n") + "\n", m.steps, nil
}
