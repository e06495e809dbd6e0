package files

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/zero-gateway/zero/shared/fault"
)

// MaxPathBytes bounds a workspace path (S3 keys stop at 1024 bytes, and the
// prefix needs room).
const MaxPathBytes = 512

// ReservedDir holds ZERO's own bookkeeping in a workspace (the memory
// flush's markers); the tools may not write there.
const ReservedDir = ".zero/"

// Clean checks a workspace path and returns it unchanged when it is
// acceptable: relative, '/'-separated, valid UTF-8 without control
// characters or backslashes, at most MaxPathBytes, with no empty, "." or
// ".." segment and no trailing slash. Anything else is fault.Invalid: a
// path never escapes the workspace prefix, and no two spellings name one
// file.
func Clean(path string) (string, error) {
	bad := func(why string) (string, error) {
		return "", fault.New(fault.Invalid, "invalid path %q: %s; use a relative path inside the workspace such as notes/todo.md", path, why)
	}
	switch {
	case path == "":
		return bad("empty")
	case len(path) > MaxPathBytes:
		return bad("longer than 512 bytes")
	case !utf8.ValidString(path):
		return bad("not valid UTF-8")
	case strings.HasPrefix(path, "/"):
		return bad("absolute")
	case strings.Contains(path, `\`):
		return bad("backslashes are not separators here")
	case strings.IndexFunc(path, unicode.IsControl) >= 0:
		return bad("control characters")
	}
	for _, seg := range strings.Split(path, "/") {
		switch seg {
		case "":
			return bad("empty segment (// or a trailing /)")
		case ".", "..":
			return bad(`"." and ".." segments are not allowed`)
		}
	}
	return path, nil
}

// writable checks path with Clean and refuses ZERO's reserved folder.
func writable(path string) (string, error) {
	p, err := Clean(path)
	if err != nil {
		return "", err
	}
	if strings.HasPrefix(p, ReservedDir) {
		return "", fault.New(fault.Invalid, "%s is in %s, which ZERO keeps for itself", p, ReservedDir)
	}
	return p, nil
}
