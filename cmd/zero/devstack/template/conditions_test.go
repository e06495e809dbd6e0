package template

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func ref(name string) map[string]any { return map[string]any{"Ref": name} }

func equals(a, b any) map[string]any { return map[string]any{"Fn::Equals": []any{a, b}} }

func cond(name string) map[string]any { return map[string]any{"Condition": name} }

func TestConditions(t *testing.T) {
	params := map[string]string{"Topic": "", "Stage": "prod", "Count": "5"}
	tests := []struct {
		name    string
		defs    map[string]any
		want    map[string]bool
		wantErr string
	}{
		{name: "none", defs: nil, want: map[string]bool{}},
		{
			name: "equals and not, as template.yaml's HasAlarmTopic",
			defs: map[string]any{"HasTopic": map[string]any{"Fn::Not": []any{equals(ref("Topic"), "")}}},
			want: map[string]bool{"HasTopic": false},
		},
		{
			name: "a number parameter equals a number",
			defs: map[string]any{"Five": equals(ref("Count"), 5.0), "Six": equals(6.0, ref("Count"))},
			want: map[string]bool{"Five": true, "Six": false},
		},
		{
			name: "pseudo parameter",
			defs: map[string]any{"InEU": equals(ref("AWS::Region"), "eu-west-1")},
			want: map[string]bool{"InEU": true},
		},
		{
			name: "and, or and condition references",
			defs: map[string]any{
				"Prod":       equals(ref("Stage"), "prod"),
				"NoTopic":    equals(ref("Topic"), ""),
				"ProdQuiet":  map[string]any{"Fn::And": []any{cond("Prod"), cond("NoTopic")}},
				"ProdOrLoud": map[string]any{"Fn::Or": []any{cond("Prod"), map[string]any{"Fn::Not": []any{cond("NoTopic")}}}},
				"Neither":    map[string]any{"Fn::And": []any{cond("Prod"), map[string]any{"Fn::Not": []any{cond("ProdQuiet")}}}},
			},
			want: map[string]bool{"Prod": true, "NoTopic": true, "ProdQuiet": true, "ProdOrLoud": true, "Neither": false},
		},
		{name: "lists compare structurally", defs: map[string]any{"L": equals([]any{"a"}, []any{"a"})}, want: map[string]bool{"L": true}},
		{name: "undeclared condition", defs: map[string]any{"A": cond("Missing")}, wantErr: "condition A: condition Missing is not declared"},
		{name: "cycle", defs: map[string]any{"A": cond("B"), "B": cond("A")}, wantErr: "refers to itself"},
		{name: "unknown function", defs: map[string]any{"A": map[string]any{"Fn::Contains": []any{"a", "b"}}}, wantErr: "condition A: Fn::Contains is not a condition function"},
		{name: "not a function", defs: map[string]any{"A": true}, wantErr: "condition A: want one condition function"},
		{name: "equals wants two", defs: map[string]any{"A": map[string]any{"Fn::Equals": []any{"a"}}}, wantErr: "condition A: Fn::Equals: want a list of 2"},
		{name: "and wants two or more", defs: map[string]any{"A": map[string]any{"Fn::And": []any{cond("A")}}}, wantErr: "condition A: Fn::And: want a list of 2 to 10"},
		{name: "unknown parameter", defs: map[string]any{"A": equals(ref("Nope"), "")}, wantErr: "condition A: Fn::Equals: Ref Nope: unresolved reference"},
		{name: "unsupported intrinsic inside", defs: map[string]any{"A": equals(map[string]any{"Fn::FindInMap": []any{"M", "k", "v"}}, "")}, wantErr: "condition A: Fn::Equals: Fn::FindInMap is not supported"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := NewEvaluator(params, "eu-west-1", "123456789012", "zero-t")
			got, err := e.Conditions(tt.defs)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Conditions() error = %v, want it to contain %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Conditions() error = %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Conditions() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFnIf(t *testing.T) {
	ifFn := func(c string, a, b any) map[string]any { return map[string]any{"Fn::If": []any{c, a, b}} }
	tests := []struct {
		name    string
		in      any
		want    any
		wantErr string
	}{
		{name: "true branch", in: ifFn("Yes", "a", "b"), want: "a"},
		{name: "false branch", in: ifFn("No", "a", ref("Secret")), want: "s3cr3t"},
		{
			name: "NoValue drops the key, as the alarm's AlarmActions",
			in:   map[string]any{"AlarmActions": ifFn("No", []any{ref("Secret")}, ref("AWS::NoValue")), "Period": 60.0},
			want: map[string]any{"Period": 60.0},
		},
		{
			name: "list value kept",
			in:   map[string]any{"AlarmActions": ifFn("Yes", []any{ref("Secret")}, ref("AWS::NoValue"))},
			want: map[string]any{"AlarmActions": []any{"s3cr3t"}},
		},
		{name: "NoValue drops the element", in: []any{"a", ifFn("No", "b", ref("AWS::NoValue"))}, want: []any{"a"}},
		{name: "the other branch is not evaluated", in: ifFn("Yes", "a", ref("Missing")), want: "a"},
		{name: "undeclared condition", in: map[string]any{"P": ifFn("Maybe", "a", "b")}, wantErr: "P: Fn::If: condition Maybe is not declared"},
		{name: "wrong shape", in: map[string]any{"Fn::If": []any{"Yes", "a"}}, wantErr: "Fn::If: want [condition, value if true, value if false]"},
		{name: "error in the chosen branch", in: map[string]any{"P": ifFn("Yes", ref("Missing"), "b")}, wantErr: "P: Ref Missing: unresolved reference"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := testEvaluator()
			if _, err := e.Conditions(map[string]any{"Yes": equals("a", "a"), "No": equals("a", "b")}); err != nil {
				t.Fatal(err)
			}
			got, err := e.Resolve(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Resolve() error = %v, want it to contain %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Resolve() error = %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Resolve() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestOutputs(t *testing.T) {
	tests := []struct {
		name    string
		outputs map[string]Output
		want    []OutputValue
		wantErr string
	}{
		{
			name: "values, sorted",
			outputs: map[string]Output{
				"WorkQueueURL":     {Description: "queue", Value: ref("WorkQueue")},
				"SessionTableName": {Value: ref("SessionTable")},
				"Where":            {Value: map[string]any{"Fn::Sub": "${AWS::StackName} in ${AWS::Region}"}},
			},
			want: []OutputValue{
				{Name: "SessionTableName", Value: "zero-t-sessiontable"},
				{Name: "Where", Value: "zero-t in eu-west-1"},
				{Name: "WorkQueueURL", Description: "queue", Value: "http://localhost/123456789012/zero-t-workqueue.fifo"},
			},
		},
		{
			name: "a false condition leaves the output out",
			outputs: map[string]Output{
				"Topic":  {Value: ref("Secret"), Condition: "No"},
				"Always": {Value: "x", Condition: "Yes"},
			},
			want: []OutputValue{{Name: "Always", Value: "x"}},
		},
		{
			name:    "a resource that is not there locally is unavailable, with the reason",
			outputs: map[string]Output{"AlarmName": {Value: ref("DeadLetterAlarm")}, "API": {Value: map[string]any{"Fn::Sub": "https://${HttpApi}.execute-api"}}},
			want: []OutputValue{
				{Name: "API", Unavailable: "HttpApi is served by the local HTTP front"},
				{Name: "AlarmName", Unavailable: "DeadLetterAlarm (AWS::CloudWatch::Alarm) is not emulated locally"},
			},
		},
		{name: "unknown name", outputs: map[string]Output{"X": {Value: ref("Nope")}}, wantErr: "output X: Ref Nope: unresolved reference"},
		{name: "unsupported function", outputs: map[string]Output{"X": {Value: map[string]any{"Fn::ImportValue": "v"}}}, wantErr: "output X: Fn::ImportValue is not supported"},
		{name: "undeclared condition", outputs: map[string]Output{"X": {Value: "v", Condition: "Maybe"}}, wantErr: "output X: condition Maybe is not declared"},
		{name: "not a scalar", outputs: map[string]Output{"X": {Value: []any{"a"}}}, wantErr: "output X: expected a scalar"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := testEvaluator()
			if _, err := e.Conditions(map[string]any{"Yes": equals("a", "a"), "No": equals("a", "b")}); err != nil {
				t.Fatal(err)
			}
			e.Absent("DeadLetterAlarm", "(AWS::CloudWatch::Alarm) is not emulated locally")
			e.Absent("HttpApi", "is served by the local HTTP front")
			got, err := e.Outputs(tt.outputs)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Outputs() error = %v, want it to contain %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Outputs() error = %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Outputs() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
