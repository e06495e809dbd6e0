package sessions

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/tools"
)

// TestListQueryClamps: every sessions_list parameter is clamped into its
// range, never refused; numbers may be fractions or numeric strings.
func TestListQueryClamps(t *testing.T) {
	tests := []struct {
		name string
		args string
		want listQuery
	}{
		{name: "defaults", args: `{}`, want: listQuery{limit: 50}},
		{name: "limit kept", args: `{"limit": 7}`, want: listQuery{limit: 7}},
		{name: "limit 0 is 1", args: `{"limit": 0}`, want: listQuery{limit: 1}},
		{name: "a negative limit is 1", args: `{"limit": -3}`, want: listQuery{limit: 1}},
		{name: "limit over 200 is 200", args: `{"limit": 5000}`, want: listQuery{limit: 200}},
		{name: "a fractional limit is floored", args: `{"limit": 2.9}`, want: listQuery{limit: 2}},
		{name: "a numeric string", args: `{"limit": " 12 "}`, want: listQuery{limit: 12}},
		{name: "activeMinutes kept", args: `{"activeMinutes": 90}`, want: listQuery{limit: 50, activeMinutes: 90}},
		{name: "activeMinutes 0 is 1", args: `{"activeMinutes": 0}`, want: listQuery{limit: 50, activeMinutes: 1}},
		{name: "negative activeMinutes is 1", args: `{"activeMinutes": -60}`, want: listQuery{limit: 50, activeMinutes: 1}},
		{name: "huge activeMinutes is ten years", args: `{"activeMinutes": 1e18}`, want: listQuery{limit: 50, activeMinutes: maxActiveMinutes}},
		{name: "messageLimit kept", args: `{"messageLimit": 3}`, want: listQuery{limit: 50, messages: 3}},
		{name: "messageLimit over 20 is 20", args: `{"messageLimit": 99}`, want: listQuery{limit: 50, messages: 20}},
		{name: "a negative messageLimit is 0", args: `{"messageLimit": -1}`, want: listQuery{limit: 50}},
		{name: "kinds normalised, deduplicated", args: `{"kinds": [" Group", "cron", "group"]}`, want: listQuery{limit: 50, kinds: []string{"group", "cron"}}},
		{name: "unknown kinds ignored", args: `{"kinds": ["dm", "main"]}`, want: listQuery{limit: 50, kinds: []string{"main"}}},
		{name: "only unknown kinds: no filter", args: `{"kinds": ["dm"]}`, want: listQuery{limit: 50}},
		{name: "one kind as a string", args: `{"kinds": "hook"}`, want: listQuery{limit: 50, kinds: []string{"hook"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var a listArgs
			if err := json.Unmarshal([]byte(tt.args), &a); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, listQueryOf(a), cmp.AllowUnexported(listQuery{})); diff != "" {
				t.Errorf("listQueryOf(%s) (-want +got):\n%s", tt.args, diff)
			}
		})
	}
}

// TestHistoryLimitClamps: sessions_history's limit.
func TestHistoryLimitClamps(t *testing.T) {
	tests := []struct {
		name string
		args string
		want int
	}{
		{"default", `{"sessionKey": "main"}`, 50},
		{"kept", `{"sessionKey": "main", "limit": 5}`, 5},
		{"0 is 1", `{"sessionKey": "main", "limit": 0}`, 1},
		{"over the cap", `{"sessionKey": "main", "limit": 100000}`, 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var a historyArgs
			if err := json.Unmarshal([]byte(tt.args), &a); err != nil {
				t.Fatal(err)
			}
			if got := tools.Clamp(a.Limit, defaultHistoryLimit, 1, maxHistoryLimit); got != tt.want {
				t.Errorf("limit = %d; want %d", got, tt.want)
			}
		})
	}
}

// TestNumberRefusesNonNumbers: a wrong type is an argument error, not a
// clamp.
func TestNumberRefusesNonNumbers(t *testing.T) {
	for _, args := range []string{`{"limit": "ten"}`, `{"limit": true}`, `{"limit": [1]}`, `{"kinds": 3}`} {
		var a listArgs
		if err := json.Unmarshal([]byte(args), &a); err == nil {
			t.Errorf("%s: accepted as %+v", args, a)
		}
	}
}
