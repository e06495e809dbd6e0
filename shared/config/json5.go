package config

import (
	"bytes"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// SyntaxError is a JSON5 syntax error at a 1-based line and column (columns
// count characters, not bytes).
type SyntaxError struct {
	Line, Column int
	Msg          string
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("%d:%d: %s", e.Line, e.Column, e.Msg) }

// maxDepth bounds nesting so a hostile document cannot exhaust the stack.
const maxDepth = 1000

// ToJSON converts a JSON5 document to standard JSON, keeping member order
// and the text of every value. It accepts comments, trailing commas,
// identifier keys, single-quoted strings (all JSON5 escapes, line
// continuations), hex integers, leading and trailing decimal points and an
// explicit +. NaN and Infinity have no JSON form and are rejected. Errors
// are *SyntaxError. An empty document (nothing but blanks and comments) is
// an error, as in JSON5.
func ToJSON(src []byte) ([]byte, error) {
	root, err := parseJSON5(src)
	if err != nil {
		return nil, err
	}
	if root == nil {
		return nil, &SyntaxError{Line: 1, Column: 1, Msg: "empty document"}
	}
	return appendJSON(make([]byte, 0, len(src)), root), nil
}

// parseJSON5 reads a JSON5 document into a tree; an empty document
// (nothing but blanks and comments) is a nil node.
func parseJSON5(src []byte) (*node, error) {
	if !utf8.Valid(src) {
		p := &parser{src: src}
		for p.pos < len(src) {
			r, n := utf8.DecodeRune(src[p.pos:])
			if r == utf8.RuneError && n <= 1 {
				return nil, p.errorf("invalid UTF-8")
			}
			p.pos += n
		}
	}
	p := &parser{src: src}
	if err := p.skipBlank(); err != nil {
		return nil, err
	}
	if p.pos == len(src) {
		return nil, nil
	}
	root, err := p.value(0)
	if err != nil {
		return nil, err
	}
	if err := p.skipBlank(); err != nil {
		return nil, err
	}
	if p.pos < len(src) {
		return nil, p.errorf("unexpected %s after the document's value", p.describe())
	}
	return root, nil
}

type parser struct {
	src []byte
	pos int // byte offset of the next unread character
}

// errorf returns a SyntaxError at the current position.
func (p *parser) errorf(format string, args ...any) error { return p.errorAt(p.pos, format, args...) }

func (p *parser) errorAt(pos int, format string, args ...any) error {
	line, col := 1, 1
	for i := 0; i < pos && i < len(p.src); {
		r, n := utf8.DecodeRune(p.src[i:])
		switch {
		case r == '\r' && i+1 < len(p.src) && p.src[i+1] == '\n':
			// CRLF is one line break; the LF ends it.
			col++
		case isLineTerminator(r):
			line, col = line+1, 1
		default:
			col++
		}
		i += n
	}
	return &SyntaxError{Line: line, Column: col, Msg: fmt.Sprintf(format, args...)}
}

// peek returns the next character without consuming it; -1 at the end.
func (p *parser) peek() rune { return p.peekAt(p.pos) }

func (p *parser) peekAt(pos int) rune {
	if pos >= len(p.src) {
		return -1
	}
	if c := p.src[pos]; c < utf8.RuneSelf {
		return rune(c)
	}
	r, _ := utf8.DecodeRune(p.src[pos:])
	return r
}

// next consumes and returns the next character; -1 at the end.
func (p *parser) next() rune {
	if p.pos >= len(p.src) {
		return -1
	}
	r, n := utf8.DecodeRune(p.src[p.pos:])
	p.pos += n
	return r
}

// describe names the next character for an error message.
func (p *parser) describe() string {
	r := p.peek()
	if r < 0 {
		return "end of input"
	}
	return describeRune(r)
}

func describeRune(r rune) string {
	if r < ' ' || r == 0x7f || isLineTerminator(r) {
		return fmt.Sprintf("character %U", r)
	}
	return fmt.Sprintf("%q", r)
}

func isLineTerminator(r rune) bool {
	return r == '\n' || r == '\r' || r == '\u2028' || r == '\u2029'
}

// isBlank is JSON5 white space (which includes the line terminators).
func isBlank(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', '\u00a0', '\u2028', '\u2029', '\ufeff':
		return true
	}
	return r > 0x7f && unicode.Is(unicode.Zs, r)
}

// skipBlank skips white space and comments.
func (p *parser) skipBlank() error {
	for p.pos < len(p.src) {
		r := p.peek()
		switch {
		case isBlank(r):
			p.next()
		case r == '/' && p.peekAt(p.pos+1) == '/':
			for p.pos < len(p.src) && !isLineTerminator(p.peek()) {
				p.next()
			}
		case r == '/' && p.peekAt(p.pos+1) == '*':
			start := p.pos
			end := bytes.Index(p.src[p.pos+2:], []byte("*/"))
			if end < 0 {
				return p.errorAt(start, "unterminated /* comment")
			}
			p.pos += 2 + end + 2
		default:
			return nil
		}
	}
	return nil
}

