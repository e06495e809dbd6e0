package files

import (
	"context"
	"fmt"
	"strings"

	"github.com/zero-gateway/zero/shared/fault"
)

// change is one planned write or delete of a patch.
type change struct {
	mark    string // A, M or D, as upstream reports it
	path    string
	data    []byte
	ifMatch string // Put: "" creates; Delete: the ETag deleted
	remove  bool
}

// ApplyPatch parses input (the upstream format, see ParsePatch) and applies
// it. Every file is read and every hunk applied in memory first: a
// malformed patch, a hunk that does not match, a file changed since the run
// read it, or an added file that exists changes nothing. Then each write is
// conditional as in Write and Edit; if one of them loses a race, the files
// before it stay changed and the error says which. The summary lists
// "A path", "M path", "D path" per file.
func (s *Session) ApplyPatch(ctx context.Context, input string) (string, error) {
	ops, err := ParsePatch(input)
	if err != nil {
		return "", err
	}
	var plan []change
	for _, op := range ops {
		cs, err := s.plan(ctx, op)
		if err != nil {
			return "", err
		}
		plan = append(plan, cs...)
	}
	var done []string
	for _, c := range plan {
		if err := s.execute(ctx, c); err != nil {
			if len(done) > 0 {
				return "", fmt.Errorf("applied only part of the patch (%s): %w", strings.Join(done, ", "), err)
			}
			return "", err
		}
		done = append(done, c.mark+" "+c.path)
	}
	return "Success. Updated the following files:\n" + strings.Join(done, "\n"), nil
}

// plan turns one operation into its writes, reading what it changes.
func (s *Session) plan(ctx context.Context, op Op) ([]change, error) {
	path, err := writable(op.Path)
	if err != nil {
		return nil, err
	}
	switch op.Kind {
	case OpAdd:
		data := strings.Join(op.Lines, "\n")
		if len(op.Lines) > 0 {
			data += "\n"
		}
		if len(data) > MaxFileBytes {
			return nil, tooLarge(path, len(data))
		}
		return []change{{mark: "A", path: path, data: []byte(data)}}, nil
	case OpDelete:
		obj, err := s.fetch(ctx, path)
		if err != nil {
			return nil, err
		}
		return []change{{mark: "D", path: path, ifMatch: obj.ETag, remove: true}}, nil
	}
	obj, err := s.fetch(ctx, path)
	if err != nil {
		return nil, err
	}
	updated, err := applyHunks(path, string(obj.Data), op.Hunks)
	if err != nil {
		return nil, err
	}
	if len(updated) > MaxFileBytes {
		return nil, tooLarge(path, len(updated))
	}
	if op.MoveTo == "" {
		return []change{{mark: "M", path: path, data: []byte(updated), ifMatch: obj.ETag}}, nil
	}
	dest, err := writable(op.MoveTo)
	if err != nil {
		return nil, err
	}
	return []change{{mark: "A", path: dest, data: []byte(updated)}, {mark: "D", path: path, ifMatch: obj.ETag, remove: true}}, nil
}

// execute performs one planned change conditionally.
func (s *Session) execute(ctx context.Context, c change) error {
	if !c.remove {
		return s.put(ctx, c.path, c.data, c.ifMatch)
	}
	err := s.store.Delete(ctx, s.prefix+c.path, c.ifMatch)
	switch {
	case fault.Is(err, fault.Conflict), fault.Is(err, fault.NotFound):
		return changed(c.path, err)
	case err != nil:
		return describe(err, "delete %s", c.path)
	}
	s.remember(c.path, "")
	return nil
}
