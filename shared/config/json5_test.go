package config

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestToJSON(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"plain JSON unchanged", `{"a":[1,2.5,-3e2,true,false,null,"x"]}`, `{"a":[1,2.5,-3e2,true,false,null,"x"]}`},
		{"scalar document", ` 42 `, `42`},
		{"blanks are dropped", "{ \"a\" :\t1 ,\n \"b\": [ ] }", `{"a":1,"b":[]}`},
		{"line comment", "{a: 1, // the a\n b: 2}", `{"a":1,"b":2}`},
		{"line comment at end without newline", "{a: 1} // done", `{"a":1}`},
		{"block comment", "{/* lead */a: /* mid */ 1 /* tail */}", `{"a":1}`},
		{"block comment spanning lines", "{a: 1, /*\n * b: 2,\n */ c: 3}", `{"a":1,"c":3}`},
		{"comment with stars", "{a: 1 /*** x **/}", `{"a":1}`},
		{"trailing commas", `{a: [1, 2,], b: {c: 3,},}`, `{"a":[1,2],"b":{"c":3}}`},
		{"identifier keys", `{$x: 1, _y: 2, camelCase9: 3}`, `{"$x":1,"_y":2,"camelCase9":3}`},
		{"unicode identifier key", `{ação: 1, ünïcödé: 2}`, `{"ação":1,"ünïcödé":2}`},
		{"escaped identifier key", `{\u0061b: 1}`, `{"ab":1}`},
		{"keyword-like keys", `{true: 1, null: 2, NaN: 3}`, `{"true":1,"null":2,"NaN":3}`},
		{"member order kept", `{z: 1, a: 2, m: 3}`, `{"z":1,"a":2,"m":3}`},
		{"single-quoted string", `{'a': 'b'}`, `{"a":"b"}`},
		{"double quote inside single quotes", `'say "hi"'`, `"say \"hi\""`},
		{"escaped single quote", `'it\'s'`, `"it's"`},
		{"escaped double quote", `"a \"b\""`, `"a \"b\""`},
		{"comment markers inside strings", `{a: "// not a comment", b: '/* nor this */'}`, `{"a":"// not a comment","b":"/* nor this */"}`},
		{"comma and braces inside strings", `["}", ",]", '{']`, `["}",",]","{"]`},
		{"backslash at end of string", `"a\\"`, `"a\\"`},
		{"standard escapes", `'\b\f\n\r\t\/\\'`, `"\b\f\n\r\t/\\"`},
		{"vertical tab and NUL", `'\v\0'`, `"\u000b\u0000"`},
		{"hex escape", `'\x41\x7e'`, `"A~"`},
		{"unicode escape", `'\u00e9\u4e2d'`, `"é中"`},
		{"surrogate pair", `'\ud83d\ude00'`, `"😀"`},
		{"lone surrogate", `'\ud800x'`, `"` + "\ufffd" + `x"`},
		{"raw unicode kept", `'olá 世界 😀'`, `"olá 世界 😀"`},
		{"needless escape is the character", `'\a\q'`, `"aq"`},
		{"line continuation LF", "'abc\\\ndef'", `"abcdef"`},
		{"line continuation CRLF", "'abc\\\r\ndef'", `"abcdef"`},
		{"line continuation CR", "'abc\\\rdef'", `"abcdef"`},
		{"line continuation U+2028", "'abc\\\u2028def'", `"abcdef"`},
		{"raw U+2028 allowed in strings", "'a\u2028b'", "\"a\u2028b\""},
		{"control character escaped in output", "'a\x01b'", `"a\u0001b"`},
		{"tab kept escaped", "'a\tb'", `"a\tb"`},
		{"hex integer", `0x1F`, `31`},
		{"hex upper case", `0XfF`, `255`},
		{"negative hex", `-0x10`, `-16`},
		{"hex beyond 64 bits", `0x10000000000000000`, `18446744073709551616`},
		{"leading decimal point", `.5`, `0.5`},
		{"trailing decimal point", `5.`, `5`},
		{"trailing point with exponent", `5.e2`, `5e2`},
		{"explicit plus", `+1`, `1`},
		{"plus leading point", `+.25`, `0.25`},
		{"minus leading point", `-.25`, `-0.25`},
		{"exponent with sign", `1E+3`, `1e+3`},
		{"zero", `0`, `0`},
		{"zero fraction", `0.0`, `0.0`},
		{"BOM and odd blanks", "\ufeff{\u00a0a:\u20281\u3000}", `{"a":1}`},
		{"form feed and vertical tab", "\f{\va: 1}", `{"a":1}`},
		{"nested", `{a: {b: [{c: 'd'}]}}`, `{"a":{"b":[{"c":"d"}]}}`},
		{"duplicate keys kept for the decoder", `{a: 1, a: 2}`, `{"a":1,"a":2}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ToJSON([]byte(tc.in))
			if err != nil {
				t.Fatalf("ToJSON(%q): %v", tc.in, err)
			}
			if string(got) != tc.want {
				t.Fatalf("ToJSON(%q) = %s; want %s", tc.in, got, tc.want)
			}
			if !json.Valid(got) {
				t.Fatalf("output is not valid JSON: %s", got)
			}
		})
	}
}

func TestToJSONErrors(t *testing.T) {
	tests := []struct {
		name string
		in   string
		line int
		col  int
		msg  string // a substring of the message
	}{
		{"empty", "", 1, 1, "empty document"},
		{"only comments", "// nothing\n/* here */", 1, 1, "empty document"},
		{"NaN", `{a: NaN}`, 1, 5, "NaN has no JSON equivalent"},
		{"Infinity", `{a: Infinity}`, 1, 5, "Infinity has no JSON equivalent"},
		{"negative Infinity", "{\n  a: -Infinity}", 2, 6, "-Infinity has no JSON equivalent"},
		{"plus NaN", `[+NaN]`, 1, 2, "+NaN has no JSON equivalent"},
		{"unterminated string", "{a: 'abc}", 1, 5, "unterminated string"},
		{"raw newline in string", "{a: 'ab\ncd'}", 1, 8, "line break inside a string"},
		{"unterminated block comment", "{a: 1 /* x", 1, 7, "unterminated /* comment"},
		{"lone slash", "{a: 1 / 2}", 1, 7, `unexpected '/'`},
		{"missing colon", "{a 1}", 1, 4, "expected ':' after key \"a\""},
		{"missing comma", "{a: 1 b: 2}", 1, 7, "expected ',' or '}'"},
		{"double comma in list", "[1,,2]", 1, 4, "unexpected ','"},
		{"leading comma in object", "{,}", 1, 2, "expected a key"},
		{"unterminated object", "{a: 1,", 1, 1, "unterminated object"},
		{"unterminated list", "[1, 2", 1, 1, "unterminated list"},
		{"unquoted value", "{a: hello}", 1, 5, `unexpected word "hello"`},
		{"undefined", "[undefined]", 1, 2, `unexpected word "undefined"`},
		{"leading zeros", "[007]", 1, 2, "leading zeros"},
		{"number into letters", "[12px]", 1, 2, `invalid number "12px"`},
		{"bad hex", "[0x]", 1, 2, "invalid hex number"},
		{"hex into letters", "[0x1g]", 1, 2, `invalid number "0x1g"`},
		{"lone minus", "[-]", 1, 2, "invalid number"},
		{"lone point", "[.]", 1, 2, "invalid number"},
		{"exponent without digits", "[1e]", 1, 2, "exponent has no digits"},
		{"two points", "[1.2.3]", 1, 2, `invalid number "1.2.3"`},
		{"octal escape", `'\01'`, 1, 2, "octal escapes"},
		{"digit escape", `'\7'`, 1, 2, "octal escapes"},
		{"short hex escape", `'\x4'`, 1, 2, `\x must be followed by two hex digits`},
		{"short unicode escape", `'\u12'`, 1, 2, `\u must be followed by four hex digits`},
		{"trailing garbage", `{} x`, 1, 4, "after the document's value"},
		{"two documents", "{}\n{}", 2, 1, "after the document's value"},
		{"column counts characters", "{ação: §}", 1, 8, `unexpected '§'`},
		{"CRLF counts one line", "{\r\na: 1,\r\n b: ?}", 3, 5, `unexpected '?'`},
		{"invalid UTF-8", "{a: '\xff'}", 1, 6, "invalid UTF-8"},
		{"non-identifier key escape", `{\u002d: 1}`, 1, 2, "cannot appear in an unquoted key"},
		{"numeric key", `{1: 2}`, 1, 2, "expected a key"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, err := ToJSON([]byte(tc.in))
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("ToJSON(%q) = %s, %v; want a SyntaxError", tc.in, out, err)
			}
			if se.Line != tc.line || se.Column != tc.col || !strings.Contains(se.Msg, tc.msg) {
				t.Fatalf("ToJSON(%q) error %q; want %d:%d containing %q", tc.in, se, tc.line, tc.col, tc.msg)
			}
		})
	}
}

func TestToJSONDeepNesting(t *testing.T) {
	deep := strings.Repeat("[", maxDepth+2) + strings.Repeat("]", maxDepth+2)
	if _, err := ToJSON([]byte(deep)); err == nil || !strings.Contains(err.Error(), "nesting deeper") {
		t.Fatalf("ToJSON(deep) error = %v; want a nesting error", err)
	}
	ok := strings.Repeat("[", 100) + strings.Repeat("]", 100)
	if _, err := ToJSON([]byte(ok)); err != nil {
		t.Fatalf("ToJSON(100 levels): %v", err)
	}
}

// FuzzToJSON checks that whatever ToJSON accepts is valid JSON.
func FuzzToJSON(f *testing.F) {
	for _, s := range []string{`{a: 1, 'b': [0x1f, .5, +1,], /* c */ "d": '\u00e9\
x'}`, "// x\n[1]", `'\ud83d\ude00'`, `{a: -Infinity}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out, err := ToJSON([]byte(in))
		if err == nil && !json.Valid(out) {
			t.Fatalf("ToJSON(%q) = %q, not valid JSON", in, out)
		}
	})
}
