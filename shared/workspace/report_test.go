package workspace

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/zero-gateway/zero/shared/model"
)

var update = flag.Bool("update", false, "rewrite the testdata/*.golden files")

// goldenPrompt is the prompt of the testdata workspace, with a TOOLS.md a
// hook adds that is over the file limit.
func goldenPrompt(t *testing.T) Prompt {
	t.Helper()
	s := newMemStore()
	loadDir(t, s, "testdata/workspace", Prefix("main"))
	l := NewLoader(s, 0, nil)
	l.Hooks = []BootstrapHook{func(_ string, files []File) []File {
		return append(files, File{Name: ToolsFile, Content: "# Tool notes\n" + strings.Repeat("The printer is on the second floor.\n", 700)})
	}}
	files, err := l.Load(context.Background(), "main")
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return Assemble(Input{
		Base:   strings.Repeat("You are ZERO, a personal assistant. ", 40),
		Tools:  []model.ToolSpec{statusTool, {Name: "read", Description: "Read a workspace file.", Schema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)}},
		Files:  files.Bootstrap,
		Skills: files.Skills,
	})
}

func TestReportGolden(t *testing.T) {
	p := goldenPrompt(t)
	tests := []struct {
		name   string
		golden string
		got    string
	}{
		{"list", "testdata/list.golden", p.Report.List()},
		{"detail", "testdata/detail.golden", p.Report.Detail()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if *update {
				if err := os.WriteFile(tt.golden, []byte(tt.got+"\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(tt.golden)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if tt.got+"\n" != string(want) {
				t.Errorf("%s differs from %s (go test -update rewrites it):\n%s", tt.name, tt.golden, tt.got)
			}
		})
	}
}

func TestReportText(t *testing.T) {
	p := goldenPrompt(t)
	tests := []struct {
		name string
		text string
	}{
		{"list", p.Report.List()},
		{"detail", p.Report.Detail()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, line := range strings.Split(tt.text, "\n") {
				// A chat reply: short lines, no markdown tables.
				if len([]rune(line)) > 90 || strings.HasPrefix(line, "|") {
					t.Errorf("line too long or a table: %q", line)
				}
			}
			// Largest first: the truncated TOOLS.md, then the base prompt.
			var order []string
			for _, line := range strings.Split(tt.text, "\n") {
				if name, _, ok := strings.Cut(strings.TrimPrefix(line, "- "), ":"); ok && strings.HasPrefix(line, "- ") {
					order = append(order, name)
				}
			}
			if want := []string{"TOOLS.md", "base prompt", "skills (2)", "AGENTS.md", "tools (2)", "USER.md", "SOUL.md"}; len(order) < len(want) || !slices.Equal(order[:len(want)], want) {
				t.Errorf("first lines name %v; want %v", order, want)
			}
		})
	}
}

func TestReportListOrdering(t *testing.T) {
	r := Report{Chars: 1000, Tokens: 250, Sections: []Section{
		{Kind: SectionBase, Name: "base prompt", Chars: 100, Tokens: 25},
		{Kind: SectionFile, Name: "AGENTS.md", Chars: 300, Tokens: 75, Status: StatusOK},
		{Kind: SectionFile, Name: "SOUL.md", Chars: 100, Tokens: 25, Status: StatusOK},
		{Kind: SectionFile, Name: "USER.md", Status: StatusEmpty},
		{Kind: SectionFile, Name: "MEMORY.md", Status: StatusOmitted},
		{Kind: SectionExtra, Name: "extra context (run override)", Chars: 500, Tokens: 125},
	}}
	want := "System prompt: 1,000 chars (~250 tok)\n" +
		"- extra context (run override): 500 chars (~125 tok)\n" +
		"- AGENTS.md: 300 chars (~75 tok)\n" +
		"- base prompt: 100 chars (~25 tok)\n" + // ties keep prompt order
		"- SOUL.md: 100 chars (~25 tok)\n" +
		"- MEMORY.md: omitted, total file limit reached"
	if got := r.List(); got != want {
		t.Errorf("List =\n%s\nwant\n%s", got, want)
	}
}

func TestReportEmptyWorkspace(t *testing.T) {
	r := Assemble(Input{Base: "You are ZERO."}).Report
	want := "System prompt: 13 chars (~4 tok)\n" +
		"- base prompt: 13 chars (~4 tok)\n" +
		"Not in the workspace: AGENTS.md, SOUL.md, TOOLS.md, IDENTITY.md, USER.md, HEARTBEAT.md, BOOTSTRAP.md, MEMORY.md"
	if got := r.List(); got != want {
		t.Errorf("List =\n%s\nwant\n%s", got, want)
	}
	if d := r.Detail(); !strings.Contains(d, "\nWorkspace files:\n- AGENTS.md: not in the workspace\n") {
		t.Errorf("Detail does not list the missing files:\n%s", d)
	}
}

func TestThousands(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 54210: "54,210", 1234567: "1,234,567", -1500: "-1,500"} {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %q; want %q", n, got, want)
		}
	}
}
