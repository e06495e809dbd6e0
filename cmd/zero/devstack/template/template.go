// Package template reads the CloudFormation JSON that infra/sam2cfn.py
// translates template.yaml into, and evaluates it for the local stack:
// parameter values, Conditions, resource Conditions, intrinsic functions
// and Outputs. It creates nothing; package provision does, with its
// Evaluator.
//
// Nothing is dropped silently: an intrinsic function, a condition
// function or a reference it cannot evaluate is an error that names the
// resource, property, condition or output it came from.
package template

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
)

// Template is the part of a CloudFormation template (JSON, as written by
// infra/sam2cfn.py) that the local stack reads.
type Template struct {
	Parameters map[string]Parameter `json:"Parameters"`
	// Conditions are the condition definitions by name, unevaluated (see
	// Evaluator.Conditions).
	Conditions map[string]any      `json:"Conditions"`
	Resources  map[string]Resource `json:"Resources"`
	Outputs    map[string]Output   `json:"Outputs"`
}

// Parameter is a template parameter declaration.
type Parameter struct {
	Type           string `json:"Type"`
	Default        any    `json:"Default"`
	NoEcho         bool   `json:"NoEcho"`
	AllowedPattern string `json:"AllowedPattern"`
}

// Resource is one template resource. Properties keep their raw JSON shape
// (maps, lists, strings, float64, bools) with intrinsics unresolved.
type Resource struct {
	Type       string         `json:"Type"`
	Properties map[string]any `json:"Properties"`
	DependsOn  any            `json:"DependsOn"`
	Metadata   map[string]any `json:"Metadata"`
	// Condition names the condition that decides whether the resource
	// exists ("" for always).
	Condition string `json:"Condition"`
}

// Output is one declared output, unevaluated (see Evaluator.Outputs).
type Output struct {
	Description string `json:"Description"`
	Value       any    `json:"Value"`
	Condition   string `json:"Condition"`
	Export      any    `json:"Export"`
}

// Load reads a CloudFormation JSON template.
func Load(path string) (*Template, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read template: %w", err)
	}
	var t Template
	if err := json.Unmarshal(data, &t); err != nil {
		return nil, fmt.Errorf("parse template %s: %w", path, err)
	}
	if len(t.Resources) == 0 {
		return nil, fmt.Errorf("template %s has no Resources", path)
	}
	return &t, nil
}

// Translate runs infra/sam2cfn.py under root to turn the SAM template samPath
// into CloudFormation JSON at outPath. The interpreter is $PYTHON or python3.
func Translate(ctx context.Context, root, samPath, outPath string) error {
	python := os.Getenv("PYTHON")
	if python == "" {
		python = "python3"
	}
	cmd := exec.CommandContext(ctx, python, filepath.Join("infra", "sam2cfn.py"), samPath, outPath)
	cmd.Dir = root
	region := os.Getenv("AWS_DEFAULT_REGION")
	if region == "" {
		region = "us-east-1"
	}
	cmd.Env = append(os.Environ(), "AWS_DEFAULT_REGION="+region)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("translate %s with infra/sam2cfn.py (needs python3 with aws-sam-translator): %w: %s", samPath, err, out)
	}
	return nil
}

// EnsureTranslated makes sure outPath is at least as new as samPath (relative
// to root), translating when it is missing or stale.
func EnsureTranslated(ctx context.Context, root, samPath, outPath string, logf func(string, ...any)) error {
	src, err := os.Stat(filepath.Join(root, samPath))
	if err != nil {
		return fmt.Errorf("SAM template: %w", err)
	}
	dst, err := os.Stat(outPath)
	if err == nil && !dst.ModTime().Before(src.ModTime()) {
		return nil
	}
	logf("translating %s -> %s", samPath, outPath)
	return Translate(ctx, root, samPath, outPath)
}

// ResourceIDs returns the logical ids of resources of the given type, sorted.
func (t *Template) ResourceIDs(typ string) []string {
	var ids []string
	for id, r := range t.Resources {
		if r.Type == typ {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	return ids
}

// ParameterValues merges given values over the template defaults, and
// checks that every parameter has a value that matches its AllowedPattern
// and that every given value is declared. Errors never echo a value (it
// may be a secret).
func (t *Template) ParameterValues(given map[string]string) (map[string]string, error) {
	vals := map[string]string{}
	for name, p := range t.Parameters {
		if v, ok := given[name]; ok {
			vals[name] = v
		} else if p.Default != nil {
			vals[name] = ScalarString(p.Default)
		} else {
			return nil, fmt.Errorf("template parameter %s has no default and no value was given", name)
		}
		if p.AllowedPattern != "" {
			re, err := regexp.Compile(`^(?:` + p.AllowedPattern + `)$`)
			if err != nil {
				return nil, fmt.Errorf("parameter %s: AllowedPattern: %w", name, err)
			}
			if !re.MatchString(vals[name]) {
				return nil, fmt.Errorf("parameter %s does not match its AllowedPattern %s", name, p.AllowedPattern)
			}
		}
	}
	for name := range given {
		if _, ok := t.Parameters[name]; !ok {
			return nil, fmt.Errorf("parameter %s is not declared in the template", name)
		}
	}
	return vals, nil
}

// ScalarString renders a JSON scalar the way CloudFormation passes it to an
// API expecting a string; maps and lists are rendered as JSON.
func ScalarString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case nil:
		return ""
	default:
		b, _ := json.Marshal(x)
		return string(b)
	}
}
