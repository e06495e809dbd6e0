package workspace

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/zero-gateway/zero/shared/model"
)

var statusTool = model.ToolSpec{
	Name:        "session_status",
	Description: "Show this session's status.",
	Schema:      json.RawMessage(`{"type":"object"}`),
}

func TestAssembleText(t *testing.T) {
	tests := []struct {
		name string
		in   Input
		want string
	}{
		{
			name: "base only",
			in:   Input{Base: "  You are ZERO.\n"},
			want: "You are ZERO.",
		},
		{
			name: "every part, in order",
			in: Input{
				Base:     "You are ZERO.",
				Tools:    []model.ToolSpec{statusTool, {Name: "read"}},
				Skills:   []Skill{{Name: "weather", Description: "Forecasts\n for a city.", Path: "skills/weather/SKILL.md"}},
				Files:    []File{{Name: "AGENTS.md", Content: "# Rules\nBe brief.\n"}, {Name: "SOUL.md", Content: "Warm."}},
				Override: Override{ExtraSystem: "## Group chat context\nYou are in a group."},
			},
			want: "You are ZERO.\n\n" +
				"## Tools\nYou can call these tools:\n- session_status: Show this session's status.\n- read\n\n" +
				skillsHeading + "\n- weather: Forecasts for a city. (skills/weather/SKILL.md)\n\n" +
				filesHeading + "\n\n### AGENTS.md\n\n# Rules\nBe brief.\n\n### SOUL.md\n\nWarm.\n\n" +
				"## Group chat context\nYou are in a group.",
		},
		{
			name: "ReplaceBase replaces the base and keeps the rest",
			in: Input{
				Base:     "You are ZERO.",
				Tools:    []model.ToolSpec{{Name: "read", Description: "Read a file."}},
				Override: Override{ReplaceBase: "You are a test harness."},
			},
			want: "You are a test harness.\n\n## Tools\nYou can call these tools:\n- read: Read a file.",
		},
		{
			name: "empty workspace adds nothing",
			in:   Input{Base: "You are ZERO.", Files: nil, Skills: nil},
			want: "You are ZERO.",
		},
		{
			name: "a blank file is not injected, nor is the heading without files",
			in:   Input{Base: "You are ZERO.", Files: []File{{Name: "HEARTBEAT.md", Content: " \n\t\n"}}},
			want: "You are ZERO.",
		},
		{
			name: "a file a hook added keeps its place and name",
			in:   Input{Files: []File{{Name: "CALLS.md", Content: "calls"}, {Name: "AGENTS.md", Content: "rules"}}},
			want: filesHeading + "\n\n### CALLS.md\n\ncalls\n\n### AGENTS.md\n\nrules",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := Assemble(tt.in)
			if p.Text != tt.want {
				t.Errorf("text =\n%s\n--- want ---\n%s", p.Text, tt.want)
			}
			if got := utf8.RuneCountInString(p.Text); p.Report.Chars != got || p.Report.Tokens != (got+3)/4 {
				t.Errorf("report chars/tokens = %d/%d; text has %d chars", p.Report.Chars, p.Report.Tokens, got)
			}
		})
	}
}

