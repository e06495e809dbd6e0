package cost

import (
	"math"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestCalls(t *testing.T) {
	tests := []struct {
		name         string
		calls        map[string]int
		want         float64
		wantUnpriced []string
	}{
		{"none", nil, 0, nil},
		{"a plain turn", TurnCalls, 12*0.625e-6 + 7*0.125e-6 + 0.5e-6 + 0.005e-3 + 0.625e-6, nil},
		{"three queue sends", map[string]int{"SQS.SendMessage": 3}, 3 * 0.5e-6, nil},
		{"unpriced operations", map[string]int{"SSM.GetParameter": 2, "STS.AssumeRole": 1, "S3.GetObject": 1}, 0.0004e-3, []string{"SSM.GetParameter", "STS.AssumeRole"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, unpriced := ListPrices.Calls(tc.calls)
			if math.Abs(got-tc.want) > 1e-15 {
				t.Errorf("Calls = %g; want %g", got, tc.want)
			}
			if diff := cmp.Diff(tc.wantUnpriced, unpriced); diff != "" {
				t.Errorf("unpriced (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLambda(t *testing.T) {
	// 256 MB for 10 s is 2.5 GB-s.
	got := ListPrices.Lambda(10*time.Second, 256, 2)
	want := 2.5*0.0000166667 + 2*0.20e-6
	if math.Abs(got-want) > 1e-15 {
		t.Errorf("Lambda = %g; want %g", got, want)
	}
}

func TestTokensAndAdd(t *testing.T) {
	if got := Tokens(1_000_000, 500_000, 1.25, 10); math.Abs(got-6.25) > 1e-12 {
		t.Errorf("Tokens = %g; want 6.25", got)
	}
	got := Add(TurnCalls, AnnounceCalls)
	want := map[string]int{"SQS.SendMessage": 2, "DynamoDB.BatchGetItem": 1, "S3.PutObject": 1, "DynamoDB.TransactWriteItems": 1,
		"DynamoDB.UpdateItem": 2, "DynamoDB.PutItem": 1, "DynamoDB.GetItem": 1}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Add (-want +got):\n%s", diff)
	}
}
