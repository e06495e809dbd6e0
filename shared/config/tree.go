package config

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/zero-gateway/zero/shared/fault"
)

// node is one JSON value. Objects keep their members in document order,
// which a Go map would lose (identityLinks and the model catalog need it).
type node struct {
	kind    nodeKind
	text    string // a string's value, a number's literal text
	boolean bool
	members []member // objects, in document order, duplicates included
	items   []*node  // lists
}

type member struct {
	key string
	val *node
}

type nodeKind int

const (
	nullNode nodeKind = iota
	objectNode
	listNode
	stringNode
	numberNode
	boolNode
)

// describe shows a value in an error message.
func (n *node) describe() string {
	switch n.kind {
	case objectNode:
		return "an object"
	case listNode:
		return "a list"
	case stringNode:
		return strconv.Quote(n.text)
	case numberNode:
		return n.text
	case boolNode:
		return strconv.FormatBool(n.boolean)
	}
	return "null"
}

// reader decodes a tree with key paths. The first error is kept and later
// ones are dropped, so decoding code reads straight through without error
// checks; Parse returns reader.err.
type reader struct {
	err      error
	warnings []string
}

func (r *reader) failf(path, format string, args ...any) {
	if r.err == nil {
		r.err = fault.New(fault.Invalid, "%s: %s", path, fmt.Sprintf(format, args...))
	}
}

func (r *reader) warnf(path, format string, args ...any) {
	r.warnings = append(r.warnings, path+": "+fmt.Sprintf(format, args...))
}

// plainKey reports whether key reads unambiguously after a dot:
// [A-Za-z0-9_$-]+.
func plainKey(key string) bool {
	for _, c := range []byte(key) {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '$' || c == '-') {
			return false
		}
	}
	return key != ""
}

// child is the path of key under path: a.b, or a["x/y"] for keys that
// would be ambiguous after a dot.
func child(path, key string) string {
	if !plainKey(key) {
		return path + "[" + strconv.Quote(key) + "]"
	}
	if path == "" {
		return key
	}
	return path + "." + key
}

func index(path string, i int) string { return path + "[" + strconv.Itoa(i) + "]" }

// object is an object being read. Fields taken with field are known; close
// warns about the others.
type object struct {
	r       *reader
	path    string
	given   bool     // the document has it (else it is read for its keys' defaults)
	members []member // deduplicated: first position, last value (as JavaScript)
	used    map[string]bool
}

// object opens n (nil or null: an empty object) at path.
func (r *reader) object(n *node, path string) *object {
	o := &object{r: r, path: path, used: map[string]bool{}}
	if n == nil || n.kind == nullNode {
		return o
	}
	o.given = true
	if n.kind != objectNode {
		r.failf(path, "must be an object, got %s", n.describe())
		return o
	}
	at := map[string]int{}
	for _, m := range n.members {
		if i, dup := at[m.key]; dup {
			r.warnf(child(path, m.key), "duplicate key, the last one wins")
			o.members[i].val = m.val
			continue
		}
		at[m.key] = len(o.members)
		o.members = append(o.members, m)
	}
	return o
}

// field returns the value of key (nil when absent or null) and its path.
func (o *object) field(key string) (*node, string) {
	o.used[key] = true
	p := child(o.path, key)
	for _, m := range o.members {
		if m.key == key {
			if m.val.kind == nullNode {
				return nil, p
			}
			return m.val, p
		}
	}
	return nil, p
}

// has reports whether key is present, even as null.
func (o *object) has(key string) bool {
	for _, m := range o.members {
		if m.key == key {
			return true
		}
	}
	return false
}

// entries returns every member except null ones, for objects used as maps
// (identityLinks, channels, ...); all keys count as known.
func (o *object) entries() []member {
	var out []member
	for _, m := range o.members {
		o.used[m.key] = true
		if m.val.kind != nullNode {
			out = append(out, m)
		}
	}
	return out
}

// close warns about every key no field call asked for.
func (o *object) close() {
	for _, m := range o.members {
		if !o.used[m.key] {
			o.r.warnf(child(o.path, m.key), "unknown key, ignored")
		}
	}
}

// list returns the items of n: nil when absent or null, non-nil when set.
func (r *reader) list(n *node, path string) []*node {
	if n == nil || n.kind == nullNode {
		return nil
	}
	if n.kind != listNode {
		r.failf(path, "must be a list, got %s", n.describe())
		return nil
	}
	if n.items == nil {
		return []*node{} // set, and empty: "allow: []" is not "no allow"
	}
	return n.items
}

// str returns n as a trimmed string.
func (r *reader) str(n *node, path string) string {
	if n.kind != stringNode {
		r.failf(path, "must be a string, got %s", n.describe())
		return ""
	}
	return strings.TrimSpace(n.text)
}

// name is a required string: trimmed, lower-cased, not empty.
func (r *reader) name(n *node, path string) string {
	s := strings.ToLower(r.str(n, path))
	if s == "" && n.kind == stringNode {
		r.failf(path, "must not be empty")
	}
	return s
}

// enum returns n lower-cased when it is one of allowed.
func (r *reader) enum(n *node, path string, allowed ...string) string {
	if n.kind == stringNode {
		s := strings.ToLower(strings.TrimSpace(n.text))
		for _, a := range allowed {
			if s == a {
				return s
			}
		}
	}
	r.failf(path, "must be one of %s, got %s", strings.Join(allowed, ", "), n.describe())
	return ""
}

// boolean returns n as a bool.
func (r *reader) boolean(n *node, path string) bool {
	if n.kind != boolNode {
		r.failf(path, "must be true or false, got %s", n.describe())
	}
	return n.boolean
}

// integer returns n when it is a whole number in [lo, hi]; want describes
// the range for the message ("an integer 0-23").
func (r *reader) integer(n *node, path string, lo, hi int, want string) int {
	if n.kind != numberNode {
		r.failf(path, "must be a number, got %s", n.describe())
		return 0
	}
	f, err := strconv.ParseFloat(n.text, 64)
	if err != nil || f != math.Trunc(f) || f < float64(lo) || f > float64(hi) {
		r.failf(path, "must be %s, got %s", want, n.text)
		return 0
	}
	return int(f)
}

// id returns a string or integer id, trimmed and lower-cased. Channel ids
// (Telegram chats) are often written as bare numbers.
func (r *reader) id(n *node, path string) string {
	switch n.kind {
	case stringNode:
		s := strings.ToLower(strings.TrimSpace(n.text))
		if s == "" {
			r.failf(path, "must not be empty")
		}
		return s
	case numberNode:
		if _, err := strconv.ParseInt(n.text, 10, 64); err != nil {
			r.failf(path, "must be a string or an integer id, got %s", n.text)
		}
		return n.text
	}
	r.failf(path, "must be a string or an integer id, got %s", n.describe())
	return ""
}
