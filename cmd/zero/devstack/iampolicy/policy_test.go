package iampolicy

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const (
	table  = "arn:aws:dynamodb:us-east-1:123456789012:table/zt-sessiontable"
	bucket = "arn:aws:s3:::zt-transcriptbucket"
)

// testPolicy has the shapes the template uses (table and index ARNs, an
// object prefix, a conditioned ListBucket) plus a Deny.
func testPolicy(t *testing.T) Policy {
	t.Helper()
	p, err := Parse([]byte(`{"Version": "2012-10-17", "Statement": [
	  {"Effect": "Allow", "Action": ["dynamodb:GetItem", "dynamodb:PutItem"], "Resource": "` + table + `"},
	  {"Effect": "Allow", "Action": "dynamodb:Query", "Resource": "` + table + `/index/*"},
	  {"Effect": "Allow", "Action": "s3:*Object", "Resource": "` + bucket + `/agents/*"},
	  {"Effect": "Allow", "Action": "s3:ListBucket", "Resource": "` + bucket + `", "Condition": {"StringLike": {"s3:prefix": "agents/*"}}},
	  {"Effect": "Deny", "Action": "s3:PutObject", "Resource": "` + bucket + `/agents/*/bootstrap/*"},
	  {"Effect": "Allow", "NotAction": "iam:*", "Resource": "arn:aws:sqs:*:123456789012:zt-?"}
	]}`))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestEvaluate(t *testing.T) {
	p := testPolicy(t)
	prefix := func(v string) map[string][]string { return map[string][]string{"s3:prefix": {v}} }
	for _, tc := range []struct {
		name string
		req  Request
		want Decision
	}{
		{"allowed action and resource", Request{Action: "dynamodb:GetItem", Resource: table}, Decision{Allowed: true, Statement: 0}},
		{"actions compare without case", Request{Action: "DynamoDB:getitem", Resource: table}, Decision{Allowed: true, Statement: 0}},
		{"action not listed", Request{Action: "dynamodb:DeleteItem", Resource: table}, Decision{Statement: -1}},
		{"query on the base table is not on an index", Request{Action: "dynamodb:Query", Resource: table}, Decision{Statement: -1}},
		{"query on an index", Request{Action: "dynamodb:Query", Resource: table + "/index/bySessionId"}, Decision{Allowed: true, Statement: 1}},
		{"resources compare with case", Request{Action: "dynamodb:GetItem", Resource: strings.ToUpper(table)}, Decision{Statement: -1}},
		{"action wildcard", Request{Action: "s3:GetObject", Resource: bucket + "/agents/main/x.jsonl"}, Decision{Allowed: true, Statement: 2}},
		{"object outside the prefix", Request{Action: "s3:GetObject", Resource: bucket + "/other/x"}, Decision{Statement: -1}},
		{"condition holds", Request{Action: "s3:ListBucket", Resource: bucket, Context: prefix("agents/main/")}, Decision{Allowed: true, Statement: 3}},
		{"condition fails", Request{Action: "s3:ListBucket", Resource: bucket, Context: prefix("other/")}, Decision{Statement: -1}},
		{"condition key missing", Request{Action: "s3:ListBucket", Resource: bucket}, Decision{Statement: -1}},
		{"deny wins over an allow", Request{Action: "s3:PutObject", Resource: bucket + "/agents/main/bootstrap/AGENTS.md"}, Decision{Denied: true, Statement: 4}},
		{"not action", Request{Action: "sqs:SendMessage", Resource: "arn:aws:sqs:us-east-1:123456789012:zt-q"}, Decision{Allowed: true, Statement: 5}},
		{"not action excludes", Request{Action: "iam:CreateUser", Resource: "arn:aws:sqs:us-east-1:123456789012:zt-q"}, Decision{Statement: -1}},
		{"question mark is one character", Request{Action: "sqs:SendMessage", Resource: "arn:aws:sqs:us-east-1:123456789012:zt-qq"}, Decision{Statement: -1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, p.Evaluate(tc.req)); diff != "" {
				t.Errorf("Evaluate(%+v) (-want +got):\n%s", tc.req, diff)
			}
		})
	}
}

