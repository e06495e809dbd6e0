package provision

import (
	"encoding/json"
	"testing"

	"github.com/zero-gateway/zero/cmd/zero/devstack/iampolicy"
)

// rolePolicy is the function's role's inline policies as one evaluable
// policy (iampolicy: conditions included).
func (l *lpTemplate) rolePolicy(t *testing.T, function string) iampolicy.Policy {
	t.Helper()
	v, err := l.ev.Resolve(l.tmpl.Resources[function+"Role"].Properties["Policies"])
	if err != nil {
		t.Fatalf("%sRole Policies: %v", function, err)
	}
	var docs []struct{ PolicyDocument json.RawMessage }
	raw, _ := json.Marshal(v)
	if err := json.Unmarshal(raw, &docs); err != nil {
		t.Fatalf("%sRole Policies: %v", function, err)
	}
	var ps []iampolicy.Policy
	for _, d := range docs {
		p, err := iampolicy.Parse([]byte(d.PolicyDocument))
		if err != nil {
			t.Fatalf("%sRole policy: %v", function, err)
		}
		ps = append(ps, p)
	}
	return iampolicy.Merge(ps...)
}

// TestTableLeadingKeys: the Gateway may update outbox items only, and the
// Cron function may read, write and delete only its own partitions (its
// jobs, their run records, the run records it checks and a /stop job's
// stop mark), with dynamodb:LeadingKeys conditions that no unconditioned
// statement widens.
func TestTableLeadingKeys(t *testing.T) {
	t.Parallel()
	l := loadLP(t, nil)
	table := resourcesFor(l.statements(t, "Gateway"), "dynamodb:GetItem")
	if len(table) != 1 {
		t.Fatalf("Gateway dynamodb:GetItem resources = %q, want the table", table)
	}
	scoped := map[string][]string{"Gateway": {"dynamodb:UpdateItem"}, "Cron": {"dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:DeleteItem"}}
	for fn, actions := range scoped {
		for _, a := range actions {
			if allows(l.statements(t, fn), a, table[0]) {
				t.Errorf("%s may %s on the whole table (an unconditioned statement)", fn, a)
			}
		}
	}
	tests := []struct {
		name     string
		function string
		action   string
		keys     []string
		want     bool
	}{
		{"gateway revives an outbox item", "Gateway", "dynamodb:UpdateItem", []string{"outbox"}, true},
		{"gateway updates no session", "Gateway", "dynamodb:UpdateItem", []string{"session#main:c1"}, false},
		{"gateway updates no run", "Gateway", "dynamodb:UpdateItem", []string{"run#r1"}, false},
		{"gateway updates no message record", "Gateway", "dynamodb:UpdateItem", []string{"msg#m1"}, false},
		{"gateway still reads sessions", "Gateway", "dynamodb:GetItem", []string{"session#main:c1"}, true},
		{"cron reads its job", "Cron", "dynamodb:GetItem", []string{"cron"}, true},
		{"cron reads the previous run", "Cron", "dynamodb:GetItem", []string{"run#r1"}, true},
		{"cron reads no session", "Cron", "dynamodb:GetItem", []string{"session#main:c1"}, false},
		{"cron reads no web cache", "Cron", "dynamodb:GetItem", []string{"webcache#abc"}, false},
		{"cron writes its job's state", "Cron", "dynamodb:PutItem", []string{"cron"}, true},
		{"cron writes a run record", "Cron", "dynamodb:PutItem", []string{"cron#j1"}, true},
		{"cron writes a stop mark", "Cron", "dynamodb:PutItem", []string{"session#cron:j1"}, true},
		{"cron writes no run", "Cron", "dynamodb:PutItem", []string{"run#r1"}, false},
		{"cron writes no outbox item", "Cron", "dynamodb:PutItem", []string{"outbox"}, false},
		{"cron writes no message record", "Cron", "dynamodb:PutItem", []string{"msg#m1"}, false},
		{"cron deletes a one-shot job", "Cron", "dynamodb:DeleteItem", []string{"cron"}, true},
		{"cron deletes no run record", "Cron", "dynamodb:DeleteItem", []string{"cron#j1"}, false},
		{"cron deletes no session", "Cron", "dynamodb:DeleteItem", []string{"session#main:c1"}, false},
		{"cron updates nothing", "Cron", "dynamodb:UpdateItem", []string{"cron"}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := iampolicy.Request{Action: tc.action, Resource: table[0], Context: map[string][]string{"dynamodb:LeadingKeys": tc.keys}}
			if got := l.rolePolicy(t, tc.function).Evaluate(r).Allowed; got != tc.want {
				t.Errorf("%s %s with LeadingKeys %q allowed = %t, want %t", tc.function, tc.action, tc.keys, got, tc.want)
			}
		})
	}
}
