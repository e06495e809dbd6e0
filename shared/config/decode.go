package config

import (
	"strings"
	"time"

	"github.com/zero-gateway/zero/shared/model"
)

// rows is the table by parent path: the keys of each object in table
// order, and the one entry or item row of each map and list.
var rows = func() map[string][]*Key {
	m := map[string][]*Key{}
	for i := range table {
		parent, _ := splitPath(table[i].Path)
		m[parent] = append(m[parent], &table[i])
	}
	return m
}()

// splitPath splits a table path into its parent's path and its own name:
// "a.b.c" → "a.b", "c"; "a.list[]" → "a.list", "[]".
func splitPath(path string) (parent, name string) {
	if p, ok := strings.CutSuffix(path, "[]"); ok {
		return p, "[]"
	}
	if i := strings.LastIndexByte(path, '.'); i >= 0 {
		return path[:i], path[i+1:]
	}
	return "", path
}

// decoder walks a document along the table.
type decoder struct {
	r     *reader
	given map[string]bool           // the paths the document sets
	read  func(k *Key, path string) // tests: called for every key read from the document
}

// decode reads the whole document (nil: empty) into a Config.
func decode(root *node, read func(k *Key, path string)) (*Config, []string, error) {
	d := &decoder{r: &reader{}, given: map[string]bool{}, read: read}
	c := &Config{Channels: map[string]Channel{}, Messages: Messages{Queue: Queue{ByChannel: map[string]string{}}}}
	if root == nil {
		root = &node{kind: objectNode}
	}
	if root.kind != objectNode {
		d.r.failf("zero.json", "the document must be an object, got %s", root.describe())
		return nil, nil, d.r.err
	}
	top := d.r.object(root, "")
	for _, k := range rows[""] { // top-level unknown keys first, then section by section
		_, name := splitPath(k.Path)
		top.used[name] = true
	}
	top.close()
	d.members("", top, c)
	if d.r.err == nil {
		resolveTimeZone(c, Value{d: d})
		warnSharedMain(c, d.r)
	}
	return c, d.r.warnings, d.r.err
}

// members reads the keys of o, an object of the table path pattern.
func (d *decoder) members(pattern string, o *object, dst any) {
	for _, k := range rows[pattern] {
		_, name := splitPath(k.Path)
		n, path := o.field(name)
		if n == nil && k.Kind.null && o.has(name) {
			n = &node{kind: nullNode}
		}
		if n == nil && k.Required && o.given {
			d.r.failf(path, "required%s", parenthesize(k.Kind.hint))
			return
		}
		d.key(k, n, Value{Path: path, up: o.path}, dst)
		if d.r.err != nil {
			return
		}
	}
}

// key reads n, the value of k at v.Path (nil: absent), into dst.
func (d *decoder) key(k *Key, n *node, v Value, dst any) {
	if n != nil && n.kind == nullNode && !k.Kind.null {
		n = nil // null is absent
	}
	v.d, v.given = d, n != nil
	if n != nil {
		d.given[v.Path] = true
		if d.read != nil {
			d.read(k, v.Path)
		}
	}
	switch {
	case k.Kind.shape == scalarShape || k.Kind.read != nil && n != nil && n.kind != objectNode:
		d.scalar(k, n, v, dst)
	case k.Kind.shape == objectShape:
		d.object(k, n, v, dst)
	default:
		d.collection(k, n, v, dst)
	}
}

func (d *decoder) scalar(k *Key, n *node, v Value, dst any) {
	if n == nil {
		if k.Default == nil {
			return
		}
		n = defaultNode(k.Default)
	}
	v.val = k.Kind.read(d.r, n, v.Path)
	if d.r.err != nil || k.set == nil {
		return
	}
	if k.open != nil {
		dst = k.open(dst, v)
	}
	k.set(dst, v)
}

// object reads a fixed object: its keys, then k's checks, then warnings
// for keys the table does not have. An absent object is read too, so
// its keys take their defaults.
func (d *decoder) object(k *Key, n *node, v Value, parent any) {
	own := d.open(k, parent, v)
	if own == nil || d.r.err != nil {
		return
	}
	o := d.r.object(n, v.Path)
	if d.r.err != nil {
		return
	}
	v.obj = o
	d.members(k.Path, o, own)
	if k.close != nil && d.r.err == nil {
		k.close(parent, own, v)
	}
	o.close()
}

