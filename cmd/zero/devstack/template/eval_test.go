package template

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func testEvaluator() *Evaluator {
	r := NewEvaluator(map[string]string{"Secret": "s3cr3t", "Model": "zero/echo"}, "eu-west-1", "123456789012", "zero-t")
	r.Define("WorkQueue", "http://localhost/123456789012/zero-t-workqueue.fifo", map[string]string{
		"Arn":       "arn:aws:sqs:eu-west-1:123456789012:zero-t-workqueue.fifo",
		"QueueName": "zero-t-workqueue.fifo",
	})
	r.Define("SessionTable", "zero-t-sessiontable", map[string]string{
		"Arn": "arn:aws:dynamodb:eu-west-1:123456789012:table/zero-t-sessiontable",
	})
	return r
}

func TestResolve(t *testing.T) {
	tests := []struct {
		name    string
		in      any
		want    any
		wantErr string
	}{
		{name: "plain string", in: "x", want: "x"},
		{name: "number", in: 720.0, want: 720.0},
		{name: "ref parameter", in: map[string]any{"Ref": "Secret"}, want: "s3cr3t"},
		{name: "ref queue is its URL", in: map[string]any{"Ref": "WorkQueue"}, want: "http://localhost/123456789012/zero-t-workqueue.fifo"},
		{name: "ref table is its name", in: map[string]any{"Ref": "SessionTable"}, want: "zero-t-sessiontable"},
		{name: "ref pseudo region", in: map[string]any{"Ref": "AWS::Region"}, want: "eu-west-1"},
		{name: "ref pseudo stack name", in: map[string]any{"Ref": "AWS::StackName"}, want: "zero-t"},
		{name: "getatt list form", in: map[string]any{"Fn::GetAtt": []any{"WorkQueue", "Arn"}}, want: "arn:aws:sqs:eu-west-1:123456789012:zero-t-workqueue.fifo"},
		{name: "getatt dotted form", in: map[string]any{"Fn::GetAtt": "WorkQueue.QueueName"}, want: "zero-t-workqueue.fifo"},
		{
			name: "sub with attribute and pseudo parameters",
			in:   map[string]any{"Fn::Sub": "${SessionTable.Arn}/index/* in ${AWS::Region}/${AWS::AccountId}"},
			want: "arn:aws:dynamodb:eu-west-1:123456789012:table/zero-t-sessiontable/index/* in eu-west-1/123456789012",
		},
		{
			name: "sub with local variables and escape",
			in:   map[string]any{"Fn::Sub": []any{"${Name}-${Model} ${!Literal}", map[string]any{"Name": map[string]any{"Ref": "AWS::StackName"}}}},
			want: "zero-t-zero/echo ${Literal}",
		},
		{name: "join", in: map[string]any{"Fn::Join": []any{":", []any{"a", map[string]any{"Ref": "Model"}, 5.0}}}, want: "a:zero/echo:5"},
		{name: "select of split", in: map[string]any{"Fn::Select": []any{"1", map[string]any{"Fn::Split": []any{"/", "a/b/c"}}}}, want: "b"},
		{
			name: "nested map keeps shape, NoValue drops key and element",
			in: map[string]any{
				"RedrivePolicy": map[string]any{"deadLetterTargetArn": map[string]any{"Fn::GetAtt": []any{"WorkQueue", "Arn"}}, "maxReceiveCount": 5.0},
				"Gone":          map[string]any{"Ref": "AWS::NoValue"},
				"List":          []any{"a", map[string]any{"Ref": "AWS::NoValue"}},
			},
			want: map[string]any{
				"RedrivePolicy": map[string]any{"deadLetterTargetArn": "arn:aws:sqs:eu-west-1:123456789012:zero-t-workqueue.fifo", "maxReceiveCount": 5.0},
				"List":          []any{"a"},
			},
		},
		{name: "unknown ref", in: map[string]any{"Ref": "RunnerRole"}, wantErr: "Ref RunnerRole: unresolved reference"},
		{name: "unknown attribute", in: map[string]any{"Fn::GetAtt": []any{"WorkQueue", "Nope"}}, wantErr: "attribute not provided locally"},
		{name: "sub with unknown variable", in: map[string]any{"Fn::Sub": "${RunnerRole.Arn}"}, wantErr: "Fn::Sub ${RunnerRole.Arn}"},
		{name: "unsupported function", in: map[string]any{"Fn::FindInMap": []any{"M", "a", "b"}}, wantErr: "Fn::FindInMap is not supported"},
		{name: "select out of range", in: map[string]any{"Fn::Select": []any{"3", []any{"a"}}}, wantErr: "out of range"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := testEvaluator().Resolve(tt.in)
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

func TestUnresolvedIsMarked(t *testing.T) {
	_, err := testEvaluator().Resolve(map[string]any{"Ref": "Missing"})
	if !errors.Is(err, ErrUnresolved) {
		t.Fatalf("error %v is not ErrUnresolved", err)
	}
}

func TestReferences(t *testing.T) {
	params := map[string]Parameter{"Secret": {}}
	tests := []struct {
		name string
		in   any
		want []string
	}{
		{name: "none", in: map[string]any{"A": "b"}, want: []string{}},
		{name: "ref skips parameters and pseudo", in: []any{map[string]any{"Ref": "Secret"}, map[string]any{"Ref": "AWS::Region"}, map[string]any{"Ref": "Q"}}, want: []string{"Q"}},
		{name: "getatt", in: map[string]any{"X": map[string]any{"Fn::GetAtt": []any{"DLQ", "Arn"}}}, want: []string{"DLQ"}},
		{
			name: "sub skips locals and escapes",
			in:   map[string]any{"Fn::Sub": []any{"${T.Arn}/${L}/${!E}/${AWS::Region}", map[string]any{"L": map[string]any{"Ref": "B"}}}},
			want: []string{"B", "T"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, References(tt.in, params)); diff != "" {
				t.Errorf("References() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParameterValues(t *testing.T) {
	tmpl := &Template{Parameters: map[string]Parameter{
		"Token":  {Type: "String", NoEcho: true},
		"Secret": {Type: "String", AllowedPattern: "^[A-Za-z0-9_-]{1,256}$"},
		"Model":  {Type: "String", Default: "zero/echo"},
		"Count":  {Type: "Number", Default: 3.0},
	}}
	tests := []struct {
		name    string
		given   map[string]string
		want    map[string]string
		wantErr string
	}{
		{
			name:  "defaults fill in",
			given: map[string]string{"Token": "1:x", "Secret": "abc_-1"},
			want:  map[string]string{"Token": "1:x", "Secret": "abc_-1", "Model": "zero/echo", "Count": "3"},
		},
		{name: "missing required", given: map[string]string{"Secret": "abc"}, wantErr: "Token has no default"},
		{name: "pattern mismatch does not echo the value", given: map[string]string{"Token": "1:x", "Secret": "bad secret!"}, wantErr: "Secret does not match"},
		{name: "undeclared", given: map[string]string{"Token": "1:x", "Secret": "a", "Nope": "x"}, wantErr: "Nope is not declared"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tmpl.ParameterValues(tt.given)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want %q", err, tt.wantErr)
				}
				if strings.Contains(err.Error(), "bad secret!") {
					t.Fatalf("error leaks the value: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParameterValues() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
