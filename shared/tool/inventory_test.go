package tool

import (
	"reflect"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestNames(t *testing.T) {
	names := Names()
	if !slices.IsSorted(names) {
		t.Errorf("Names() = %v; want sorted", names)
	}
	if len(slices.Compact(slices.Clone(names))) != len(names) {
		t.Errorf("Names() = %v; has duplicates", names)
	}
	names[0] = "changed"
	if Names()[0] == "changed" {
		t.Error("Names() shares its slice with the caller")
	}
	for _, name := range []string{"exec", "bash", "apply_patch", "agents_list", "session_status", "web_fetch", "memory_get"} {
		if !Known(name) {
			t.Errorf("Known(%q) = false", name)
		}
	}
	for _, name := range []string{"slack", "discord", "group:fs", "", "sessions_"} {
		if Known(name) {
			t.Errorf("Known(%q) = true", name)
		}
	}
	if !Known(" EXEC ") {
		t.Error(`Known(" EXEC ") = false; names are case-insensitive`)
	}
}

func TestGroups(t *testing.T) {
	want := map[string][]string{
		"group:runtime":    {"exec", "bash", "process"},
		"group:fs":         {"read", "write", "edit", "apply_patch"},
		"group:sessions":   {"session_status", "sessions_list", "sessions_history", "sessions_send", "sessions_spawn", "sessions_yield", "subagents"}, // registry order: as offered
		"group:memory":     {"memory_search", "memory_get"},
		"group:web":        {"web_fetch", "web_search"},
		"group:ui":         {"browser", "canvas"},
		"group:automation": {"cron", "gateway"},
		"group:messaging":  {"message"},
		"group:nodes":      {"nodes"},
		"group:zero":       Names(),
	}
	var names []string
	for g := range want {
		names = append(names, g)
	}
	slices.Sort(names)
	if got := Groups(); !reflect.DeepEqual(got, names) {
		t.Errorf("Groups() = %v; want %v", got, names)
	}
	for g, members := range want {
		got, ok := Group(g)
		if !ok || !reflect.DeepEqual(got, members) {
			t.Errorf("Group(%q) = %v, %v; want %v", g, got, ok, members)
		}
		for _, m := range got {
			if !Known(m) {
				t.Errorf("%s member %q is not in the inventory", g, m)
			}
		}
	}
	if got, ok := Group("GROUP:FS"); !ok || len(got) != 4 {
		t.Errorf(`Group("GROUP:FS") = %v, %v; want group:fs`, got, ok)
	}
	for _, g := range []string{"group:plugins", "fs", ""} {
		if got, ok := Group(g); ok {
			t.Errorf("Group(%q) = %v, true; want unknown", g, got)
		}
	}
	fs, _ := Group("group:fs")
	fs[0] = "changed"
	if again, _ := Group("group:fs"); again[0] == "changed" {
		t.Error("Group shares its slice with the caller")
	}
}

func TestProfile(t *testing.T) {
	tests := []struct {
		name   string
		want   []string
		wantOK bool
	}{
		{"minimal", []string{"session_status"}, true},
		{"coding", []string{
			"apply_patch", "bash", "edit", "exec", "image", "memory_get", "memory_search", "process", "read",
			"session_status", "sessions_history", "sessions_list", "sessions_send", "sessions_spawn", "sessions_yield", "subagents", "write",
		}, true},
		{"messaging", []string{"message", "session_status", "sessions_history", "sessions_list", "sessions_send"}, true},
		{"Messaging", []string{"message", "session_status", "sessions_history", "sessions_list", "sessions_send"}, true},
		{"full", nil, true},
		{"admin", nil, false},
		{"", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := Profile(tt.name)
			if ok != tt.wantOK || !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Profile(%q) = %v, %v; want %v, %v", tt.name, got, ok, tt.want, tt.wantOK)
			}
		})
	}
}

func TestExpand(t *testing.T) {
	tests := []struct {
		name        string
		entries     []string
		want        []string
		wantUnknown []string
	}{
		{"nothing", nil, nil, nil},
		{"a name", []string{"exec"}, []string{"exec"}, nil},
		{"case and spaces", []string{" Exec "}, []string{"exec"}, nil},
		{"a group", []string{"group:web"}, []string{"web_fetch", "web_search"}, nil},
		{"group:zero is everything", []string{"group:zero"}, Names(), nil},
		{"star is everything", []string{"*"}, Names(), nil},
		{"prefix wildcard", []string{"sessions_*"}, []string{"sessions_history", "sessions_list", "sessions_send", "sessions_spawn", "sessions_yield"}, nil},
		{"suffix wildcard", []string{"*_list"}, []string{"agents_list", "sessions_list"}, nil},
		{"inner wildcard", []string{"web_*ch"}, []string{"web_fetch", "web_search"}, nil},
		{"two wildcards", []string{"*ss*s*"}, []string{"session_status", "sessions_history", "sessions_list", "sessions_send", "sessions_spawn", "sessions_yield"}, nil},
		{"wildcard needing the whole name", []string{"e*c"}, []string{"exec"}, nil},
		{"wildcard that overlaps itself", []string{"s*ss*"}, []string{"session_status", "sessions_history", "sessions_list", "sessions_send", "sessions_spawn", "sessions_yield"}, nil},
		{"duplicates merge", []string{"exec", "group:runtime"}, []string{"bash", "exec", "process"}, nil},
		{"unknown names", []string{"slack", "exec", "group:plugins", "nope_*"}, []string{"exec"}, []string{"slack", "group:plugins", "nope_*"}},
		{"a name is not a prefix", []string{"sessions"}, nil, []string{"sessions"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, unknown := Expand(tt.entries)
			if !reflect.DeepEqual(got, tt.want) || !reflect.DeepEqual(unknown, tt.wantUnknown) {
				t.Errorf("Expand(%q) = %v, %v; want %v, %v", tt.entries, got, unknown, tt.want, tt.wantUnknown)
			}
		})
	}
}

func TestGlob(t *testing.T) {
	tests := []struct {
		pattern, name string
		want          bool
	}{
		{"*", "", true},
		{"*", "exec", true},
		{"exec", "exec", true},
		{"exec", "exe", false},
		{"ex*", "exec", true},
		{"*ec", "exec", true},
		{"e*e*c", "exec", true},
		{"e**c", "exec", true},
		{"exec*", "exec", true},
		{"*exec*", "exec", true},
		{"ab*ba", "aba", false}, // the parts may not share a character
		{"a*b*c", "acb", false},
	}
	for _, tt := range tests {
		if got := glob(tt.pattern, tt.name); got != tt.want {
			t.Errorf("glob(%q, %q) = %v; want %v", tt.pattern, tt.name, got, tt.want)
		}
	}
}

func TestProvided(t *testing.T) {
	want := map[string]bool{"agents_list": true, "apply_patch": true, "cron": true, "gateway": true, "edit": true, "image": true, "read": true, "write": true, "memory_get": true, "memory_search": true, "message": true, "session_status": true, "sessions_history": true, "sessions_list": true, "sessions_send": true, "sessions_spawn": true, "sessions_yield": true, "subagents": true, "web_fetch": true, "web_search": true}
	got := map[string]bool{}
	for _, name := range Names() {
		if Provided(name) {
			got[name] = true
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("provided tools (-want +got):\n%s", diff)
	}
	if !Provided("Session_Status") {
		t.Error(`Provided("Session_Status") = false; names are case-insensitive`)
	}
	if Provided("slack") {
		t.Error(`Provided("slack") = true`)
	}
}
