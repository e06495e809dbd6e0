package settings

import (
	"context"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/zero-gateway/zero/cmd/zero/devstack/template"
)

// localOnly are the variables a function's settings may read although
// template.yaml never sets them, each with why. Anything else a function
// reads must be in its template environment, and the reverse.
var localOnly = map[string]string{
	// Tuning that `zero dev` shortens (cmd/zero/devstack sets both);
	// deployed, the defaults hold.
	"ZERO_CONFIG_TTL":  "how often zero.json is read again",
	"ZERO_SECRETS_TTL": "how often the secrets are read again",
	// The AWS SDK's own endpoint overrides: the local stack and the tests
	// point the functions at an emulator (S3 is then addressed by path).
	"AWS_ENDPOINT_URL":    "the emulator's endpoint",
	"AWS_ENDPOINT_URL_S3": "the emulator's S3 endpoint",
	// Base URLs with no stack parameter: fakes in tests, a gateway or
	// proxy in a local run. (TELEGRAM_API_BASE_URL, DISCORD_API_BASE_URL
	// and OPENAI_BASE_URL are stack parameters: the template sets them.)
	"ANTHROPIC_BASE_URL":   "a fake Anthropic API or a gateway",
	"BRAVE_API_BASE_URL":   "a fake Brave Search API",
	"DISCORD_CDN_BASE_URL": "a fake Discord CDN",
}

// TestSettingsMatchTemplate: for each function of template.yaml (as
// translated by infra/sam2cfn.py, the CloudFormation the stack and `zero
// dev` run), every variable the template sets is read by the function's
// settings, and every variable the settings read is set by the template
// or local-only. A secret's variable holds its SSM parameter's name,
// /zero/<stack>/secrets/<name>, never a value.
func TestSettingsMatchTemplate(t *testing.T) {
	tmpl := translated(t)
	ids := tmpl.ResourceIDs("AWS::Lambda::Function")
	for _, id := range ids {
		if functions[id] == nil {
			t.Errorf("template function %s has no settings here", id)
		}
	}
	used := map[string]bool{}
	for id, newSettings := range functions {
		t.Run(id, func(t *testing.T) {
			if !slices.Contains(ids, id) {
				t.Fatalf("no function %s in the template", id)
			}
			env := environment(t, tmpl.Resources[id])
			read := map[string]bool{}
			for _, v := range Vars(newSettings()) {
				read[v.Name] = true
				value, set := env[v.Name]
				switch {
				case !set && localOnly[v.Name] == "":
					t.Errorf("%s's settings read %s, which the template does not set (set it, or list it in localOnly)", id, v.Name)
				case !set:
					used[v.Name] = true
				case v.Secret != "":
					want := map[string]any{"Fn::Sub": "/zero/${AWS::StackName}/secrets/" + v.Secret}
					if !reflect.DeepEqual(value, want) {
						t.Errorf("the template sets %s to %v; want the name of the secret's parameter %v", v.Name, value, want)
					}
				}
			}
			for name := range env {
				if !read[name] {
					t.Errorf("the template sets %s on %s, whose settings do not read it", name, id)
				}
			}
		})
	}
	for name := range localOnly {
		if !used[name] {
			t.Errorf("localOnly lists %s, which no function reads without the template setting it", name)
		}
	}
}

// translated is template.yaml translated into CloudFormation JSON.
func translated(t *testing.T) *template.Template {
	t.Helper()
	out := filepath.Join(t.TempDir(), "template.json")
	if err := template.Translate(context.Background(), "../../..", "template.yaml", out); err != nil {
		t.Fatal(err)
	}
	tmpl, err := template.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	return tmpl
}

// environment is a function resource's Environment.Variables, unevaluated.
func environment(t *testing.T, r template.Resource) map[string]any {
	t.Helper()
	env, _ := r.Properties["Environment"].(map[string]any)
	vars, _ := env["Variables"].(map[string]any)
	if vars == nil {
		t.Fatalf("function has no Environment.Variables")
	}
	return vars
}
