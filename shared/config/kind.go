package config

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/zero-gateway/zero/shared/model"
)

// Kind is what a key holds: how its value is read and validated, and how
// config.schema shows it.
type Kind struct {
	Type  string // as config.schema shows it: `"daily" | "idle" | "off"`, "integer 0-23"
	shape shape
	// read validates a scalar value and returns it as Go (string, int,
	// bool, []any, model.Ref, zone, nil); errors go to the reader. For an
	// object kind it reads the other form a key may take instead
	// ("provider/model" for {primary, fallbacks}); nil: none.
	read func(r *reader, n *node, path string) any
	null bool   // an explicit null counts as present (keys that are only warned about)
	hint string // added to "required": "allow or deny"
}

type shape int

const (
	scalarShape shape = iota
	objectShape       // fixed keys, each a row of the table
	mapShape          // any keys: the entries are the one "<name>" row under it
	listShape         // items: the one "[]" row under it
)

// scalar is a kind read by one reader method.
func scalar[T any](typ string, read func(*reader, *node, string) T) Kind {
	return Kind{Type: typ, read: func(r *reader, n *node, path string) any { return read(r, n, path) }}
}

var (
	objectKind = Kind{Type: "object", shape: objectShape}
	mapKind    = Kind{Type: "map", shape: mapShape}
	listKind   = Kind{Type: "list", shape: listShape}

	stringKind  = scalar("string", (*reader).str)
	nameKind    = scalar("string", (*reader).name) // trimmed, lower-cased, not empty
	boolKind    = scalar("boolean", (*reader).boolean)
	idKind      = scalar("string or integer id", (*reader).id)
	zoneKind    = scalar(`IANA time zone ("Europe/Lisbon")`, readZone)
	refKind     = scalar(`"provider/model"`, readRef)
	minutesKind = intKind(0, 100*366*24*60, "a whole number of minutes >= 0") // 100 years: far below int overflow
	mainKeyKind = scalar("string (no ':' or spaces)", readMainKey)
	linkKind    = scalar(`"<provider>:<id>"`, readLinkPeer)
	// modelKind is "provider/model" or {primary, fallbacks}.
	modelKind = orObject(`"provider/model" | {primary, fallbacks}`, scalar("", readModel))
	// peerIDKind is a binding's peer: an id or {kind, id}.
	peerIDKind = orObject("id | {kind, id}", idKind)
	// ignoredKind accepts anything; its key is only warned about.
	ignoredKind = Kind{Type: "any (ignored)", null: true, read: func(*reader, *node, string) any { return nil }}
)

// orObject is an object whose key may also be written as a k.
func orObject(typ string, k Kind) Kind {
	k.Type, k.shape = typ, objectShape
	return k
}

// enumKind is one of values, matched case-insensitively.
func enumKind(values ...string) Kind {
	k := scalar(`"`+strings.Join(values, `" | "`)+`"`, func(r *reader, n *node, path string) string {
		return r.enum(n, path, values...)
	})
	k.hint = strings.Join(values[:len(values)-1], ", ") + " or " + values[len(values)-1]
	return k
}

// intKind is a whole number in [lo, hi]; want describes it in messages:
// "an integer 0-23".
func intKind(lo, hi int, want string) Kind {
	typ := strings.TrimPrefix(strings.TrimPrefix(want, "an "), "a ")
	return scalar(typ, func(r *reader, n *node, path string) int { return r.integer(n, path, lo, hi, want) })
}

// listOf is a list of item; absent is nil, [] an empty non-nil list.
func listOf(item Kind) Kind {
	return scalar("["+item.Type+"]", func(r *reader, n *node, path string) []any {
		items := r.list(n, path)
		out := make([]any, 0, len(items))
		for i, it := range items {
			out = append(out, item.read(r, it, index(path, i)))
		}
		return out
	})
}

// zone is a loaded time zone.
type zone struct {
	name string
	loc  *time.Location
}

func readZone(r *reader, n *node, path string) zone {
	name := r.str(n, path)
	if r.err != nil {
		return zone{}
	}
	// "" and "Local" load without error but mean the host's zone, which
	// on Lambda is UTC whatever the user expects.
	if name == "" || strings.EqualFold(name, "local") {
		r.failf(path, `must be an IANA time zone name such as "Europe/Lisbon", got %q`, name)
		return zone{}
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		r.failf(path, `unknown time zone %q (use an IANA name such as "Europe/Lisbon")`, name)
		return zone{}
	}
	return zone{name, loc}
}

func readRef(r *reader, n *node, path string) model.Ref {
	s := r.str(n, path)
	if n.kind != stringNode {
		return model.Ref{}
	}
	return parseRef(r, s, path)
}

func parseRef(r *reader, s, path string) model.Ref {
	ref, err := model.ParseRef(s)
	if err != nil {
		r.failf(path, `must be of the form "provider/model", got %q`, s)
		return model.Ref{}
	}
	return ref
}

func readModel(r *reader, n *node, path string) model.Ref {
	if n.kind != stringNode {
		r.failf(path, `must be "provider/model" or {primary, fallbacks}, got %s`, n.describe())
		return model.Ref{}
	}
	return readRef(r, n, path)
}

func readMainKey(r *reader, n *node, path string) string {
	key := r.name(n, path)
	if strings.ContainsAny(key, ": \t") {
		// The main key is one segment of "agent:<id>:<mainKey>".
		r.failf(path, "must not contain ':' or spaces, got %q", key)
	}
	return key
}

func readLinkPeer(r *reader, n *node, path string) string {
	peer := r.name(n, path)
	provider, id, ok := strings.Cut(peer, ":")
	if peer != "" && (!ok || strings.TrimSpace(provider) == "" || strings.TrimSpace(id) == "") {
		r.failf(path, `must be "<provider>:<id>" (e.g. "telegram:123"), got %q`, peer)
	}
	return peer
}

// defaultNode is a key's default as a document value, so that defaults
// are read (and validated) by the key's kind like any written value.
func defaultNode(v any) *node {
	switch v := v.(type) {
	case string:
		return &node{kind: stringNode, text: v}
	case int:
		return &node{kind: numberNode, text: strconv.Itoa(v)}
	case bool:
		return &node{kind: boolNode, boolean: v}
	}
	panic(fmt.Sprintf("config: unsupported default %#v", v))
}
