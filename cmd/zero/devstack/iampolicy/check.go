package iampolicy

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// Call is one authorisation an AWS call of a function needed: the
// function's logical id, the API operation ("DynamoDB.Query") and the
// action, resource and context IAM evaluates.
type Call struct {
	Function  string
	Operation string
	Request
}

// Key identifies a call for de-duplication: equal keys are the same
// question to IAM.
func (c Call) Key() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s|%s|%s|%s", c.Function, c.Operation, c.Action, c.Resource)
	for _, k := range sortedKeys(c.Context) {
		fmt.Fprintf(&b, "|%s=%s", k, strings.Join(c.Context[k], ","))
	}
	return b.String()
}

// Violation is a call its function's policy does not allow.
type Violation struct {
	Call
	// Reason is "no statement allows it" or "denied by statement N (...)".
	Reason string
}

// String names the function, the operation, the action, the resource and
// the context: "Runner: DynamoDB.GetItem needs dynamodb:GetItem on
// arn:aws:dynamodb:...:table/x: no statement allows it".
func (v Violation) String() string {
	ctx := ""
	for _, k := range sortedKeys(v.Context) {
		ctx += fmt.Sprintf(" (%s=%s)", k, strings.Join(v.Context[k], ","))
	}
	return fmt.Sprintf("%s: %s needs %s on %s%s: %s", v.Function, v.Operation, v.Action, v.Resource, ctx, v.Reason)
}

// Check evaluates every call under its function's policy (a function
// without one is allowed nothing) and returns the calls that are not
// allowed, one per distinct call, sorted.
func Check(policies map[string]Policy, calls []Call) []Violation {
	seen := map[string]bool{}
	var out []Violation
	for _, c := range calls {
		k := c.Key()
		if seen[k] {
			continue
		}
		seen[k] = true
		p, ok := policies[c.Function]
		if !ok {
			out = append(out, Violation{Call: c, Reason: "the function has no policy"})
			continue
		}
		if reason, ok := p.Explain(c.Request); !ok {
			out = append(out, Violation{Call: c, Reason: reason})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out
}

// Explain evaluates r and, when it is not allowed, says why.
func (p Policy) Explain(r Request) (reason string, allowed bool) {
	d := p.Evaluate(r)
	switch {
	case d.Denied:
		return fmt.Sprintf("denied by statement %d (%s)", d.Statement, p.Statement[d.Statement]), false
	case !d.Allowed:
		return "no statement allows it", false
	}
	return "", true
}

// Err is nil without violations, else one error listing them all.
func Err(vs []Violation) error {
	if len(vs) == 0 {
		return nil
	}
	lines := make([]string, len(vs))
	for i, v := range vs {
		lines[i] = "  " + v.String()
	}
	return errors.New("AWS calls the functions' IAM policies do not allow (template.yaml):\n" + strings.Join(lines, "\n"))
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
