package iampolicy

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// callLog is what a turn records (see awscalls), shortened.
func callLog() []Call {
	return []Call{
		{Function: "Runner", Operation: "DynamoDB.GetItem", Request: Request{Action: "dynamodb:GetItem", Resource: table}},
		{Function: "Runner", Operation: "DynamoDB.TransactWriteItems", Request: Request{Action: "dynamodb:PutItem", Resource: table}},
		{Function: "Runner", Operation: "DynamoDB.GetItem", Request: Request{Action: "dynamodb:GetItem", Resource: table}},
		{Function: "Runner", Operation: "S3.ListObjectsV2", Request: Request{Action: "s3:ListBucket", Resource: bucket, Context: map[string][]string{"s3:prefix": {"agents/main/"}}}},
		{Function: "Gateway", Operation: "DynamoDB.Query", Request: Request{Action: "dynamodb:Query", Resource: table + "/index/byAgent"}},
	}
}

func TestCheck(t *testing.T) {
	full := testPolicy(t)
	without := func(i int) Policy {
		p := Policy{Statement: append([]Statement(nil), full.Statement...)}
		p.Statement = append(p.Statement[:i], p.Statement[i+1:]...)
		return p
	}
	for _, tc := range []struct {
		name     string
		policies map[string]Policy
		calls    []Call
		want     []string
	}{
		{"every call allowed", map[string]Policy{"Runner": full, "Gateway": full}, callLog(), nil},
		{
			"a removed statement names the function, operation and resource, once",
			map[string]Policy{"Runner": without(0), "Gateway": full}, callLog(),
			[]string{
				"Runner: DynamoDB.GetItem needs dynamodb:GetItem on " + table + ": no statement allows it",
				"Runner: DynamoDB.TransactWriteItems needs dynamodb:PutItem on " + table + ": no statement allows it",
			},
		},
		{
			"a removed condition statement names the condition key",
			map[string]Policy{"Runner": without(3), "Gateway": full}, callLog(),
			[]string{"Runner: S3.ListObjectsV2 needs s3:ListBucket on " + bucket + " (s3:prefix=agents/main/): no statement allows it"},
		},
		{
			"a function without a policy",
			map[string]Policy{"Runner": full}, callLog(),
			[]string{"Gateway: DynamoDB.Query needs dynamodb:Query on " + table + "/index/byAgent: the function has no policy"},
		},
		{
			"an explicit deny names its statement",
			map[string]Policy{"Runner": full},
			[]Call{{Function: "Runner", Operation: "S3.PutObject", Request: Request{Action: "s3:PutObject", Resource: bucket + "/agents/main/bootstrap/SOUL.md"}}},
			[]string{"Runner: S3.PutObject needs s3:PutObject on " + bucket + "/agents/main/bootstrap/SOUL.md: denied by statement 4 (Deny s3:PutObject on " + bucket + "/agents/*/bootstrap/*)"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, v := range Check(tc.policies, tc.calls) {
				got = append(got, v.String())
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Check (-want +got):\n%s", diff)
			}
			err := Err(Check(tc.policies, tc.calls))
			if (err != nil) != (len(tc.want) > 0) {
				t.Fatalf("Err = %v, want an error: %t", err, len(tc.want) > 0)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Err does not name %q:\n%v", w, err)
				}
			}
		})
	}
}