func TestAssembleSections(t *testing.T) {
	p := Assemble(Input{
		Base:     "You are ZERO.",
		Tools:    []model.ToolSpec{statusTool},
		Skills:   []Skill{{Name: "weather", Path: "skills/weather/SKILL.md"}},
		Files:    []File{{Name: "AGENTS.md", Content: "# Rules\nBe brief."}, {Name: "USER.md", Content: "\n"}},
		Override: Override{ReplaceBase: "Harness.", ExtraSystem: "Extra."},
	})
	type row struct {
		Kind   SectionKind
		Name   string
		Chars  int
		Status Status
	}
	var got []row
	for _, s := range p.Report.Sections {
		got = append(got, row{s.Kind, s.Name, s.Chars, s.Status})
	}
	want := []row{
		{SectionBase, "base prompt (run override)", len("Harness."), ""},
		{SectionTools, "tools", len("## Tools\nYou can call these tools:\n- session_status: Show this session's status."), ""},
		{SectionSkills, "skills", len(skillsHeading + "\n- weather (skills/weather/SKILL.md)"), StatusOK},
		{SectionFile, "AGENTS.md", len("### AGENTS.md\n\n# Rules\nBe brief."), StatusOK},
		{SectionFile, "USER.md", 0, StatusEmpty},
		{SectionExtra, "extra context (run override)", len("Extra."), ""},
	}
	if !slices.Equal(got, want) {
		t.Errorf("sections =\n%+v\nwant\n%+v", got, want)
	}
	r := p.Report
	if !r.BaseReplaced || r.ToolSchemaChars != len(`{"type":"object"}`) {
		t.Errorf("BaseReplaced = %v, ToolSchemaChars = %d", r.BaseReplaced, r.ToolSchemaChars)
	}
	if want := []string{"SOUL.md", "TOOLS.md", "IDENTITY.md", "HEARTBEAT.md", "BOOTSTRAP.md", "MEMORY.md"}; !slices.Equal(r.Missing, want) {
		t.Errorf("Missing = %v; want %v", r.Missing, want)
	}
	if f := r.Sections[3]; f.RawChars != len("# Rules\nBe brief.") || f.Limit != MaxFileChars || f.FirstLine != "# Rules" {
		t.Errorf("AGENTS.md section = %+v", f)
	}
	if r.Limits != (Limits{FileChars: MaxFileChars, TotalChars: MaxTotalChars, SkillsChars: MaxSkillsChars}) {
		t.Errorf("Limits = %+v; want the defaults", r.Limits)
	}
}

// sized returns a file of n characters whose first and last lines are
// recognizable; é makes characters and bytes differ.
func sized(name string, n int) File {
	head, tail := "HEAD-"+name+"\n", "\nTAIL-"+name
	return File{Name: name, Content: head + strings.Repeat("é", n-len(head)-len(tail)) + tail}
}

func TestAssembleLimits(t *testing.T) {
	type want struct {
		status Status
		body   int // characters injected, heading excluded
	}
	tests := []struct {
		name   string
		limits Limits
		files  []File
		want   []want
	}{
		{
			name:  "under the limits: whole",
			files: []File{sized("AGENTS.md", 19_000), sized("SOUL.md", 20_000)},
			want:  []want{{StatusOK, 19_000}, {StatusOK, 20_000}},
		},
		{
			name:  "over the file limit: cut to it",
			files: []File{sized("TOOLS.md", 54_210)},
			want:  []want{{StatusTruncated, MaxFileChars}},
		},
		{
			name:  "the total limit cuts the file that crosses it and omits the rest",
			files: []File{sized("AGENTS.md", 20_000), sized("SOUL.md", 20_000), sized("TOOLS.md", 15_000), sized("USER.md", 8_000), sized("MEMORY.md", 1_000)},
			want:  []want{{StatusOK, 20_000}, {StatusOK, 20_000}, {StatusOK, 15_000}, {StatusTruncated, 5_000}, {StatusOmitted, 0}},
		},
		{
			name:  "a small file still fits when little room is left",
			files: []File{sized("AGENTS.md", 59_900), sized("SOUL.md", 100)},
			want:  []want{{StatusTruncated, 20_000}, {StatusOK, 100}},
		},
		{
			name:   "too little room left to cut: omitted",
			limits: Limits{FileChars: 1_000, TotalChars: 1_100},
			files:  []File{sized("AGENTS.md", 1_000), sized("SOUL.md", 500)},
			want:   []want{{StatusOK, 1_000}, {StatusOmitted, 0}},
		},
		{
			name:   "custom limits",
			limits: Limits{FileChars: 1_000, TotalChars: 1_500},
			files:  []File{sized("AGENTS.md", 1_200), sized("SOUL.md", 900)},
			want:   []want{{StatusTruncated, 1_000}, {StatusTruncated, 500}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := Assemble(Input{Files: tt.files, Limits: tt.limits})
			var files []Section
			for _, s := range p.Report.Sections {
				if s.Kind == SectionFile {
					files = append(files, s)
				}
			}
			if len(files) != len(tt.want) {
				t.Fatalf("%d file sections; want %d", len(files), len(tt.want))
			}
			total := 0
			for i, s := range files {
				f, w := tt.files[i], tt.want[i]
				heading := utf8.RuneCountInString("### " + f.Name + "\n\n")
				body := max(s.Chars-heading, 0)
				total += body
				if s.Status != w.status || body != w.body {
					t.Errorf("%s: %s, %d chars injected; want %s, %d", f.Name, s.Status, body, w.status, w.body)
				}
				if s.RawChars != utf8.RuneCountInString(f.Content) {
					t.Errorf("%s: RawChars = %d", f.Name, s.RawChars)
				}
				inText := strings.Contains(p.Text, "### "+f.Name+"\n")
				if inText != (w.status != StatusOmitted) {
					t.Errorf("%s: in the text = %v with status %s", f.Name, inText, w.status)
				}
				marker := fmt.Sprintf("[... middle of %s cut: the file has %s chars", f.Name, thousands(s.RawChars))
				if has := strings.Contains(p.Text, marker); has != (w.status == StatusTruncated) {
					t.Errorf("%s: marker %q present = %v with status %s", f.Name, marker, has, w.status)
				}
				if w.status == StatusTruncated {
					// The beginning and the end both survive the cut.
					if !strings.Contains(p.Text, "### "+f.Name+"\n\nHEAD-"+f.Name+"\n") || !strings.Contains(p.Text, "\nTAIL-"+f.Name) {
						t.Errorf("%s: head or tail lost in the cut", f.Name)
					}
				}
			}
			limits := tt.limits.withDefaults()
			if total > limits.TotalChars {
				t.Errorf("files inject %d chars; total limit %d", total, limits.TotalChars)
			}
		})
	}
}

