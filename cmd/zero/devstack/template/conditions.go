package template

import (
	"fmt"
	"reflect"
	"sort"
)

// Conditions evaluates every condition definition of a template (its
// Conditions section) with the Evaluator's parameters and returns the
// results by name. Conditions may refer to each other ({"Condition":
// name}); Fn::If and Condition use the results afterwards. A definition
// it cannot evaluate (an unknown function, a reference to a resource, a
// cycle, an undeclared condition) is an error naming the condition.
func (e *Evaluator) Conditions(defs map[string]any) (map[string]bool, error) {
	e.condDefs = defs
	e.conds = map[string]bool{}
	names := make([]string, 0, len(defs))
	for name := range defs {
		names = append(names, name)
	}
	sort.Strings(names)
	out := make(map[string]bool, len(names))
	for _, name := range names {
		v, err := e.Condition(name)
		if err != nil {
			return nil, err
		}
		out[name] = v
	}
	return out, nil
}

// Condition returns the value of a declared condition, evaluating it on
// first use.
func (e *Evaluator) Condition(name string) (bool, error) {
	if v, ok := e.conds[name]; ok {
		return v, nil
	}
	def, ok := e.condDefs[name]
	if !ok {
		return false, fmt.Errorf("condition %s is not declared in Conditions", name)
	}
	if e.condStack[name] {
		return false, fmt.Errorf("condition %s refers to itself", name)
	}
	e.condStack[name] = true
	defer delete(e.condStack, name)
	v, err := e.evalCondition(def)
	if err != nil {
		return false, fmt.Errorf("condition %s: %w", name, err)
	}
	e.conds[name] = v
	return v, nil
}

// evalCondition evaluates a condition function: Fn::Equals, Fn::Not,
// Fn::And, Fn::Or or {"Condition": name}.
func (e *Evaluator) evalCondition(v any) (bool, error) {
	m, ok := v.(map[string]any)
	if !ok || len(m) != 1 {
		return false, fmt.Errorf("want one condition function, got %v", v)
	}
	var (
		fn  string
		arg any
	)
	for fn, arg = range m {
	}
	switch fn {
	case "Condition":
		name, ok := arg.(string)
		if !ok {
			return false, fmt.Errorf("Condition: want a name, got %T", arg)
		}
		return e.Condition(name)
	case "Fn::Equals":
		return e.equals(arg)
	case "Fn::Not":
		args, err := conditionArgs(fn, arg, 1, 1)
		if err != nil {
			return false, err
		}
		c, err := e.evalCondition(args[0])
		return !c, err
	case "Fn::And", "Fn::Or":
		return e.andOr(fn, arg)
	}
	return false, fmt.Errorf("%s is not a condition function", fn)
}

// equals compares two resolved values as CloudFormation does: scalars by
// their string form (a Number parameter "5" equals 5), lists and maps
// structurally.
func (e *Evaluator) equals(arg any) (bool, error) {
	args, err := conditionArgs("Fn::Equals", arg, 2, 2)
	if err != nil {
		return false, err
	}
	var vals [2]any
	for i, a := range args {
		v, err := e.Resolve(a)
		if err != nil {
			return false, fmt.Errorf("Fn::Equals: %w", err)
		}
		vals[i] = v
	}
	switch vals[0].(type) {
	case map[string]any, []any:
		return reflect.DeepEqual(vals[0], vals[1]), nil
	}
	switch vals[1].(type) {
	case map[string]any, []any:
		return false, nil
	}
	return ScalarString(vals[0]) == ScalarString(vals[1]), nil
}

func (e *Evaluator) andOr(fn string, arg any) (bool, error) {
	args, err := conditionArgs(fn, arg, 2, 10)
	if err != nil {
		return false, err
	}
	and := fn == "Fn::And"
	for _, a := range args {
		c, err := e.evalCondition(a)
		if err != nil {
			return false, fmt.Errorf("%s: %w", fn, err)
		}
		if c != and {
			return c, nil
		}
	}
	return and, nil
}

func conditionArgs(fn string, arg any, least, most int) ([]any, error) {
	args, ok := arg.([]any)
	if !ok || len(args) < least || len(args) > most {
		if least == most {
			return nil, fmt.Errorf("%s: want a list of %d, got %v", fn, least, arg)
		}
		return nil, fmt.Errorf("%s: want a list of %d to %d conditions, got %v", fn, least, most, arg)
	}
	return args, nil
}
