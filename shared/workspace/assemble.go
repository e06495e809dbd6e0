package workspace

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/zero-gateway/zero/shared/model"
)

// Input is everything one run's system prompt is built from.
type Input struct {
	Base     string           // ZERO's base prompt
	Tools    []model.ToolSpec // the tools the run offers, in the order shown
	Files    []File           // bootstrap files, after the hooks, in prompt order
	Skills   []Skill          // the skills list
	Override Override         // this run's overrides
	Limits   Limits           // zero fields mean the package defaults
}

// Override is a run's change to the system prompt (the seed's "per-run
// overrides", e.g. from a before_agent_start hook or a sub-agent spawn).
type Override struct {
	// ReplaceBase, when not empty, is used instead of Input.Base; the
	// tools, skills and workspace files are still added.
	ReplaceBase string
	// ExtraSystem is appended after everything else, as given (the caller
	// writes its own heading, e.g. "## Group chat context").
	ExtraSystem string
}

// Limits bound the workspace parts of the prompt, in characters.
type Limits struct {
	FileChars   int `json:"fileChars"`   // one bootstrap file; 0 means MaxFileChars
	TotalChars  int `json:"totalChars"`  // all bootstrap files; 0 means MaxTotalChars
	SkillsChars int `json:"skillsChars"` // the skills section; 0 means MaxSkillsChars
}

// withDefaults fills zero fields with the package defaults.
func (l Limits) withDefaults() Limits {
	if l.FileChars <= 0 {
		l.FileChars = MaxFileChars
	}
	if l.TotalChars <= 0 {
		l.TotalChars = MaxTotalChars
	}
	if l.SkillsChars <= 0 {
		l.SkillsChars = MaxSkillsChars
	}
	return l
}

// Prompt is an assembled system prompt and its accounting.
type Prompt struct {
	Text   string
	Report Report
}

// minCutChars is the least room worth a cut file: below it, the marker
// would outweigh what is left of the file, so the file is omitted instead.
const minCutChars = 256

// Headings and guidance of the sections. The tools section keeps the text
// the turn has used, so the model sees no change when it moves here.
const (
	toolsHeading  = "## Tools\nYou can call these tools:"
	skillsHeading = "## Skills\n" +
		"Skills are task instructions kept in your workspace. When one clearly applies to the request, " +
		"read its SKILL.md at the path given and follow it; do not read more than one up front."
	filesHeading = "## Workspace files\n" +
		"These files from your workspace are loaded into every run. " +
		"If SOUL.md is present, embody its persona and tone unless higher-priority instructions say otherwise."
)

// Assemble builds the system prompt, in this order: the base prompt (or
// Override.ReplaceBase), the tools section (name and description of each
// tool), the skills list (name, description and path of each skill, not
// its body), the bootstrap files (each under its name, cut to the limits),
// and Override.ExtraSystem. Empty parts are left out; parts are separated
// by a blank line.
//
// A blank file is not injected. A file longer than its limit keeps its
// beginning and end around a marker naming it and its real size; the limit
// is min(FileChars, what TotalChars leaves after the files before it), and
// a file left less than minCutChars (256) characters is omitted. The skills list stops at
// SkillsChars with a line counting the skills left out. Every cut is
// visible in the text and flagged in the Report.
func Assemble(in Input) Prompt {
	limits := in.Limits.withDefaults()
	r := Report{Limits: limits}
	var parts []string
	add := func(s Section, text string) {
		s.Chars = utf8.RuneCountInString(text)
		s.Tokens = estimateTokens(s.Chars)
		r.Sections = append(r.Sections, s)
		if text != "" {
			parts = append(parts, text)
		}
	}

	base := strings.TrimSpace(in.Base)
	name := "base prompt"
	if in.Override.ReplaceBase != "" {
		base, name, r.BaseReplaced = strings.TrimSpace(in.Override.ReplaceBase), "base prompt (run override)", true
	}
	if base != "" {
		add(Section{Kind: SectionBase, Name: name}, base)
	}

	if len(in.Tools) > 0 {
		text, s := toolsSection(in.Tools)
		for _, t := range in.Tools {
			r.ToolSchemaChars += utf8.RuneCount(t.Schema)
		}
		add(s, text)
	}

	if len(in.Skills) > 0 {
		text, s := skillsSection(in.Skills, limits.SkillsChars)
		add(s, text)
	}

	var injected []string
	remaining := limits.TotalChars
	for _, f := range in.Files {
		body, s := fileSection(f, limits.FileChars, remaining)
		remaining -= utf8.RuneCountInString(body)
		text := ""
		if body != "" {
			text = "### " + f.Name + "\n\n" + body
			injected = append(injected, text)
		}
		s.Chars = utf8.RuneCountInString(text)
		s.Tokens = estimateTokens(s.Chars)
		r.Sections = append(r.Sections, s)
	}
	if len(injected) > 0 {
		parts = append(parts, filesHeading+"\n\n"+strings.Join(injected, "\n\n"))
	}

	if extra := strings.TrimSpace(in.Override.ExtraSystem); extra != "" {
		add(Section{Kind: SectionExtra, Name: "extra context (run override)"}, extra)
	}

	present := map[string]bool{}
	for _, f := range in.Files {
		present[f.Name] = true
	}
	for _, n := range BootstrapFiles {
		if !present[n] {
			r.Missing = append(r.Missing, n)
		}
	}

	text := strings.Join(parts, "\n\n")
	r.Chars = utf8.RuneCountInString(text)
	r.Tokens = estimateTokens(r.Chars)
	return Prompt{Text: text, Report: r}
}

