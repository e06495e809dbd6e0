package workspace

import "testing"

func TestParseSkill(t *testing.T) {
	tests := []struct {
		name     string
		data     string
		wantName string
		wantDesc string
	}{
		{"no front matter: the folder names it", "# Weather\n\nbody", "folder", ""},
		{"plain scalars", "---\nname: weather\ndescription: Forecasts for any city.\n---\nbody", "weather", "Forecasts for any city."},
		{"double quotes with escapes", "---\nname: \"we: ather\"\ndescription: \"Say \\\"hi\\\"\"\n---\n", "we: ather", `Say "hi"`},
		{"single quotes", "---\nname: 'it''s'\ndescription: 'a: b'\n---\n", "it's", "a: b"},
		{"folded block", "---\ndescription: >\n  one\n  two\nname: w\n---\n", "w", "one two"},
		{"literal block is folded onto one line", "---\ndescription: |\n  one\n\n  two\n---\n", "folder", "one two"},
		{"plain scalar continued on indented lines", "---\ndescription: one\n  two\n---\n", "folder", "one two"},
		{"comment after a plain scalar", "---\nname: w # the name\n---\n", "w", ""},
		{"nested keys are not top-level", "---\nmetadata:\n  name: inner\n  description: inner\n---\n", "folder", ""},
		{"empty name keeps the folder", "---\nname:\ndescription: d\n---\n", "folder", "d"},
		{"CRLF and a BOM", "\uFEFF---\r\nname: w\r\ndescription: d\r\n---\r\n", "w", "d"},
		{"keys after the closing line are body", "---\nname: w\n---\ndescription: not front matter\n", "w", ""},
		{"unclosed front matter reads to the end", "---\nname: w\ndescription: d\n", "w", "d"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := parseSkill("folder", "skills/folder/SKILL.md", []byte(tt.data))
			want := Skill{Name: tt.wantName, Description: tt.wantDesc, Path: "skills/folder/SKILL.md"}
			if got != want {
				t.Errorf("parseSkill = %+v; want %+v", got, want)
			}
		})
	}
}

func TestSkillFolder(t *testing.T) {
	tests := []struct {
		path   string
		folder string
		ok     bool
	}{
		{"skills/weather/SKILL.md", "weather", true},
		{"skills/a/b/SKILL.md", "", false},
		{"skills/SKILL.md", "", false},
		{"skills//SKILL.md", "", false},
		{"skills/weather/README.md", "", false},
		{"other/weather/SKILL.md", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			folder, ok := skillFolder(tt.path)
			if folder != tt.folder || ok != tt.ok {
				t.Errorf("skillFolder(%q) = %q, %v; want %q, %v", tt.path, folder, ok, tt.folder, tt.ok)
			}
		})
	}
}
