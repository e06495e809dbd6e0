package workspace

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// SectionKind is what part of the prompt a Section is.
type SectionKind string

const (
	SectionBase   SectionKind = "base"   // the base prompt or its run override
	SectionTools  SectionKind = "tools"  // the tools section
	SectionSkills SectionKind = "skills" // the skills list
	SectionFile   SectionKind = "file"   // one bootstrap file
	SectionExtra  SectionKind = "extra"  // Override.ExtraSystem
)

// Status is how much of a file (or of the skills list) reached the prompt.
type Status string

const (
	StatusOK        Status = "ok"        // all of it
	StatusTruncated Status = "truncated" // cut to its limit, with a marker
	StatusOmitted   Status = "omitted"   // none: the total limit left too little room
	StatusEmpty     Status = "empty"     // blank, so not injected
)

// Report is the accounting of an assembled prompt: what /context shows.
// It is plain data (JSON-ready), so a run can keep it for a later
// /context.
type Report struct {
	// Sections are in prompt order: base, tools, skills, each file
	// (injected or not), extra.
	Sections []Section `json:"sections"`
	// Chars and Tokens count the whole text, so they include the headings
	// and separators between sections, which no section counts.
	Chars  int `json:"chars"`
	Tokens int `json:"tokens"`
	// ToolSchemaChars is the size of the tools' JSON schemas, sent with
	// the request beside the text; it counts toward the context too.
	ToolSchemaChars int `json:"toolSchemaChars,omitempty"`
	// Missing are the BootstrapFiles not among the input files.
	Missing      []string `json:"missing,omitempty"`
	BaseReplaced bool     `json:"baseReplaced,omitempty"`
	Limits       Limits   `json:"limits"` // as applied, defaults filled in
}

// Section is one part of the prompt.
type Section struct {
	Kind SectionKind `json:"kind"`
	Name string      `json:"name"` // the file name for files
	// Chars is what the section adds to the text (a file's heading
	// included); 0 for a file not injected. Tokens estimates it.
	Chars  int `json:"chars"`
	Tokens int `json:"tokens"`

	// Files and the skills list.
	Status Status `json:"status,omitempty"`
	Limit  int    `json:"limit,omitempty"` // the limit that applied

	// Files only.
	RawChars  int    `json:"rawChars,omitempty"`  // the file's size, blank ends trimmed
	FirstLine string `json:"firstLine,omitempty"` // its first non-blank line, shortened

	// Tools and skills: one entry each, in prompt order.
	Entries   []Entry `json:"entries,omitempty"`
	NotListed int     `json:"notListed,omitempty"` // skills left out by the limit
}

// Entry is one tool's or skill's line in its section.
type Entry struct {
	Name        string `json:"name"`
	Chars       int    `json:"chars"`                 // its line in the text
	SchemaChars int    `json:"schemaChars,omitempty"` // tools: its JSON schema
	Path        string `json:"path,omitempty"`        // skills: its SKILL.md
}

// List is the /context list reply: the prompt's size, then its parts
// largest first, then what is missing from the workspace. Plain text, one
// short line each.
func (r Report) List() string {
	var b strings.Builder
	r.writeSummary(&b)
	return strings.TrimRight(b.String(), "\n")
}

