package template

import (
	"errors"
	"fmt"
	"sort"
)

// OutputValue is an evaluated template output.
type OutputValue struct {
	Name        string
	Description string
	// Value is the resolved value; "" when Unavailable is set.
	Value string
	// Unavailable says why the output has no local value: it refers to a
	// resource that does not exist locally (see Evaluator.Absent).
	Unavailable string
}

// Outputs evaluates a template's outputs, sorted by name, once every
// resource is defined. An output whose Condition is false is left out, as
// CloudFormation does. An output that refers to an absent resource is kept
// with Unavailable set; any other failure (an unsupported function, an
// undeclared condition, an unknown name) is an error naming the output.
func (e *Evaluator) Outputs(outputs map[string]Output) ([]OutputValue, error) {
	names := make([]string, 0, len(outputs))
	for name := range outputs {
		names = append(names, name)
	}
	sort.Strings(names)
	var out []OutputValue
	for _, name := range names {
		o := outputs[name]
		if o.Condition != "" {
			c, err := e.Condition(o.Condition)
			if err != nil {
				return nil, fmt.Errorf("output %s: %w", name, err)
			}
			if !c {
				continue
			}
		}
		v := OutputValue{Name: name, Description: o.Description}
		s, err := e.ResolveString(o.Value)
		var absent *AbsentError
		switch {
		case errors.As(err, &absent):
			v.Unavailable = absent.Error()
		case err != nil:
			return nil, fmt.Errorf("output %s: %w", name, err)
		default:
			v.Value = s
		}
		out = append(out, v)
	}
	return out, nil
}