func (p *parser) value(depth int) (*node, error) {
	if depth > maxDepth {
		return nil, p.errorf("nesting deeper than %d levels", maxDepth)
	}
	switch r := p.peek(); {
	case r == '{':
		return p.object(depth)
	case r == '[':
		return p.array(depth)
	case r == '"' || r == '\'':
		s, err := p.str()
		return &node{kind: stringNode, text: s}, err
	case r == '-' || r == '+' || r == '.' || r >= '0' && r <= '9':
		text, err := p.number()
		return &node{kind: numberNode, text: text}, err
	case isIDStart(r) || r == '\\':
		return p.word()
	case r < 0:
		return nil, p.errorf("unexpected end of input, expected a value")
	default:
		return nil, p.errorf("unexpected %s, expected a value", p.describe())
	}
}

// word reads true, false or null.
func (p *parser) word() (*node, error) {
	start := p.pos
	word, err := p.identifier()
	if err != nil {
		return nil, err
	}
	switch word {
	case "true", "false":
		return &node{kind: boolNode, boolean: word == "true"}, nil
	case "null":
		return &node{kind: nullNode}, nil
	case "NaN", "Infinity":
		return nil, p.errorAt(start, "%s has no JSON equivalent; use a finite number or a string", word)
	}
	return nil, p.errorAt(start, "unexpected word %q (strings need quotes)", word)
}

func (p *parser) object(depth int) (*node, error) {
	open := p.pos
	p.next() // {
	n := &node{kind: objectNode}
	for {
		if err := p.skipBlank(); err != nil {
			return nil, err
		}
		switch r := p.peek(); {
		case r == '}':
			p.next()
			return n, nil
		case r < 0:
			return nil, p.errorAt(open, "unterminated object: no matching '}'")
		}
		m, err := p.member(depth)
		if err != nil {
			return nil, err
		}
		n.members = append(n.members, m)
		if err := p.skipBlank(); err != nil {
			return nil, err
		}
		switch r := p.peek(); {
		case r == ',':
			p.next()
		case r == '}':
		case r < 0:
			return nil, p.errorAt(open, "unterminated object: no matching '}'")
		default:
			return nil, p.errorf("unexpected %s, expected ',' or '}'", p.describe())
		}
	}
}

// member reads `key: value`.
func (p *parser) member(depth int) (member, error) {
	var key string
	var err error
	switch r := p.peek(); {
	case r == '"' || r == '\'':
		key, err = p.str()
	case isIDStart(r) || r == '\\':
		key, err = p.identifier()
	default:
		return member{}, p.errorf("unexpected %s, expected a key or '}'", p.describe())
	}
	if err != nil {
		return member{}, err
	}
	if err := p.skipBlank(); err != nil {
		return member{}, err
	}
	if p.peek() != ':' {
		return member{}, p.errorf("unexpected %s, expected ':' after key %q", p.describe(), key)
	}
	p.next()
	if err := p.skipBlank(); err != nil {
		return member{}, err
	}
	val, err := p.value(depth + 1)
	return member{key: key, val: val}, err
}

func (p *parser) array(depth int) (*node, error) {
	open := p.pos
	p.next() // [
	n := &node{kind: listNode}
	for {
		if err := p.skipBlank(); err != nil {
			return nil, err
		}
		switch r := p.peek(); {
		case r == ']':
			p.next()
			return n, nil
		case r < 0:
			return nil, p.errorAt(open, "unterminated list: no matching ']'")
		}
		item, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		n.items = append(n.items, item)
		if err := p.skipBlank(); err != nil {
			return nil, err
		}
		switch r := p.peek(); {
		case r == ',':
			p.next()
		case r == ']':
		case r < 0:
			return nil, p.errorAt(open, "unterminated list: no matching ']'")
		default:
			return nil, p.errorf("unexpected %s, expected ',' or ']'", p.describe())
		}
	}
}

// str reads a single- or double-quoted string and returns its value.
func (p *parser) str() (string, error) {
	open := p.pos
	quote := p.next()
	var b strings.Builder
	for {
		at := p.pos
		r := p.next()
		switch {
		case r < 0:
			return "", p.errorAt(open, "unterminated string")
		case r == quote:
			return b.String(), nil
		case r == '\n' || r == '\r':
			return "", p.errorAt(at, "line break inside a string (write \\n, or end the line with \\ to continue it)")
		case r == '\\':
			if err := p.escape(&b, at); err != nil {
				return "", err
			}
		default:
			b.WriteRune(r)
		}
	}
}

