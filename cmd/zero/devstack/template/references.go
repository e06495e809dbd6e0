package template

import (
	"sort"
	"strings"
)

// References lists the logical ids (not parameters or pseudo parameters)
// that v refers to through Ref, Fn::GetAtt or Fn::Sub, sorted and unique.
// Both branches of an Fn::If count.
func References(v any, params map[string]Parameter) []string {
	seen := map[string]bool{}
	add := func(id string) {
		if id == "" || strings.HasPrefix(id, "AWS::") {
			return
		}
		if _, isParam := params[id]; !isParam {
			seen[id] = true
		}
	}
	walkReferences(v, add)
	out := make([]string, 0, len(seen))
	for id := range seen {
		out = append(out, id)
	}
	sort.Strings(out)
	return out
}

func walkReferences(v any, add func(string)) {
	switch x := v.(type) {
	case map[string]any:
		for k, el := range x {
			switch k {
			case "Ref":
				if s, ok := el.(string); ok {
					add(s)
				}
			case "Fn::GetAtt":
				if id, _, err := getAttArgs(el); err == nil {
					add(id)
				}
			case "Fn::Sub":
				subReferences(el, add)
			default:
				walkReferences(el, add)
			}
		}
	case []any:
		for _, el := range x {
			walkReferences(el, add)
		}
	}
}

// subReferences adds the names an Fn::Sub template uses, except its own
// variables and ${!Literal} escapes, and walks its variables' values.
func subReferences(arg any, add func(string)) {
	tmpl := arg
	var local map[string]any
	if l, ok := arg.([]any); ok && len(l) == 2 {
		tmpl = l[0]
		local, _ = l[1].(map[string]any)
		walkReferences(l[1], add)
	}
	s, ok := tmpl.(string)
	if !ok {
		return
	}
	for _, m := range subVar.FindAllStringSubmatch(s, -1) {
		name := m[1]
		if strings.HasPrefix(name, "!") {
			continue
		}
		if _, ok := local[name]; ok {
			continue
		}
		id, _, _ := strings.Cut(name, ".")
		add(id)
	}
}

// DependsOn returns a resource's DependsOn (a name or a list of names).
func DependsOn(v any) []string {
	switch x := v.(type) {
	case string:
		return []string{x}
	case []any:
		var out []string
		for _, el := range x {
			if s, ok := el.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}
