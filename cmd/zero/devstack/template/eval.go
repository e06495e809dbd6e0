package template

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Evaluator evaluates CloudFormation intrinsic functions against local
// values: parameter values, pseudo parameters, conditions, and what was
// provisioned (Define).
//
// Supported: Ref, Fn::GetAtt (list or "Id.Attr" form), Fn::Sub (string or
// [string, vars] form, with ${!Literal} escapes), Fn::Join, Fn::Select,
// Fn::Split, Fn::If (only the chosen branch is evaluated) and AWS::NoValue
// (drops the map key or list element). Any other Fn:: is an error. The
// condition functions (Fn::Equals, Fn::Not, Fn::And, Fn::Or, Condition)
// are evaluated in condition definitions (see Conditions).
type Evaluator struct {
	params map[string]string            // parameter name -> value
	pseudo map[string]string            // "AWS::Region" etc. -> value
	refs   map[string]string            // logical id -> Ref value
	attrs  map[string]map[string]string // logical id -> attribute -> value
	absent map[string]string            // logical id -> why it is not there

	condDefs  map[string]any  // condition name -> definition
	conds     map[string]bool // evaluated conditions
	condStack map[string]bool // conditions being evaluated (cycle check)
}

// noValue is what AWS::NoValue resolves to before its container drops it.
type noValue struct{}

// ErrUnresolved marks a reference to something the local stack does not
// provide (a parameter nobody set, an IAM role, a resource whose condition
// is false, ...).
var ErrUnresolved = errors.New("unresolved reference")

// AbsentError is a reference to a template resource that does not exist
// locally: its type is not emulated or its condition is false. It is an
// ErrUnresolved.
type AbsentError struct {
	ID     string
	Reason string
}

func (e *AbsentError) Error() string { return e.ID + " " + e.Reason }

// Unwrap makes an AbsentError an ErrUnresolved.
func (e *AbsentError) Unwrap() error { return ErrUnresolved }

// NewEvaluator returns an Evaluator with the given parameter values and
// the pseudo parameters of a stack named stackName.
func NewEvaluator(params map[string]string, region, accountID, stackName string) *Evaluator {
	return &Evaluator{
		params: params,
		pseudo: map[string]string{
			"AWS::Region":    region,
			"AWS::AccountId": accountID,
			"AWS::StackName": stackName,
			"AWS::StackId":   fmt.Sprintf("arn:aws:cloudformation:%s:%s:stack/%s/local", region, accountID, stackName),
			"AWS::Partition": "aws",
			"AWS::URLSuffix": "amazonaws.com",
		},
		refs:      map[string]string{},
		attrs:     map[string]map[string]string{},
		absent:    map[string]string{},
		condDefs:  map[string]any{},
		conds:     map[string]bool{},
		condStack: map[string]bool{},
	}
}

// Define records what Ref and Fn::GetAtt of a provisioned resource return.
func (e *Evaluator) Define(logicalID, ref string, attrs map[string]string) {
	e.refs[logicalID] = ref
	e.attrs[logicalID] = attrs
}

// Ref returns what Ref of a defined resource returns.
func (e *Evaluator) Ref(logicalID string) (string, bool) {
	v, ok := e.refs[logicalID]
	return v, ok
}

// Attr returns a defined resource's attribute.
func (e *Evaluator) Attr(logicalID, attr string) (string, bool) {
	v, ok := e.attrs[logicalID][attr]
	return v, ok
}

// Absent records that a resource of the template does not exist locally
// and why ("(AWS::IAM::Role) is not emulated locally"); references to it
// become *AbsentError.
func (e *Evaluator) Absent(logicalID, reason string) {
	e.absent[logicalID] = reason
}

// Resolve returns v with every intrinsic function evaluated. A top-level
// AWS::NoValue resolves to nil.
func (e *Evaluator) Resolve(v any) (any, error) {
	out, err := e.eval(v)
	if err != nil {
		return nil, err
	}
	if _, ok := out.(noValue); ok {
		return nil, nil
	}
	return out, nil
}

// ResolveString resolves v and requires a scalar result, rendered as a string.
func (e *Evaluator) ResolveString(v any) (string, error) {
	out, err := e.Resolve(v)
	if err != nil {
		return "", err
	}
	switch out.(type) {
	case map[string]any, []any:
		return "", fmt.Errorf("expected a scalar, got %T", out)
	}
	return ScalarString(out), nil
}

func (e *Evaluator) eval(v any) (any, error) {
	switch x := v.(type) {
	case map[string]any:
		if len(x) == 1 {
			for k, arg := range x {
				if k == "Ref" || strings.HasPrefix(k, "Fn::") {
					return e.intrinsic(k, arg)
				}
			}
		}
		out := make(map[string]any, len(x))
		for k, el := range x {
			ev, err := e.eval(el)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", k, err)
			}
			if _, ok := ev.(noValue); !ok {
				out[k] = ev
			}
		}
		return out, nil
	case []any:
		out := make([]any, 0, len(x))
		for i, el := range x {
			ev, err := e.eval(el)
			if err != nil {
				return nil, fmt.Errorf("[%d]: %w", i, err)
			}
			if _, ok := ev.(noValue); !ok {
				out = append(out, ev)
			}
		}
		return out, nil
	default:
		return v, nil
	}
}