// escape decodes the escape sequence after a backslash (at is the
// backslash's offset) into b.
func (p *parser) escape(b *strings.Builder, at int) error {
	r := p.next()
	switch r {
	case -1:
		return p.errorAt(at, "unterminated string")
	case 'b':
		b.WriteByte('\b')
	case 'f':
		b.WriteByte('\f')
	case 'n':
		b.WriteByte('\n')
	case 'r':
		b.WriteByte('\r')
	case 't':
		b.WriteByte('\t')
	case 'v':
		b.WriteByte('\v')
	case '0':
		if d := p.peek(); d >= '0' && d <= '9' {
			return p.errorAt(at, "octal escapes are not allowed")
		}
		b.WriteByte(0)
	case '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return p.errorAt(at, "octal escapes are not allowed")
	case 'x':
		v, ok := p.hex(2)
		if !ok {
			return p.errorAt(at, `\x must be followed by two hex digits`)
		}
		b.WriteRune(rune(v))
	case 'u':
		r, err := p.unicodeEscape(at)
		if err != nil {
			return err
		}
		b.WriteRune(r)
	case '\r':
		// A line continuation: the backslash and the line break vanish.
		if p.peek() == '\n' {
			p.next()
		}
	case '\n', '\u2028', '\u2029':
	default:
		// Any other character escapes to itself (\' \" \\ \/ \a ...).
		b.WriteRune(r)
	}
	return nil
}

// unicodeEscape decodes the digits of a \u escape (the "\u" is consumed),
// joining a UTF-16 surrogate pair; a lone surrogate becomes U+FFFD, as
// encoding/json does.
func (p *parser) unicodeEscape(at int) (rune, error) {
	v, ok := p.hex(4)
	if !ok {
		return 0, p.errorAt(at, `\u must be followed by four hex digits`)
	}
	r := rune(v)
	if r < 0xd800 || r > 0xdfff {
		return r, nil
	}
	if r <= 0xdbff && p.peek() == '\\' && p.peekAt(p.pos+1) == 'u' {
		save := p.pos
		p.pos += 2
		if lo, ok := p.hex(4); ok && lo >= 0xdc00 && lo <= 0xdfff {
			return 0x10000 + (r-0xd800)<<10 + (rune(lo) - 0xdc00), nil
		}
		p.pos = save
	}
	return utf8.RuneError, nil
}

// hex reads exactly n hex digits.
func (p *parser) hex(n int) (int, bool) {
	v := 0
	for range n {
		d := hexDigit(p.peek())
		if d < 0 {
			return 0, false
		}
		p.next()
		v = v<<4 | d
	}
	return v, true
}

func hexDigit(r rune) int {
	switch {
	case r >= '0' && r <= '9':
		return int(r - '0')
	case r >= 'a' && r <= 'f':
		return int(r-'a') + 10
	case r >= 'A' && r <= 'F':
		return int(r-'A') + 10
	}
	return -1
}

// number reads a JSON5 number and returns its JSON text: no '+', a 0
// before a leading point, no trailing point, hex as decimal.
func (p *parser) number() (string, error) {
	start := p.pos
	sign := ""
	if r := p.peek(); r == '+' || r == '-' {
		if r == '-' {
			sign = "-"
		}
		p.next()
	}
	if r := p.peek(); r == 'I' || r == 'N' {
		word, err := p.identifier()
		if err != nil {
			return "", err
		}
		if word == "Infinity" || word == "NaN" {
			return "", p.errorAt(start, "%s has no JSON equivalent; use a finite number or a string", string(p.src[start:p.pos]))
		}
		return "", p.errorAt(start, "invalid number %q", string(p.src[start:p.pos]))
	}
	if p.peek() == '0' && (p.peekAt(p.pos+1) == 'x' || p.peekAt(p.pos+1) == 'X') {
		return p.hexNumber(start, sign)
	}
	return p.decimal(start, sign)
}

// hexNumber reads the digits after "0x" and returns them in decimal.
func (p *parser) hexNumber(start int, sign string) (string, error) {
	p.pos += 2
	digits := p.pos
	for hexDigit(p.peek()) >= 0 {
		p.next()
	}
	if p.pos == digits {
		return "", p.errorAt(start, "invalid hex number %q", string(p.src[start:p.pos]))
	}
	if err := p.numberEnd(start); err != nil {
		return "", err
	}
	v, _ := new(big.Int).SetString(sign+string(p.src[digits:p.pos]), 16)
	return v.String(), nil
}

