package ssmparam

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ssm"
	"github.com/aws/aws-sdk-go-v2/service/ssm/types"
	"github.com/aws/smithy-go"

	"github.com/zero-gateway/zero/shared/fault"
)

// putRaw writes name the way CloudFormation or `aws ssm put-parameter` does.
func putRaw(t *testing.T, name, value string) {
	t.Helper()
	_, err := testClient.PutParameter(context.Background(), &ssm.PutParameterInput{
		Name: aws.String(name), Value: aws.String(value), Type: types.ParameterTypeString, Overwrite: aws.Bool(true),
	})
	if err != nil {
		t.Fatalf("put %s: %v", name, err)
	}
}

func TestFetch(t *testing.T) {
	ctx := context.Background()
	name := freshName(t)
	p := New(testClient, name)
	const doc = `{channels: {telegram: {allowFrom: ["*"]}}}`
	putRaw(t, name, doc)

	counter.Reset()
	data, v1, err := p.Fetch(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := counter.Total(); got != 1 {
		t.Errorf("Fetch made %d AWS calls (%s); want 1", got, counter)
	}
	if string(data) != doc {
		t.Errorf("Fetch = %q; want %q", data, doc)
	}
	if v1 == "" {
		t.Fatal("Fetch returned an empty version")
	}

	_, again, err := p.Fetch(ctx)
	if err != nil || again != v1 {
		t.Errorf("second Fetch of an unchanged parameter: version %q, %v; want %q", again, err, v1)
	}

	putRaw(t, name, `{}`)
	data, v2, err := p.Fetch(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if string(data) != `{}` || v2 == v1 {
		t.Errorf("after an overwrite Fetch = %q version %q; want {} and a version other than %q", data, v2, v1)
	}
}

func TestFetchMissing(t *testing.T) {
	counter.Reset()
	_, _, err := New(testClient, freshName(t)).Fetch(context.Background())
	if !fault.Is(err, fault.NotFound) {
		t.Fatalf("Fetch of a missing parameter: %v (class %s); want %s", err, fault.CodeOf(err), fault.NotFound)
	}
	if got := counter.Total(); got != 1 {
		t.Errorf("Fetch made %d AWS calls (%s); want 1", got, counter)
	}
}

func TestPut(t *testing.T) {
	ctx := context.Background()
	name := freshName(t)
	p := New(testClient, name)

	counter.Reset()
	v1, err := p.Put(ctx, []byte(`{a: 1}`))
	if err != nil {
		t.Fatalf("Put of a missing parameter: %v", err)
	}
	if got := counter.Total(); got != 1 {
		t.Errorf("Put made %d AWS calls (%s); want 1", got, counter)
	}
	v2, err := p.Put(ctx, []byte(`{a: 2}`))
	if err != nil {
		t.Fatalf("Put over an existing parameter: %v", err)
	}
	if v1 == v2 {
		t.Errorf("Put returned version %q twice", v1)
	}
	data, v, err := p.Fetch(ctx)
	if err != nil || string(data) != `{a: 2}` || v != v2 {
		t.Errorf("Fetch after Put = %q version %q, %v; want {a: 2} version %q", data, v, err, v2)
	}
	if p.Name() != name {
		t.Errorf("Name() = %q; want %q", p.Name(), name)
	}

	// Over 4 KB the intelligent tier moves the parameter to the advanced
	// tier instead of refusing it.
	big := "{x: \"" + strings.Repeat("a", 5000) + "\"}"
	if _, err := p.Put(ctx, []byte(big)); err != nil {
		t.Fatalf("Put of a 5 KB value: %v", err)
	}
	if data, _, err := p.Fetch(ctx); err != nil || string(data) != big {
		t.Fatalf("Fetch of the 5 KB value: %d bytes, %v", len(data), err)
	}
}

func TestPutInvalid(t *testing.T) {
	// SSM refuses an empty value (as it refuses one over 8 KB, which moto
	// does not check).
	_, err := New(testClient, freshName(t)).Put(context.Background(), nil)
	if !fault.Is(err, fault.Invalid) {
		t.Fatalf("Put of an empty value: %v (class %s); want %s", err, fault.CodeOf(err), fault.Invalid)
	}
}

func TestClassify(t *testing.T) {
	tests := []struct {
		code string
		want fault.Code
	}{
		{"ParameterNotFound", fault.NotFound},
		{"ParameterVersionNotFound", fault.NotFound},
		{"TooManyUpdates", fault.Unavailable},
		{"ThrottlingException", fault.Unavailable},
		{"ValidationException", fault.Invalid},
		{"AccessDeniedException", fault.Unauthorized},
		{"InvalidKeyId", fault.Internal},
		{"SomethingNew", fault.Internal},
	}
	for _, tt := range tests {
		err := classify(&smithy.GenericAPIError{Code: tt.code}, "get parameter /x")
		if got := fault.CodeOf(err); got != tt.want {
			t.Errorf("%s: class %s; want %s", tt.code, got, tt.want)
		}
		if !strings.Contains(err.Error(), "get parameter /x") {
			t.Errorf("%s: %q does not say what was being done", tt.code, err)
		}
	}
	if classify(nil, "x") != nil {
		t.Error("classify(nil) is not nil")
	}
	var api smithy.APIError
	if err := classify(&smithy.GenericAPIError{Code: "ParameterNotFound"}, "x"); !errors.As(err, &api) {
		t.Error("classify drops the SDK error from the chain")
	}
}