func (e *Evaluator) intrinsic(name string, arg any) (any, error) {
	switch name {
	case "Ref":
		id, ok := arg.(string)
		if !ok {
			return nil, fmt.Errorf("Ref: want a name, got %T", arg)
		}
		return e.ref(id)
	case "Fn::GetAtt":
		id, attr, err := getAttArgs(arg)
		if err != nil {
			return nil, err
		}
		return e.getAtt(id, attr)
	case "Fn::Sub":
		return e.sub(arg)
	case "Fn::Join":
		return e.join(arg)
	case "Fn::Select":
		return e.selectFn(arg)
	case "Fn::Split":
		return e.split(arg)
	case "Fn::If":
		return e.ifFn(arg)
	default:
		return nil, fmt.Errorf("%s is not supported by the local stack", name)
	}
}

func (e *Evaluator) ref(id string) (any, error) {
	if id == "AWS::NoValue" {
		return noValue{}, nil
	}
	if v, ok := e.pseudo[id]; ok {
		return v, nil
	}
	if v, ok := e.params[id]; ok {
		return v, nil
	}
	if v, ok := e.refs[id]; ok {
		return v, nil
	}
	if why, ok := e.absent[id]; ok {
		return nil, fmt.Errorf("Ref %s: %w", id, &AbsentError{ID: id, Reason: why})
	}
	return nil, fmt.Errorf("Ref %s: %w", id, ErrUnresolved)
}

func (e *Evaluator) getAtt(id, attr string) (string, error) {
	attrs, ok := e.attrs[id]
	if !ok {
		if why, ok := e.absent[id]; ok {
			return "", fmt.Errorf("Fn::GetAtt %s.%s: %w", id, attr, &AbsentError{ID: id, Reason: why})
		}
		return "", fmt.Errorf("Fn::GetAtt %s.%s: %w", id, attr, ErrUnresolved)
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

// subArgs splits Fn::Sub's argument into its template and resolved variables.
func (e *Evaluator) subArgs(arg any) (string, map[string]string, error) {
	vars := map[string]string{}
	switch x := arg.(type) {
	case string:
		return x, vars, nil
	case []any:
		if len(x) != 2 {
			return "", nil, fmt.Errorf("Fn::Sub: want [template, vars]")
		}
		s, ok := x[0].(string)
		m, ok2 := x[1].(map[string]any)
		if !ok || !ok2 {
			return "", nil, fmt.Errorf("Fn::Sub: want [string, map]")
		}
		for k, v := range m {
			s, err := e.ResolveString(v)
			if err != nil {
				return "", nil, fmt.Errorf("Fn::Sub variable %s: %w", k, err)
			}
			vars[k] = s
		}
		return s, vars, nil
	default:
		return "", nil, fmt.Errorf("Fn::Sub: want a string or [string, map], got %T", arg)
	}
}

func (e *Evaluator) sub(arg any) (any, error) {
	tmpl, vars, err := e.subArgs(arg)
	if err != nil {
		return nil, err
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
			v, err = e.getAtt(id, attr)
		} else {
			v, err = e.ref(name)
		}
		if err != nil {
			if firstErr == nil {
				firstErr = fmt.Errorf("Fn::Sub ${%s}: %w", name, err)
			}
			return m
		}
		return ScalarString(v)
	})
	if firstErr != nil {
		return nil, firstErr
	}
	return out, nil
}

func (e *Evaluator) join(arg any) (any, error) {
	x, ok := arg.([]any)
	if !ok || len(x) != 2 {
		return nil, fmt.Errorf("Fn::Join: want [delimiter, list]")
	}
	delim, ok := x[0].(string)
	if !ok {
		return nil, fmt.Errorf("Fn::Join: delimiter must be a string")
	}
	list, err := e.Resolve(x[1])
	if err != nil {
		return nil, fmt.Errorf("Fn::Join: %w", err)
	}
	items, ok := list.([]any)
	if !ok {
		return nil, fmt.Errorf("Fn::Join: want a list, got %T", list)
	}
	parts := make([]string, len(items))
	for i, it := range items {
		parts[i] = ScalarString(it)
	}
	return strings.Join(parts, delim), nil
}

func (e *Evaluator) selectFn(arg any) (any, error) {
	x, ok := arg.([]any)
	if !ok || len(x) != 2 {
		return nil, fmt.Errorf("Fn::Select: want [index, list]")
	}
	idxV, err := e.ResolveString(x[0])
	if err != nil {
		return nil, fmt.Errorf("Fn::Select index: %w", err)
	}
	idx, err := strconv.Atoi(idxV)
	if err != nil {
		return nil, fmt.Errorf("Fn::Select index %q: %w", idxV, err)
	}
	list, err := e.Resolve(x[1])
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

func (e *Evaluator) split(arg any) (any, error) {
	x, ok := arg.([]any)
	if !ok || len(x) != 2 {
		return nil, fmt.Errorf("Fn::Split: want [delimiter, string]")
	}
	delim, ok := x[0].(string)
	if !ok {
		return nil, fmt.Errorf("Fn::Split: delimiter must be a string")
	}
	s, err := e.ResolveString(x[1])
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

// ifFn evaluates Fn::If [condition, then, else]: only the chosen branch,
// which may be AWS::NoValue.
func (e *Evaluator) ifFn(arg any) (any, error) {
	x, ok := arg.([]any)
	if !ok || len(x) != 3 {
		return nil, fmt.Errorf("Fn::If: want [condition, value if true, value if false]")
	}
	name, ok := x[0].(string)
	if !ok {
		return nil, fmt.Errorf("Fn::If: condition must be a name, got %T", x[0])
	}
	c, err := e.Condition(name)
	if err != nil {
		return nil, fmt.Errorf("Fn::If: %w", err)
	}
	branch := x[2]
	if c {
		branch = x[1]
	}
	return e.eval(branch)
}