// decimal reads [digits][.digits][e[+-]digits] (at least one digit before
// the exponent).
func (p *parser) decimal(start int, sign string) (string, error) {
	intPart := p.digits()
	if len(intPart) > 1 && intPart[0] == '0' {
		return "", p.errorAt(start, "invalid number %q: leading zeros are not allowed", intPart)
	}
	var frac string
	if p.peek() == '.' {
		p.next()
		frac = p.digits()
	}
	if intPart == "" && frac == "" {
		return "", p.errorAt(start, "invalid number %q", string(p.src[start:p.pos]))
	}
	var exp string
	if r := p.peek(); r == 'e' || r == 'E' {
		p.next()
		expStart := p.pos
		if r := p.peek(); r == '+' || r == '-' {
			p.next()
		}
		if p.digits() == "" {
			return "", p.errorAt(start, "invalid number %q: the exponent has no digits", string(p.src[start:p.pos]))
		}
		exp = "e" + string(p.src[expStart:p.pos])
	}
	if err := p.numberEnd(start); err != nil {
		return "", err
	}
	if intPart == "" {
		intPart = "0"
	}
	if frac != "" {
		frac = "." + frac
	}
	return sign + intPart + frac + exp, nil
}

// digits reads a run of decimal digits.
func (p *parser) digits() string {
	start := p.pos
	for isDigit(p.peek()) {
		p.next()
	}
	return string(p.src[start:p.pos])
}

// numberEnd rejects a number running straight into a letter or digit
// ("12px", "0x1g"), as JavaScript does.
func (p *parser) numberEnd(start int) error {
	if r := p.peek(); isIDPart(r) || r == '\\' || r == '.' {
		end := p.pos
		for r := p.peek(); isIDPart(r) || r == '.'; r = p.peek() {
			p.next()
		}
		text := string(p.src[start:p.pos])
		p.pos = end
		return p.errorAt(start, "invalid number %q", text)
	}
	return nil
}

func isDigit(r rune) bool { return r >= '0' && r <= '9' }

// isIDStart and isIDPart follow ECMAScript 5.1 IdentifierName.
func isIDStart(r rune) bool {
	return r == '$' || r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' ||
		r > 0x7f && (unicode.IsLetter(r) || unicode.Is(unicode.Nl, r))
}

func isIDPart(r rune) bool {
	return isIDStart(r) || isDigit(r) || r == '\u200c' || r == '\u200d' ||
		r > 0x7f && unicode.In(r, unicode.Mn, unicode.Mc, unicode.Nd, unicode.Pc)
}

// identifier reads an IdentifierName, decoding \u escapes in it.
func (p *parser) identifier() (string, error) {
	var b strings.Builder
	for {
		at := p.pos
		r := p.peek()
		if r == '\\' {
			p.next()
			if p.next() != 'u' {
				return "", p.errorAt(at, `only \u escapes are allowed in a key`)
			}
			var err error
			if r, err = p.unicodeEscape(at); err != nil {
				return "", err
			}
			if b.Len() == 0 && !isIDStart(r) || !isIDPart(r) {
				return "", p.errorAt(at, "escaped %s cannot appear in an unquoted key", describeRune(r))
			}
			b.WriteRune(r)
			continue
		}
		if b.Len() == 0 && !isIDStart(r) || b.Len() > 0 && !isIDPart(r) {
			return b.String(), nil
		}
		p.next()
		b.WriteRune(r)
	}
}

// appendJSON appends n as standard JSON, members in document order
// (duplicates included).
func appendJSON(out []byte, n *node) []byte {
	switch n.kind {
	case objectNode:
		out = append(out, '{')
		for i, m := range n.members {
			if i > 0 {
				out = append(out, ',')
			}
			out = append(appendQuoted(out, m.key), ':')
			out = appendJSON(out, m.val)
		}
		return append(out, '}')
	case listNode:
		out = append(out, '[')
		for i, item := range n.items {
			if i > 0 {
				out = append(out, ',')
			}
			out = appendJSON(out, item)
		}
		return append(out, ']')
	case stringNode:
		return appendQuoted(out, n.text)
	case numberNode:
		return append(out, n.text...)
	case boolNode:
		return strconv.AppendBool(out, n.boolean)
	}
	return append(out, "null"...)
}

// appendQuoted appends s as a JSON string. Only what JSON requires is
// escaped, so non-ASCII text stays readable.
func appendQuoted(out []byte, s string) []byte {
	const hexChars = "0123456789abcdef"
	out = append(out, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			r, n := utf8.DecodeRuneInString(s[i:])
			out = utf8.AppendRune(out, r)
			i += n
			continue
		}
		switch {
		case c == '"' || c == '\\':
			out = append(out, '\\', c)
		case c == '\n':
			out = append(out, '\\', 'n')
		case c == '\r':
			out = append(out, '\\', 'r')
		case c == '\t':
			out = append(out, '\\', 't')
		case c == '\b':
			out = append(out, '\\', 'b')
		case c == '\f':
			out = append(out, '\\', 'f')
		case c < 0x20:
			out = append(out, '\\', 'u', '0', '0', hexChars[c>>4], hexChars[c&0xf])
		default:
			out = append(out, c)
		}
		i++
	}
	return append(out, '"')
}
