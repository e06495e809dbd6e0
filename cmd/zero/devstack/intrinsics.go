package devstack

import (
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// resolver evaluates CloudFormation intrinsic functions against local
// values: parameter values, pseudo parameters, and what was provisioned.
//
// Supported: Ref, Fn::GetAtt (list or "Id.Attr" form), Fn::Sub (string or
// [string, vars] form, with ${!Literal} escapes), Fn::Join, Fn::Select,
// Fn::Split, and AWS::NoValue (drops the map key or list element).
type resolver struct {
	params map[string]string            // parameter name -> value
	pseudo map[string]string            // "AWS::Region" etc. -> value
	refs   map[string]string            // logical id -> Ref value
	attrs  map[string]map[string]string // logical id -> attribute -> value
}

// noValue is what AWS::NoValue resolves to before its container drops it.
type noValue struct{}

// errUnresolved marks a reference to something the local stack does not
// provide (a parameter nobody set, an IAM role, ...).
var errUnresolved = errors.New("unresolved reference")

func newResolver(params map[string]string, region, accountID, stackName string) *resolver {
	return &resolver{
		params: params,
		pseudo: map[string]string{
			"AWS::Region":    region,
			"AWS::AccountId": accountID,
			"AWS::StackName": stackName,
			"AWS::StackId":   fmt.Sprintf("arn:aws:cloudformation:%s:%s:stack/%s/local", region, accountID, stackName),
			"AWS::Partition": "aws",
			"AWS::URLSuffix": "amazonaws.com",
		},
		refs:  map[string]string{},
		attrs: map[string]map[string]string{},
	}
}

// define records what Ref and Fn::GetAtt of a provisioned resource return.
func (r *resolver) define(logicalID, ref string, attrs map[string]string) {
	r.refs[logicalID] = ref
	r.attrs[logicalID] = attrs
}

// resolve returns v with every intrinsic function evaluated.
func (r *resolver) resolve(v any) (any, error) {
	out, err := r.eval(v)
	if err != nil {
		return nil, err
	}
	if _, ok := out.(noValue); ok {
		return nil, nil
	}
	return out, nil
}

// resolveString resolves v and requires a scalar result, rendered as a string.
func (r *resolver) resolveString(v any) (string, error) {
	out, err := r.resolve(v)
	if err != nil {
		return "", err
	}
	switch out.(type) {
	case map[string]any, []any:
		return "", fmt.Errorf("expected a scalar, got %T", out)
	}
	return scalarString(out), nil
}

func (r *resolver) eval(v any) (any, error) {
	switch x := v.(type) {
	case map[string]any:
		if len(x) == 1 {
			for k, arg := range x {
				if k == "Ref" || strings.HasPrefix(k, "Fn::") {
					return r.intrinsic(k, arg)
				}
			}
		}
		out := make(map[string]any, len(x))
		for k, e := range x {
			ev, err := r.eval(e)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", k, err)
			}
			if _, ok := ev.(noValue); ok {
				continue
			}
			out[k] = ev
		}
		return out, nil
	case []any:
		out := make([]any, 0, len(x))
		for i, e := range x {
			ev, err := r.eval(e)
			if err != nil {
				return nil, fmt.Errorf("[%d]: %w", i, err)
			}
			if _, ok := ev.(noValue); ok {
				continue
			}
			out = append(out, ev)
		}
		return out, nil
	default:
		return v, nil
	}
}

func (r *resolver) intrinsic(name string, arg any) (any, error) {
	switch name {
	case "Ref":
		id, ok := arg.(string)
		if !ok {
			return nil, fmt.Errorf("Ref: want a name, got %T", arg)
		}
		return r.ref(id)
	case "Fn::GetAtt":
		id, attr, err := getAttArgs(arg)
		if err != nil {
			return nil, err
		}
		return r.getAtt(id, attr)
	case "Fn::Sub":
		return r.sub(arg)
	case "Fn::Join":
		return r.join(arg)
	case "Fn::Select":
		return r.selectFn(arg)
	case "Fn::Split":
		return r.split(arg)
	default:
		return nil, fmt.Errorf("%s is not supported by the local stack", name)
	}
}

func (r *resolver) ref(id string) (any, error) {
	if id == "AWS::NoValue" {
		return noValue{}, nil
	}
	if v, ok := r.pseudo[id]; ok {
		return v, nil
	}
	if v, ok := r.params[id]; ok {
		return v, nil
	}
	if v, ok := r.refs[id]; ok {
		return v, nil
	}
	return nil, fmt.Errorf("Ref %s: %w", id, errUnresolved)
}

func (r *resolver) getAtt(id, attr string) (string, error) {
	attrs, ok := r.attrs[id]
	if !ok {
		return "", fmt.Errorf("Fn::GetAtt %s.%s: %w", id, attr, errUnresolved)
	}
	v, ok := attrs[attr]
	if !ok {
		return "", fmt.Errorf("Fn::GetAtt %s.%s: attribute not provided locally", id, attr)
	}
	return v, nil
}

func getAttArgs(arg any) (id, attr string, err error) {
	switch x := arg.(type) {
	case string:
		id, attr, ok := strings.Cut(x, ".")
		if !ok {
			return "", "", fmt.Errorf("Fn::GetAtt %q: want Id.Attribute", x)
		}
		return id, attr, nil
	case []any:
		if len(x) == 2 {
			id, ok1 := x[0].(string)
			attr, ok2 := x[1].(string)
			if ok1 && ok2 {
				return id, attr, nil
			}
		}
	}
	return "", "", fmt.Errorf("Fn::GetAtt: want [Id, Attribute], got %v", arg)
}