func TestConditionOperators(t *testing.T) {
	for _, tc := range []struct {
		name string
		op   string
		want []string
		got  []string
		hold bool
	}{
		{"StringEquals", "StringEquals", []string{"a", "b"}, []string{"b"}, true},
		{"StringEquals other", "StringEquals", []string{"a"}, []string{"c"}, false},
		{"StringEquals missing", "StringEquals", []string{"a"}, nil, false},
		{"IfExists missing", "StringEqualsIfExists", []string{"a"}, nil, true},
		{"IfExists present", "StringEqualsIfExists", []string{"a"}, []string{"c"}, false},
		{"StringNotEquals missing", "StringNotEquals", []string{"a"}, nil, true},
		{"StringNotLike", "StringNotLike", []string{"run#*"}, []string{"session#x"}, true},
		{"StringEqualsIgnoreCase", "StringEqualsIgnoreCase", []string{"ABC"}, []string{"abc"}, true},
		{"ArnLike", "ArnLike", []string{"arn:aws:sqs:*:*:zt-*"}, []string{"arn:aws:sqs:us-east-1:1:zt-q"}, true},
		{"Bool", "Bool", []string{"true"}, []string{"true"}, true},
		{"Null true and absent", "Null", []string{"true"}, nil, true},
		{"Null false and absent", "Null", []string{"false"}, nil, false},
		{"ForAllValues all match", "ForAllValues:StringLike", []string{"run#*"}, []string{"run#1", "run#2"}, true},
		{"ForAllValues one does not", "ForAllValues:StringLike", []string{"run#*"}, []string{"run#1", "session#a"}, false},
		{"ForAllValues empty", "ForAllValues:StringLike", []string{"run#*"}, nil, true},
		{"ForAllValues StringEquals all match", "ForAllValues:StringEquals", []string{"outbox", "cron"}, []string{"cron", "outbox"}, true},
		{"ForAllValues StringEquals is not a pattern", "ForAllValues:StringEquals", []string{"cron#*"}, []string{"cron#1"}, false},
		{"ForAllValues StringEquals empty", "ForAllValues:StringEquals", []string{"outbox"}, nil, true},
		{"ForAllValues any of several patterns", "ForAllValues:StringLike", []string{"outbox", "session#*"}, []string{"outbox", "session#a"}, true},
		{"ForAnyValue one matches", "ForAnyValue:StringEquals", []string{"a"}, []string{"b", "a"}, true},
		{"ForAnyValue empty", "ForAnyValue:StringEquals", []string{"a"}, nil, false},
		{"unknown operator never holds", "NumericLessThan", []string{"1"}, []string{"0"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := conditionHolds(tc.op, tc.want, tc.got); got != tc.hold {
				t.Errorf("%s %v against %v = %t, want %t", tc.op, tc.want, tc.got, got, tc.hold)
			}
		})
	}
}