// toolsSection renders the tools, one line each, in the given order.
func toolsSection(tools []model.ToolSpec) (string, Section) {
	s := Section{Kind: SectionTools, Name: "tools"}
	lines := []string{toolsHeading}
	for _, t := range tools {
		line := "- " + t.Name
		if d := oneLine(t.Description); d != "" {
			line += ": " + d
		}
		lines = append(lines, line)
		s.Entries = append(s.Entries, Entry{
			Name:        t.Name,
			Chars:       utf8.RuneCountInString(line),
			SchemaChars: utf8.RuneCount(t.Schema),
		})
	}
	return strings.Join(lines, "\n"), s
}

// skillsSection renders the skills list within limit characters. Entries
// that do not fit are counted on a last line, for which room is kept while
// more entries follow.
func skillsSection(skills []Skill, limit int) (string, Section) {
	s := Section{Kind: SectionSkills, Name: "skills", Limit: limit}
	lines := []string{skillsHeading}
	used := utf8.RuneCountInString(skillsHeading)
	const noteRoom = 80 // longer than the not-listed line
	for i, sk := range skills {
		line := "- " + oneLine(sk.Name)
		if d := cutEnd(oneLine(sk.Description), MaxSkillDescriptionChars); d != "" {
			line += ": " + d
		}
		line += " (" + sk.Path + ")"
		n := 1 + utf8.RuneCountInString(line) // with its newline
		room := limit - used
		if i < len(skills)-1 {
			room -= noteRoom
		}
		if n > room {
			s.NotListed = len(skills) - i
			s.Status = StatusTruncated
			lines = append(lines, fmt.Sprintf("- … and %d more skills, not listed (skills list limit)", s.NotListed))
			break
		}
		used += n
		lines = append(lines, line)
		s.Entries = append(s.Entries, Entry{Name: sk.Name, Chars: n - 1, Path: sk.Path})
	}
	if s.Status == "" {
		s.Status = StatusOK
	}
	return strings.Join(lines, "\n"), s
}

// fileSection returns the text a bootstrap file injects (without its
// heading) and its report: cut to min(fileLimit, remaining), or omitted
// when too little remains.
func fileSection(f File, fileLimit, remaining int) (string, Section) {
	content := strings.TrimSpace(f.Content)
	raw := utf8.RuneCountInString(content)
	limit := min(fileLimit, max(remaining, 0))
	s := Section{Kind: SectionFile, Name: f.Name, RawChars: raw, Limit: limit, FirstLine: firstLine(content)}
	switch {
	case raw == 0:
		s.Status = StatusEmpty
		return "", s
	case raw <= limit:
		s.Status = StatusOK
		return content, s
	}
	marker := fmt.Sprintf("\n\n[... middle of %s cut: the file has %s chars, the limit here is %s ...]\n\n",
		f.Name, thousands(raw), thousands(limit))
	room := limit - utf8.RuneCountInString(marker)
	if limit < minCutChars || room < minCutChars/2 {
		s.Status = StatusOmitted
		return "", s
	}
	// Keep more of the beginning (instructions come first) but also the end,
	// where files like MEMORY.md grow.
	runes := []rune(content)
	head := room * 7 / 10
	tail := room - head
	s.Status = StatusTruncated
	return string(runes[:head]) + marker + string(runes[len(runes)-tail:]), s
}

// firstLine is the first non-blank line of text, shortened for a report.
func firstLine(text string) string {
	for line := range strings.Lines(text) {
		if t := strings.TrimSpace(line); t != "" {
			return cutEnd(t, 60)
		}
	}
	return ""
}

// cutEnd shortens s to at most n characters, marking a cut with "…".
func cutEnd(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

// estimateTokens is the usual four-characters-a-token estimate, rounded up.
func estimateTokens(chars int) int { return (chars + 3) / 4 }
