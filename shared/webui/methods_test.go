package webui_test

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/gateway"
)

// rpcFile is the page's one module that talks to the gateway; every other
// module calls its rpc(method, params).
const rpcFile = "assets/rpc.js"

// rpcCall is one rpc(...) call of the page's JS.
type rpcCall struct {
	Line   int
	Method string // "" when the method is not a string literal
}

// rpcCallRE finds a call of rpc (not a method of another object, not
// its definition, which callsOf skips).
var rpcCallRE = regexp.MustCompile(`(^|[^\w.$])rpc\s*\(`)

// literalRE is a method name given as a string literal: '…', "…" or a
// template literal without substitutions.
var literalRE = regexp.MustCompile("^\\s*(?:'([^'\\\\\n]*)'|\"([^\"\\\\\n]*)\"|`([^`\\\\$]*)`)")

// callsOf are the rpc calls in src, with their method names.
func callsOf(src string) []rpcCall {
	var calls []rpcCall
	for _, m := range rpcCallRE.FindAllStringSubmatchIndex(src, -1) {
		start, end := m[3], m[1] // the name's start, after the "("
		if strings.HasSuffix(strings.TrimRight(src[:start], " \t"), "function") {
			continue // the definition
		}
		call := rpcCall{Line: strings.Count(src[:start], "\n") + 1}
		if lit := literalRE.FindStringSubmatch(src[end:]); lit != nil {
			call.Method = lit[1] + lit[2] + lit[3]
		}
		calls = append(calls, call)
	}
	return calls
}

func TestCallsOf(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []rpcCall
	}{
		{name: "single quotes", src: "await rpc('sessions.list', params);", want: []rpcCall{{1, "sessions.list"}}},
		{name: "double quotes and blanks", src: `x = rpc( "chat.send" , {})`, want: []rpcCall{{1, "chat.send"}}},
		{name: "template literal", src: "rpc(`status`)", want: []rpcCall{{1, "status"}}},
		{name: "lines are counted", src: "a\nb\n  () => rpc('cron.run', { id })", want: []rpcCall{{3, "cron.run"}}},
		{name: "several on a line", src: "Promise.all([rpc('config.get', {}), rpc('config.schema', {})])",
			want: []rpcCall{{1, "config.get"}, {1, "config.schema"}}},
		{name: "a variable is not a literal", src: "rpc(method, {})", want: []rpcCall{{1, ""}}},
		{name: "a substitution is not a literal", src: "rpc(`cron.${op}`, {})", want: []rpcCall{{1, ""}}},
		{name: "a concatenation's first part is taken", src: "rpc('cron.' + op)", want: []rpcCall{{1, "cron."}}},
		{name: "the definition is not a call", src: "export async function rpc(method, params = {}) {}"},
		{name: "the import is not a call", src: "import { rpc, token } from './rpc.js';"},
		{name: "another object's rpc is not the page's", src: "other.rpc('x'); myrpc('y'); $rpc('z')"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, callsOf(tt.src)); diff != "" {
				t.Errorf("callsOf(%q) (-want +got):\n%s", tt.src, diff)
			}
		})
	}
}

// TestPageMethodsAreServed: every method the control page's JS calls is
// one the gateway's method table serves (gateway.Methods), named by a
// string literal so that this test can read it, and only rpc.js talks to
// the gateway. A failure names the file, line and method.
func TestPageMethodsAreServed(t *testing.T) {
	served := gateway.Methods()
	site := os.DirFS("site")
	var problems []string
	called := 0
	err := fs.WalkDir(site, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || path.Ext(name) != ".js" {
			return err
		}
		data, err := fs.ReadFile(site, name)
		if err != nil {
			return err
		}
		src := string(data)
		if name != rpcFile && (strings.Contains(src, "fetch(") || strings.Contains(src, "XMLHttpRequest")) {
			problems = append(problems, fmt.Sprintf("%s: talks to the server itself; call rpc (%s) instead", name, rpcFile))
		}
		for _, c := range callsOf(src) {
			called++
			switch {
			case c.Method == "":
				problems = append(problems, fmt.Sprintf("%s:%d: rpc is called with a method that is not a string literal", name, c.Line))
			case !slices.Contains(served, c.Method):
				problems = append(problems, fmt.Sprintf("%s:%d: rpc(%q): the gateway serves no such method", name, c.Line, c.Method))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if called == 0 {
		t.Fatal("found no rpc calls in site/**/*.js; does the page still call rpc(method, params)?")
	}
	for _, p := range problems {
		t.Error(p)
	}
}