func TestParseRefuses(t *testing.T) {
	for _, tc := range []struct {
		name, doc, want string
	}{
		{"unknown effect", `{"Statement": [{"Effect": "Maybe", "Action": "a:b", "Resource": "*"}]}`, "effect"},
		{"action and not action", `{"Statement": [{"Effect": "Allow", "Action": "a:b", "NotAction": "a:c", "Resource": "*"}]}`, "Action and NotAction"},
		{"no resource", `{"Statement": [{"Effect": "Allow", "Action": "a:b"}]}`, "Resource and NotResource"},
		{"unsupported operator", `{"Statement": [{"Effect": "Allow", "Action": "a:b", "Resource": "*", "Condition": {"DateLessThan": {"aws:CurrentTime": "2030-01-01"}}}]}`, "not supported"},
		{"unknown set operator", `{"Statement": [{"Effect": "Allow", "Action": "a:b", "Resource": "*", "Condition": {"ForSome:StringLike": {"k": "v"}}}]}`, "unknown set operator"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.doc))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Parse = %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

func TestParseSingleStatementObject(t *testing.T) {
	p, err := Parse(map[string]any{"Statement": map[string]any{"Effect": "Allow", "Action": "sqs:SendMessage", "Resource": "*"}})
	if err != nil {
		t.Fatal(err)
	}
	want := Policy{Statement: []Statement{{Effect: Allow, Action: Strings{"sqs:SendMessage"}, Resource: Strings{"*"}}}}
	if diff := cmp.Diff(want, p); diff != "" {
		t.Errorf("Parse (-want +got):\n%s", diff)
	}
}

func TestForEmulator(t *testing.T) {
	got := ForEmulator(testPolicy(t))
	want := Policy{Version: "2012-10-17", Statement: []Statement{
		{Effect: Allow, Action: Strings{"dynamodb:GetItem", "dynamodb:TransactGetItems", "dynamodb:PutItem", "dynamodb:TransactWriteItems"}, Resource: Strings{"*"}},
		{Effect: Allow, Action: Strings{"dynamodb:Query"}, Resource: Strings{"*"}},
		{Effect: Allow, Action: Strings{"s3:*Object"}, Resource: Strings{"*"}},
		{Effect: Allow, Action: Strings{"s3:ListBucket"}, Resource: Strings{"*"}},
		{Effect: Allow, NotAction: Strings{"iam:*"}, Resource: Strings{"*"}},
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ForEmulator (-want +got):\n%s", diff)
	}
	if empty := ForEmulator(Policy{}); len(empty.Statement) != 1 || empty.Evaluate(Request{Action: "sqs:SendMessage", Resource: "*"}).Allowed {
		t.Errorf("ForEmulator of an empty policy = %+v, want one statement allowing nothing", empty)
	}
}

// TestLeadingKeysConditions evaluates statements scoped to partition keys
// as template.yaml writes them: ForAllValues holds when every key the
// request touches matches one of the patterns, and (as AWS documents) for
// a request that touches none.
func TestLeadingKeysConditions(t *testing.T) {
	p, err := Parse([]byte(`{"Statement": [
	  {"Effect": "Allow", "Action": "dynamodb:UpdateItem", "Resource": "` + table + `",
	   "Condition": {"ForAllValues:StringLike": {"dynamodb:LeadingKeys": ["outbox", "session#*"]}}},
	  {"Effect": "Allow", "Action": "dynamodb:DeleteItem", "Resource": "` + table + `",
	   "Condition": {"ForAllValues:StringEquals": {"dynamodb:LeadingKeys": "cron"}}}
	]}`))
	if err != nil {
		t.Fatal(err)
	}
	keys := func(action string, ks ...string) Request {
		r := Request{Action: action, Resource: table}
		if ks != nil {
			r.Context = map[string][]string{"dynamodb:LeadingKeys": ks}
		}
		return r
	}
	for _, tc := range []struct {
		name string
		req  Request
		want bool
	}{
		{"the one key", keys("dynamodb:UpdateItem", "outbox"), true},
		{"a pattern", keys("dynamodb:UpdateItem", "session#main:c1"), true},
		{"every key matches some pattern", keys("dynamodb:UpdateItem", "outbox", "session#a"), true},
		{"one key outside", keys("dynamodb:UpdateItem", "outbox", "run#1"), false},
		{"a key outside", keys("dynamodb:UpdateItem", "msg#m"), false},
		{"like is anchored", keys("dynamodb:UpdateItem", "outbox#x"), false},
		{"an unparsed key", keys("dynamodb:UpdateItem", "<unparsed>"), false},
		{"no keys: ForAllValues of the empty set holds", keys("dynamodb:UpdateItem"), true},
		{"equals", keys("dynamodb:DeleteItem", "cron"), true},
		{"equals is exact", keys("dynamodb:DeleteItem", "cron#j"), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := p.Evaluate(tc.req).Allowed; got != tc.want {
				t.Errorf("Evaluate(%+v).Allowed = %t, want %t", tc.req, got, tc.want)
			}
		})
	}
}
