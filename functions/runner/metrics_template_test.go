package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"regexp"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/zero-gateway/zero/cmd/zero/devstack/template"
	"github.com/zero-gateway/zero/shared/cost"
	"github.com/zero-gateway/zero/shared/metrics"
)

// TestTemplateDashboardAndAlarms: template.yaml's dashboard is valid JSON
// once substituted and names only metrics the runner emits (namespace
// ZERO, dimension Function = the runner); the alarms watch failures and
// message age.
func TestTemplateDashboardAndAlarms(t *testing.T) {
	out := filepath.Join(t.TempDir(), "template.json")
	if err := template.Translate(context.Background(), "../..", "template.yaml", out); err != nil {
		t.Fatal(err)
	}
	tmpl, err := template.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	t.Run("dashboard", func(t *testing.T) {
		dash, ok := tmpl.Resources["Dashboard"]
		if !ok || dash.Type != "AWS::CloudWatch::Dashboard" {
			t.Fatalf("no AWS::CloudWatch::Dashboard named Dashboard: %+v", dash)
		}
		sub, _ := dash.Properties["DashboardBody"].(map[string]any)["Fn::Sub"].([]any)
		if len(sub) != 2 {
			t.Fatalf("DashboardBody is not a two-argument Fn::Sub: %v", dash.Properties["DashboardBody"])
		}
		vars := sub[1].(map[string]any)
		if diff := cmp.Diff(map[string]any{"Ref": "Runner"}, vars["Fn"]); diff != "" {
			t.Errorf("the dashboard's Function is not the runner (-want +got):\n%s", diff)
		}
		body := regexp.MustCompile(`\$\{[^}]+\}`).ReplaceAllString(sub[0].(string), "x")
		var doc struct {
			Widgets []struct {
				Properties struct {
					Metrics [][]any `json:"metrics"`
				} `json:"properties"`
			} `json:"widgets"`
		}
		if err := json.Unmarshal([]byte(body), &doc); err != nil {
			t.Fatalf("dashboard body is not JSON: %v\n%s", err, body)
		}
		shown := map[string]bool{}
		for _, w := range doc.Widgets {
			namespace := ""
			for _, m := range w.Properties.Metrics {
				if ns, _ := m[0].(string); ns != "." {
					namespace = ns
				}
				name, _ := m[1].(string)
				if namespace == "ZERO" {
					if !slices.Contains(metrics.Names, name) {
						t.Errorf("dashboard shows ZERO/%s, which the runner does not emit", name)
					}
					shown[name] = true
				}
			}
		}
		for _, name := range metrics.Names {
			if !shown[name] {
				t.Errorf("the runner emits %s but the dashboard does not show it", name)
			}
		}
	})
	// The price table prices the functions as the template deploys them.
	t.Run("memory and architecture the cost lines price", func(t *testing.T) {
		for id, wantMB := range map[string]int{"Runner": cost.RunnerMemoryMB, "TelegramWebhook": cost.WebhookMemoryMB} {
			props := tmpl.Resources[id].Properties
			got := map[string]any{"MemorySize": props["MemorySize"], "Architectures": props["Architectures"]}
			want := map[string]any{"MemorySize": float64(wantMB), "Architectures": []any{string(cost.DeployedArch)}}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s (-priced +template):\n%s", id, diff)
			}
		}
	})
	alarms := []struct {
		id, namespace, metric, dimension string
		dimensionValue                   any
	}{
		{"TurnFailuresAlarm", "ZERO", metrics.Failures, "Function", map[string]any{"Ref": "Runner"}},
		{"MessageAgeAlarm", "AWS/SQS", "ApproximateAgeOfOldestMessage", "QueueName", map[string]any{"Fn::GetAtt": []any{"WorkQueue", "QueueName"}}},
	}
	for _, a := range alarms {
		t.Run(a.id, func(t *testing.T) {
			r, ok := tmpl.Resources[a.id]
			if !ok || r.Type != "AWS::CloudWatch::Alarm" {
				t.Fatalf("no alarm %s", a.id)
			}
			got := map[string]any{"Namespace": r.Properties["Namespace"], "MetricName": r.Properties["MetricName"], "Dimensions": r.Properties["Dimensions"]}
			want := map[string]any{"Namespace": a.namespace, "MetricName": a.metric,
				"Dimensions": []any{map[string]any{"Name": a.dimension, "Value": a.dimensionValue}}}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("alarm (-want +got):\n%s", diff)
			}
		})
	}
}