var subVar = regexp.MustCompile(`\$\{([^}]*)\}`)

func (r *resolver) sub(arg any) (any, error) {
	var tmpl string
	vars := map[string]string{}
	switch x := arg.(type) {
	case string:
		tmpl = x
	case []any:
		if len(x) != 2 {
			return nil, fmt.Errorf("Fn::Sub: want [template, vars]")
		}
		s, ok := x[0].(string)
		m, ok2 := x[1].(map[string]any)
		if !ok || !ok2 {
			return nil, fmt.Errorf("Fn::Sub: want [string, map]")
		}
		tmpl = s
		for k, v := range m {
			s, err := r.resolveString(v)
			if err != nil {
				return nil, fmt.Errorf("Fn::Sub variable %s: %w", k, err)
			}
			vars[k] = s
		}
	default:
		return nil, fmt.Errorf("Fn::Sub: want a string or [string, map], got %T", arg)
	}
	var firstErr error
	out := subVar.ReplaceAllStringFunc(tmpl, func(m string) string {
		name := m[2 : len(m)-1]
		if strings.HasPrefix(name, "!") {
			return "${" + name[1:] + "}"
		}
		if v, ok := vars[name]; ok {
			return v
		}
		var (
			v   any
			err error
		)
		if id, attr, ok := strings.Cut(name, "."); ok && !strings.HasPrefix(name, "AWS::") {
			v, err = r.getAtt(id, attr)
		} else {
			v, err = r.ref(name)
		}
		if err != nil {
			if firstErr == nil {
				firstErr = fmt.Errorf("Fn::Sub ${%s}: %w", name, err)
			}
			return m
		}
		return scalarString(v)
	})
	if firstErr != nil {
		return nil, firstErr
	}
	return out, nil
}

func (r *resolver) join(arg any) (any, error) {
	x, ok := arg.([]any)
	if !ok || len(x) != 2 {
		return nil, fmt.Errorf("Fn::Join: want [delimiter, list]")
	}
	delim, ok := x[0].(string)
	if !ok {
		return nil, fmt.Errorf("Fn::Join: delimiter must be a string")
	}
	list, err := r.resolve(x[1])
	if err != nil {
		return nil, fmt.Errorf("Fn::Join: %w", err)
	}
	items, ok := list.([]any)
	if !ok {
		return nil, fmt.Errorf("Fn::Join: want a list, got %T", list)
	}
	parts := make([]string, len(items))
	for i, it := range items {
		parts[i] = scalarString(it)
	}
	return strings.Join(parts, delim), nil
}

func (r *resolver) selectFn(arg any) (any, error) {
	x, ok := arg.([]any)
	if !ok || len(x) != 2 {
		return nil, fmt.Errorf("Fn::Select: want [index, list]")
	}
	idxV, err := r.resolveString(x[0])
	if err != nil {
		return nil, fmt.Errorf("Fn::Select index: %w", err)
	}
	idx, err := strconv.Atoi(idxV)
	if err != nil {
		return nil, fmt.Errorf("Fn::Select index %q: %w", idxV, err)
	}
	list, err := r.resolve(x[1])
	if err != nil {
		return nil, fmt.Errorf("Fn::Select: %w", err)
	}
	items, ok := list.([]any)
	if !ok {
		return nil, fmt.Errorf("Fn::Select: want a list, got %T", list)
	}
	if idx < 0 || idx >= len(items) {
		return nil, fmt.Errorf("Fn::Select: index %d out of range [0,%d)", idx, len(items))
	}
	return items[idx], nil
}

func (r *resolver) split(arg any) (any, error) {
	x, ok := arg.([]any)
	if !ok || len(x) != 2 {
		return nil, fmt.Errorf("Fn::Split: want [delimiter, string]")
	}
	delim, ok := x[0].(string)
	if !ok {
		return nil, fmt.Errorf("Fn::Split: delimiter must be a string")
	}
	s, err := r.resolveString(x[1])
	if err != nil {
		return nil, fmt.Errorf("Fn::Split: %w", err)
	}
	parts := strings.Split(s, delim)
	out := make([]any, len(parts))
	for i, p := range parts {
		out[i] = p
	}
	return out, nil
}

// references lists the logical ids (not parameters or pseudo parameters)
// that v refers to through Ref, Fn::GetAtt or Fn::Sub, sorted and unique.
func references(v any, params map[string]Parameter) []string {
	seen := map[string]bool{}
	var walk func(any)
	add := func(id string) {
		if id == "" || strings.HasPrefix(id, "AWS::") {
			return
		}
		if _, isParam := params[id]; isParam {
			return
		}
		seen[id] = true
	}
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				switch k {
				case "Ref":
					if s, ok := e.(string); ok {
						add(s)
					}
				case "Fn::GetAtt":
					if id, _, err := getAttArgs(e); err == nil {
						add(id)
					}
				case "Fn::Sub":
					tmpl := e
					var local map[string]any
					if l, ok := e.([]any); ok && len(l) == 2 {
						tmpl = l[0]
						local, _ = l[1].(map[string]any)
						walk(l[1])
					}
					if s, ok := tmpl.(string); ok {
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
					continue
				}
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
	out := make([]string, 0, len(seen))
	for id := range seen {
		out = append(out, id)
	}
	sort.Strings(out)
	return out
}

func compileAnchored(pattern string) (*regexp.Regexp, error) {
	return regexp.Compile(`^(?:` + pattern + `)$`)
}