// collection reads a map's entries or a list's items with the one row
// under k.
func (d *decoder) collection(k *Key, n *node, v Value, parent any) {
	own := d.open(k, parent, v)
	if own == nil {
		return
	}
	item := rows[k.Path][0]
	if k.Kind.shape == mapShape {
		o := d.r.object(n, v.Path)
		for _, m := range o.entries() {
			d.key(item, m.val, Value{Path: child(v.Path, m.key), key: m.key, up: v.Path}, own)
			if d.r.err != nil {
				return
			}
		}
	} else {
		for i, it := range d.r.list(n, v.Path) {
			if it.kind == nullNode {
				it = &node{kind: objectNode} // a null item is there: its required keys are missing
			}
			d.key(item, it, Value{Path: index(v.Path, i), index: i, up: v.Path}, own)
			if d.r.err != nil {
				return
			}
		}
	}
	if k.close != nil && d.r.err == nil {
		k.close(parent, own, v)
	}
}

func (d *decoder) open(k *Key, parent any, v Value) any {
	if k.open == nil || d.r.err != nil {
		return parent
	}
	return k.open(parent, v)
}

func parenthesize(s string) string {
	if s == "" {
		return ""
	}
	return " (" + s + ")"
}

// on, into and after type the hooks of a row: set on the object's Go
// value, open one (into), check and store one after its keys are read.
func on[T any](set func(*T, Value)) func(any, Value) {
	return func(dst any, v Value) { set(dst.(*T), v) }
}

func into[P, T any](open func(*P, Value) *T) func(any, Value) any {
	return func(dst any, v Value) any {
		if t := open(dst.(*P), v); t != nil {
			return t
		}
		return nil
	}
}

func after[P, T any](close func(*P, *T, Value)) func(any, any, Value) {
	return func(dst, own any, v Value) { close(dst.(*P), own.(*T), v) }
}

// Value is a key being read: where it is and, for scalars, its value.
type Value struct {
	Path  string // "agents.list[2].id"
	up    string // the path of the object, map or list it is in
	key   string // a map entry's key as written
	index int    // a list item's index
	given bool
	val   any
	obj   *object // an object's members
	d     *decoder
}

// Given reports whether the document sets the key (else it takes its
// default, or is an absent object read for its keys' defaults).
func (v Value) Given() bool { return v.given }

// Present reports whether the document sets the key at path.
func (v Value) Present(path string) bool { return v.d.given[path] }

// Key is a map entry's key as written; Index a list item's index.
func (v Value) Key() string { return v.key }
func (v Value) Index() int  { return v.index }

// Child is key name inside v, for messages about it.
func (v Value) Child(name string) Value { v.Path = child(v.Path, name); return v }

// Item is item i of v, for messages about it.
func (v Value) Item(i int) Value { v.Path = index(v.Path, i); return v }

// SiblingPath is the path of item i of the list v is an item of.
func (v Value) SiblingPath(i int) string { return index(v.up, i) }

func (v Value) Failf(format string, args ...any) { v.d.r.failf(v.Path, format, args...) }
func (v Value) Warnf(format string, args ...any) { v.d.r.warnf(v.Path, format, args...) }

func (v Value) Str() string                    { s, _ := v.val.(string); return s }
func (v Value) Int() int                       { i, _ := v.val.(int); return i }
func (v Value) Bool() bool                     { b, _ := v.val.(bool); return b }
func (v Value) Ref() model.Ref                 { r, _ := v.val.(model.Ref); return r }
func (v Value) Zone() (string, *time.Location) { z, _ := v.val.(zone); return z.name, z.loc }

// Strings is a list of strings: non-nil, empty when written [].
func (v Value) Strings() []string {
	items, _ := v.val.([]any)
	out := make([]string, 0, len(items))
	for _, it := range items {
		out = append(out, it.(string))
	}
	return out
}

// Refs is a list of models; nil when empty.
func (v Value) Refs() []model.Ref {
	items, _ := v.val.([]any)
	var out []model.Ref
	for _, it := range items {
		out = append(out, it.(model.Ref))
	}
	return out
}

// Claim marks the object's keys that match as known and returns them,
// for keys that are warned about in their own words.
func (v Value) Claim(match func(key string) bool) []string {
	var keys []string
	for _, m := range v.obj.members {
		if !v.obj.used[m.key] && match(m.key) {
			v.obj.used[m.key] = true
			keys = append(keys, m.key)
		}
	}
	return keys
}
