package workspace

import (
	"strconv"
	"strings"
)

// parseSkill returns the list entry of the SKILL.md at path in folder. It
// reads the front matter — YAML between a first line "---" and the next
// "---" (or "...") line — for the top-level keys name and description only:
// plain, quoted or block (| >) scalars, folded onto one line. Other keys
// (metadata, license, …) are ignored, so no YAML library is needed. Without
// front matter, or without a name, the folder names the skill.
func parseSkill(folder, path string, data []byte) Skill {
	s := Skill{Name: folder, Path: path}
	text := strings.TrimPrefix(string(data), "\uFEFF")
	text = strings.ReplaceAll(text, "\r\n", "\n")
	lines := strings.Split(text, "\n")
	if len(lines) == 0 || strings.TrimSpace(lines[0]) != "---" {
		return s
	}
	lines = lines[1:]
	for end, l := range lines {
		if t := strings.TrimRight(l, " \t"); t == "---" || t == "..." {
			lines = lines[:end]
			break
		}
	}
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if line == "" || line[0] == ' ' || line[0] == '\t' || line[0] == '#' {
			continue
		}
		key, value, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		key = strings.TrimSpace(key)
		if key != "name" && key != "description" {
			continue
		}
		// The value's continuation lines are the indented (or blank) ones
		// that follow.
		var more []string
		for i+1 < len(lines) && (strings.TrimSpace(lines[i+1]) == "" || lines[i+1][0] == ' ' || lines[i+1][0] == '\t') {
			i++
			more = append(more, strings.TrimSpace(lines[i]))
		}
		v := scalar(strings.TrimSpace(value), more)
		switch {
		case key == "name" && v != "":
			s.Name = v
		case key == "description":
			s.Description = v
		}
	}
	return s
}

// scalar is the one-line text of a YAML scalar whose first line is first
// and whose continuation lines are more.
func scalar(first string, more []string) string {
	var v string
	switch {
	case strings.HasPrefix(first, "|") || strings.HasPrefix(first, ">"):
		v = strings.Join(more, " ")
	case strings.HasPrefix(first, `"`):
		raw := strings.Join(append([]string{first}, more...), " ")
		if u, err := strconv.Unquote(raw); err == nil {
			v = u
		} else {
			v = strings.Trim(raw, `"`)
		}
	case strings.HasPrefix(first, "'"):
		raw := strings.Join(append([]string{first}, more...), " ")
		v = strings.ReplaceAll(strings.TrimSuffix(strings.TrimPrefix(raw, "'"), "'"), "''", "'")
	default:
		if c := strings.Index(first, " #"); c >= 0 {
			first = first[:c]
		}
		v = strings.Join(append([]string{first}, more...), " ")
	}
	return oneLine(v)
}

// oneLine collapses every run of white space, newlines included, into one
// space.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
