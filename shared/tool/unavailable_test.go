package tool

import (
	"strings"
	"testing"
)

// TestUnavailable: exec, bash, process, browser, canvas and nodes answer
// why they are unavailable and what replaces them; they are never Provided
// nor Available; a provided or unknown tool has no such answer.
func TestUnavailable(t *testing.T) {
	tests := []struct {
		name     string
		tool     string
		wantOK   bool
		contains string
	}{
		{"exec", "exec", true, "AWS role"},
		{"bash is exec", "Bash", true, "exec is unavailable"},
		{"process", "process", true, "background processes"},
		{"browser", "browser", true, "web_fetch"},
		{"canvas", "canvas", true, "pairs no nodes"},
		{"nodes", "nodes", true, "persistent connection"},
		{"provided tool", "web_fetch", false, ""},
		{"unknown tool", "teleport", false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			answer, ok := Unavailable(tt.tool)
			if ok != tt.wantOK || !strings.Contains(answer, tt.contains) {
				t.Errorf("Unavailable(%q) = %q, %v; want %v containing %q", tt.tool, answer, ok, tt.wantOK, tt.contains)
			}
			if ok && (Provided(tt.tool) || Available(nil, tt.tool)) {
				t.Errorf("%s is unavailable but Provided or Available", tt.tool)
			}
			if ok && !strings.Contains(answer, "serverless") {
				t.Errorf("answer %q does not say it is the serverless deployment", answer)
			}
		})
	}
}
