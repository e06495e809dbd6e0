// Package iampolicy evaluates IAM identity policies as AWS does for one
// principal's request: action and resource patterns (with * and ?
// wildcards, NotAction and NotResource), Condition operators, an explicit
// Deny always winning and no Allow meaning an implicit deny. The local
// stack uses it to check every AWS call a function makes against its
// role's statements (Check), and to derive the action-only policy the
// emulator can enforce itself (ForEmulator).
//
// Not modelled: resource-based policies, permission boundaries, SCPs,
// session policies and policy variables (${aws:username}); a policy that
// uses an unknown Condition operator is refused by Parse.
package iampolicy

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Effect is Allow or Deny.
type Effect string

// The two effects.
const (
	Allow Effect = "Allow"
	Deny  Effect = "Deny"
)

// Statement is one statement of a policy document. Exactly one of Action
// and NotAction is set, and one of Resource and NotResource.
type Statement struct {
	Sid         string `json:",omitempty"`
	Effect      Effect
	Action      Strings `json:",omitempty"`
	NotAction   Strings `json:",omitempty"`
	Resource    Strings `json:",omitempty"`
	NotResource Strings `json:",omitempty"`
	// Condition maps an operator (StringLike, ForAllValues:StringEquals,
	// ArnLikeIfExists, ...) to context keys and their allowed values.
	Condition map[string]map[string]Strings `json:",omitempty"`
}

// Policy is a policy document: its statements, in order.
type Policy struct {
	Version   string `json:",omitempty"`
	Statement []Statement
}

// Strings is a JSON string or list of strings, as policy documents write
// Action, Resource and condition values.
type Strings []string

// UnmarshalJSON accepts a string or a list of strings.
func (s *Strings) UnmarshalJSON(b []byte) error {
	var one string
	if err := json.Unmarshal(b, &one); err == nil {
		*s = Strings{one}
		return nil
	}
	var many []string
	if err := json.Unmarshal(b, &many); err != nil {
		return fmt.Errorf("want a string or a list of strings, got %s", b)
	}
	*s = many
	return nil
}

// Parse decodes a policy document (JSON text or an already decoded value,
// such as a template's resolved PolicyDocument) and checks each statement:
// its effect, one of Action/NotAction, one of Resource/NotResource, and
// known Condition operators.
func Parse(doc any) (Policy, error) {
	raw, ok := doc.([]byte)
	if !ok {
		var err error
		if raw, err = json.Marshal(doc); err != nil {
			return Policy{}, fmt.Errorf("policy document: %w", err)
		}
	}
	var p Policy
	if err := json.Unmarshal(raw, &p); err != nil {
		// A single statement may be an object rather than a list.
		var single struct {
			Version   string
			Statement Statement
		}
		if err2 := json.Unmarshal(raw, &single); err2 != nil {
			return Policy{}, fmt.Errorf("policy document: %w", err)
		}
		p = Policy{Version: single.Version, Statement: []Statement{single.Statement}}
	}
	for i, st := range p.Statement {
		if err := st.validate(); err != nil {
			return Policy{}, fmt.Errorf("statement %d: %w", i, err)
		}
	}
	return p, nil
}

func (st Statement) validate() error {
	if st.Effect != Allow && st.Effect != Deny {
		return fmt.Errorf("effect %q: want Allow or Deny", st.Effect)
	}
	if (len(st.Action) == 0) == (len(st.NotAction) == 0) {
		return fmt.Errorf("want exactly one of Action and NotAction")
	}
	if (len(st.Resource) == 0) == (len(st.NotResource) == 0) {
		return fmt.Errorf("want exactly one of Resource and NotResource")
	}
	for op := range st.Condition {
		if _, _, err := parseOperator(op); err != nil {
			return err
		}
	}
	return nil
}

// Merge returns one policy holding the statements of all of ps, in order:
// a role's inline policies evaluate as one (any Deny wins, any Allow
// allows).
func Merge(ps ...Policy) Policy {
	out := Policy{Version: "2012-10-17"}
	for _, p := range ps {
		out.Statement = append(out.Statement, p.Statement...)
	}
	return out
}

// JSON is the policy as a document IAM accepts.
func (p Policy) JSON() []byte {
	if p.Version == "" {
		p.Version = "2012-10-17"
	}
	b, _ := json.Marshal(p)
	return b
}

// String describes a statement for messages: "statement 2 (Allow
// dynamodb:GetItem on arn:...)".
func (st Statement) String() string {
	acts, res := strings.Join(st.Action, ","), strings.Join(st.Resource, ",")
	if len(st.NotAction) > 0 {
		acts = "all but " + strings.Join(st.NotAction, ",")
	}
	if len(st.NotResource) > 0 {
		res = "all but " + strings.Join(st.NotResource, ",")
	}
	return fmt.Sprintf("%s %s on %s", st.Effect, acts, res)
}