// Detail is the /context detail reply: List, the limits, then each
// bootstrap file (status, sizes, limit, first line), each skill and each
// tool with its size.
func (r Report) Detail() string {
	var b strings.Builder
	r.writeSummary(&b)
	l := r.Limits
	fmt.Fprintf(&b, "\nLimits: %s chars a file, %s for all files, %s for the skills list\n",
		thousands(l.FileChars), thousands(l.TotalChars), thousands(l.SkillsChars))

	b.WriteString("\nWorkspace files:\n")
	files := 0
	for _, s := range r.Sections {
		if s.Kind != SectionFile {
			continue
		}
		files++
		switch s.Status {
		case StatusOK:
			fmt.Fprintf(&b, "- %s: ok, %s chars (%s), limit %s\n", s.Name, thousands(s.RawChars), tokens(estimateTokens(s.RawChars)), thousands(s.Limit))
		case StatusTruncated:
			fmt.Fprintf(&b, "- %s: TRUNCATED, %s chars cut to %s (%s)\n", s.Name, thousands(s.RawChars), thousands(s.Limit), tokens(estimateTokens(s.Limit)))
		case StatusOmitted:
			fmt.Fprintf(&b, "- %s: OMITTED, %s chars; %s were left of the total\n", s.Name, thousands(s.RawChars), thousands(s.Limit))
		case StatusEmpty:
			fmt.Fprintf(&b, "- %s: empty, not injected\n", s.Name)
		}
		if s.FirstLine != "" {
			fmt.Fprintf(&b, "  first line: %s\n", s.FirstLine)
		}
	}
	for _, name := range r.Missing {
		fmt.Fprintf(&b, "- %s: not in the workspace\n", name)
		files++
	}
	if files == 0 {
		b.WriteString("- none\n")
	}

	for _, s := range r.Sections {
		switch s.Kind {
		case SectionSkills:
			fmt.Fprintf(&b, "\nSkills (%d listed):\n", len(s.Entries))
			for _, e := range s.Entries {
				fmt.Fprintf(&b, "- %s: %s chars, %s\n", e.Name, thousands(e.Chars), e.Path)
			}
			if s.NotListed > 0 {
				fmt.Fprintf(&b, "- %d more not listed: over the %s-char limit\n", s.NotListed, thousands(s.Limit))
			}
		case SectionTools:
			fmt.Fprintf(&b, "\nTools (%d):\n", len(s.Entries))
			for _, e := range s.Entries {
				fmt.Fprintf(&b, "- %s: %s chars, schema %s chars\n", e.Name, thousands(e.Chars), thousands(e.SchemaChars))
			}
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// writeSummary writes the lines List and Detail share.
func (r Report) writeSummary(b *strings.Builder) {
	fmt.Fprintf(b, "System prompt: %s chars (%s)\n", thousands(r.Chars), tokens(r.Tokens))
	// Largest first; sections that add nothing go last, in prompt order
	// (the sort is stable). Empty files are for Detail only.
	sections := slices.DeleteFunc(slices.Clone(r.Sections), func(s Section) bool { return s.Status == StatusEmpty })
	slices.SortStableFunc(sections, func(a, b Section) int { return cmp.Compare(b.Chars, a.Chars) })
	for _, s := range sections {
		name := s.Name
		if s.Kind == SectionTools || s.Kind == SectionSkills {
			name = fmt.Sprintf("%s (%d)", name, len(s.Entries))
		}
		switch s.Status {
		case StatusOmitted:
			fmt.Fprintf(b, "- %s: omitted, total file limit reached\n", name)
		case StatusTruncated:
			fmt.Fprintf(b, "- %s: %s chars (%s), truncated\n", name, thousands(s.Chars), tokens(s.Tokens))
		default:
			fmt.Fprintf(b, "- %s: %s chars (%s)\n", name, thousands(s.Chars), tokens(s.Tokens))
		}
	}
	if r.ToolSchemaChars > 0 {
		fmt.Fprintf(b, "Tool schemas: %s chars (%s), sent beside the text\n", thousands(r.ToolSchemaChars), tokens(estimateTokens(r.ToolSchemaChars)))
	}
	if len(r.Missing) > 0 {
		fmt.Fprintf(b, "Not in the workspace: %s\n", strings.Join(r.Missing, ", "))
	}
}

// tokens renders an estimated token count.
func tokens(n int) string { return "~" + thousands(n) + " tok" }

// thousands renders n with comma thousands separators: 54,210.
func thousands(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		s = "-" + s
	}
	return s
}
