package metrics

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestTurnLineIsEMF writes a turn through a JSON slog logger (as the
// runner's lambdalog does) and reads it back as CloudWatch would.
func TestTurnLineIsEMF(t *testing.T) {
	var buf bytes.Buffer
	e := NewEMF(slog.New(slog.NewJSONHandler(&buf, nil)), "zero-Runner-ABC")
	e.now = func() time.Time { return time.UnixMilli(1_800_000_000_000) }
	e.Turn(context.Background(), Turn{
		Latency: 1500 * time.Millisecond, ModelLatency: 1200 * time.Millisecond,
		InputTokens: 900, OutputToks: 40, AWSCalls: 5, InfraUSD: 0.000012, ModelUSD: 0.0003,
		Failed: true, MessageAge: 250 * time.Millisecond,
	})
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 1 {
		t.Fatalf("%d lines; want 1:\n%s", len(lines), buf.String())
	}
	got, err := Check([]byte(lines[0]))
	if err != nil {
		t.Fatalf("Check: %v\n%s", err, lines[0])
	}
	want := Parsed{
		Namespace:  "ZERO",
		Dimensions: map[string]string{"Function": "zero-Runner-ABC"},
		Values: map[string]float64{
			"TurnLatency": 1500, "ModelLatency": 1200, "InputTokens": 900, "OutputTokens": 40, "AWSCalls": 5,
			"InfraCostUSD": 0.000012, "ModelCostUSD": 0.0003, "TurnFailures": 1, "MessageAge": 250,
		},
		Units: map[string]string{
			"TurnLatency": "Milliseconds", "ModelLatency": "Milliseconds", "InputTokens": "Count", "OutputTokens": "Count",
			"AWSCalls": "Count", "InfraCostUSD": "None", "ModelCostUSD": "None", "TurnFailures": "Count", "MessageAge": "Milliseconds",
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("EMF line (-want +got):\n%s", diff)
	}
	var doc map[string]any
	json.Unmarshal([]byte(lines[0]), &doc)
	if ts := doc["_aws"].(map[string]any)["Timestamp"]; ts != float64(1_800_000_000_000) {
		t.Errorf("Timestamp = %v; want the clock's epoch ms", ts)
	}
}

func TestEmptyFunctionIsLocal(t *testing.T) {
	var buf bytes.Buffer
	NewEMF(slog.New(slog.NewJSONHandler(&buf, nil)), "").Turn(context.Background(), Turn{})
	got, err := Check(bytes.TrimSpace(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if got.Dimensions["Function"] != "local" || got.Values["TurnFailures"] != 0 {
		t.Errorf("got %+v; want Function=local and no failure", got)
	}
}

// TestCheck: the rules of the EMF specification, each broken once; the
// specification's own example passes.
func TestCheck(t *testing.T) {
	example, err := os.ReadFile("testdata/emf-aws-example.json")
	if err != nil {
		t.Fatal(err)
	}
	const ok = `{"_aws":{"Timestamp":1,"CloudWatchMetrics":[{"Namespace":"N","Dimensions":[["F"]],"Metrics":[{"Name":"m","Unit":"Count"}]}]},"F":"f","m":2}`
	tests := []struct {
		name, line, wantErr string
	}{
		{"the specification's example", string(example), ""},
		{"minimal", ok, ""},
		{"not JSON", `turn metrics`, "not a JSON object"},
		{"no metadata", `{"m":1}`, "no _aws metadata"},
		{"no timestamp", strings.Replace(ok, `"Timestamp":1,`, ``, 1), "Timestamp"},
		{"no directives", `{"_aws":{"Timestamp":1,"CloudWatchMetrics":[]}}`, "CloudWatchMetrics is empty"},
		{"no namespace", strings.Replace(ok, `"Namespace":"N",`, ``, 1), "no Namespace"},
		{"no dimensions", strings.Replace(ok, `"Dimensions":[["F"]],`, ``, 1), "no Dimensions"},
		{"dimension not a string", strings.Replace(ok, `"F":"f"`, `"F":3`, 1), `dimension "F"`},
		{"metric value missing", strings.Replace(ok, `,"m":2`, ``, 1), `metric "m" has no top-level number`},
		{"metric value a string", strings.Replace(ok, `"m":2`, `"m":"2"`, 1), `metric "m" has no top-level number`},
		{"unknown unit", strings.Replace(ok, `"Unit":"Count"`, `"Unit":"USD"`, 1), `unknown unit "USD"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Check([]byte(tc.line))
			switch {
			case tc.wantErr == "" && err != nil:
				t.Errorf("Check: %v; want no error", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Errorf("Check: %v; want an error containing %q", err, tc.wantErr)
			}
		})
	}
}

func FuzzCheck(f *testing.F) {
	f.Add([]byte(`{"_aws":{"Timestamp":1,"CloudWatchMetrics":[{"Namespace":"N","Dimensions":[["F"]],"Metrics":[{"Name":"m"}]}]},"F":"f","m":2}`))
	f.Add([]byte(`{}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		p, err := Check(line)
		if err != nil {
			return
		}
		if p.Namespace == "" || len(p.Values) == 0 {
			t.Errorf("accepted %q with no namespace or no metrics", line)
		}
	})
}

func TestNamesAreTheLinesMetrics(t *testing.T) {
	var buf bytes.Buffer
	NewEMF(slog.New(slog.NewJSONHandler(&buf, nil)), "f").Turn(context.Background(), Turn{})
	p, err := Check(bytes.TrimSpace(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for name := range p.Values {
		got = append(got, name)
	}
	if diff := cmp.Diff(Names, got, cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
		t.Errorf("Names (-want +line):\n%s", diff)
	}
}
