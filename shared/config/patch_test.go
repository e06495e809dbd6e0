package config

import (
	"encoding/json"
	"testing"
)

func TestMergePatch(t *testing.T) {
	// RFC 7386 appendix A examples.
	tests := []struct{ name, target, patch, want string }{
		{"replace", `{"a":"b"}`, `{"a":"c"}`, `{"a":"c"}`},
		{"add", `{"a":"b"}`, `{"b":"c"}`, `{"a":"b","b":"c"}`},
		{"delete", `{"a":"b"}`, `{"a":null}`, `{}`},
		{"delete one", `{"a":"b","b":"c"}`, `{"a":null}`, `{"b":"c"}`},
		{"array replaces", `{"a":["b"]}`, `{"a":"c"}`, `{"a":"c"}`},
		{"value to array", `{"a":"c"}`, `{"a":["b"]}`, `{"a":["b"]}`},
		{"nested", `{"a":{"b":"c"}}`, `{"a":{"b":"d","c":null}}`, `{"a":{"b":"d"}}`},
		{"array of objects replaces", `{"a":[{"b":"c"}]}`, `{"a":[1]}`, `{"a":[1]}`},
		{"not an object target", `["a","b"]`, `{"a":"b"}`, `{"a":"b"}`},
		{"nested null creates nothing", `{}`, `{"a":{"bb":{"ccc":null}}}`, `{"a":{"bb":{}}}`},
		{"numbers stay exact", `{"n":12345678901234567890}`, `{"m":1.50}`, `{"m":1.50,"n":12345678901234567890}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			target, _ := decodeJSON([]byte(tc.target))
			patch, _ := decodeJSON([]byte(tc.patch))
			out, err := json.Marshal(mergePatch(target, patch))
			if err != nil || string(out) != tc.want {
				t.Fatalf("got %s (%v); want %s", out, err, tc.want)
			}
		})
	}
}