func TestAssembleSkillsLimit(t *testing.T) {
	var skills []Skill
	for i := range 300 {
		skills = append(skills, Skill{
			Name:        fmt.Sprintf("skill-%03d", i),
			Description: strings.Repeat("d", 100),
			Path:        fmt.Sprintf("skills/skill-%03d/SKILL.md", i),
		})
	}
	long := Skill{Name: "long", Description: strings.Repeat("x", 5_000), Path: "skills/long/SKILL.md"}
	tests := []struct {
		name          string
		skills        []Skill
		limit         int
		wantListed    int
		wantNotListed int
	}{
		{"all fit", skills[:10], 0, 10, 0},
		// Each entry is 141 chars and its newline; 80 chars stay free for the note.
		{"cut at the limit with a count of the rest", skills, 5_000, (5_000 - 80 - len(skillsHeading)) / 142, 300 - (5_000-80-len(skillsHeading))/142},
		{"the last entry needs no room for the note", skills[:2], len(skillsHeading) + 2*(1+len("- skill-000: ")+100+len(" (skills/skill-000/SKILL.md)")), 2, 0},
		{"a long description is cut", []Skill{long}, 0, 1, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := Assemble(Input{Skills: tt.skills, Limits: Limits{SkillsChars: tt.limit}})
			s := p.Report.Sections[0]
			if len(s.Entries) != tt.wantListed || s.NotListed != tt.wantNotListed {
				t.Fatalf("listed %d, not listed %d; want %d, %d", len(s.Entries), s.NotListed, tt.wantListed, tt.wantNotListed)
			}
			limit := p.Report.Limits.SkillsChars
			if s.Chars > limit {
				t.Errorf("skills section is %d chars; limit %d", s.Chars, limit)
			}
			note := fmt.Sprintf("- … and %d more skills, not listed (skills list limit)", tt.wantNotListed)
			if strings.Contains(p.Text, note) != (tt.wantNotListed > 0) || (s.Status == StatusTruncated) != (tt.wantNotListed > 0) {
				t.Errorf("status %s; note present %v", s.Status, strings.Contains(p.Text, note))
			}
			for _, e := range s.Entries {
				if e.Chars > MaxSkillDescriptionChars+100 {
					t.Errorf("entry %s is %d chars", e.Name, e.Chars)
				}
			}
		})
	}
}
