package devstack

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
)

// Template is the part of a CloudFormation template (JSON, as written by
// infra/sam2cfn.py) that the local stack reads.
type Template struct {
	Parameters map[string]Parameter `json:"Parameters"`
	Resources  map[string]Resource  `json:"Resources"`
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
}

// LoadTemplate reads a CloudFormation JSON template.
func LoadTemplate(path string) (*Template, error) {
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
	cmd.Env = append(os.Environ(), "AWS_DEFAULT_REGION="+envOr("AWS_DEFAULT_REGION", "us-east-1"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("translate %s with infra/sam2cfn.py (needs python3 with aws-sam-translator): %w: %s", samPath, err, out)
	}
	return nil
}

// ensureTranslated makes sure outPath is at least as new as samPath,
// translating when it is missing or stale.
func ensureTranslated(ctx context.Context, root, samPath, outPath string, logf func(string, ...any)) error {
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

// resourceIDs returns the logical ids of resources of the given type, sorted.
func (t *Template) resourceIDs(typ string) []string {
	var ids []string
	for id, r := range t.Resources {
		if r.Type == typ {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	return ids
}

// parameterValues merges given values over the template defaults, and checks
// that every parameter has a value that matches its AllowedPattern.
func (t *Template) parameterValues(given map[string]string) (map[string]string, error) {
	vals := map[string]string{}
	for name, p := range t.Parameters {
		if v, ok := given[name]; ok {
			vals[name] = v
		} else if p.Default != nil {
			vals[name] = scalarString(p.Default)
		} else {
			return nil, fmt.Errorf("template parameter %s has no default and no value was given", name)
		}
		if p.AllowedPattern != "" {
			re, err := compileAnchored(p.AllowedPattern)
			if err != nil {
				return nil, fmt.Errorf("parameter %s: AllowedPattern: %w", name, err)
			}
			if !re.MatchString(vals[name]) {
				// Never echo the value: it may be a secret.
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

// scalarString renders a JSON scalar the way CloudFormation passes it to an
// API expecting a string.
func scalarString(v any) string {
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

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}
