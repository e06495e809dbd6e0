package iampolicy

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// Request is what one AWS call asks of IAM: one action on one resource,
// with the condition context keys the call supplies (s3:prefix, ...).
// One API call may make several (a TransactWriteItems asks for each of
// its items' actions).
type Request struct {
	Action   string
	Resource string
	Context  map[string][]string `json:",omitempty"`
}

// Decision is the outcome of evaluating a policy for a request.
type Decision struct {
	// Allowed is true when some statement allows and none denies.
	Allowed bool
	// Denied is true when a Deny statement matched (it wins over any Allow).
	Denied bool
	// Statement is the index of the deciding statement (the first matching
	// Deny, else the first matching Allow), -1 when none matched.
	Statement int
}

// Evaluate decides r under p: an explicit Deny wins, else any Allow
// allows, else it is implicitly denied.
func (p Policy) Evaluate(r Request) Decision {
	d := Decision{Statement: -1}
	for i, st := range p.Statement {
		if !st.matches(r) {
			continue
		}
		if st.Effect == Deny {
			return Decision{Denied: true, Statement: i}
		}
		if !d.Allowed {
			d = Decision{Allowed: true, Statement: i}
		}
	}
	return d
}

func (st Statement) matches(r Request) bool {
	if len(st.Action) > 0 && !anyMatch(st.Action, r.Action, true) {
		return false
	}
	if len(st.NotAction) > 0 && anyMatch(st.NotAction, r.Action, true) {
		return false
	}
	if len(st.Resource) > 0 && !anyMatch(st.Resource, r.Resource, false) {
		return false
	}
	if len(st.NotResource) > 0 && anyMatch(st.NotResource, r.Resource, false) {
		return false
	}
	for op, keys := range st.Condition {
		for key, want := range keys {
			if !conditionHolds(op, want, r.Context[key]) {
				return false
			}
		}
	}
	return true
}

func anyMatch(patterns []string, value string, foldCase bool) bool {
	for _, p := range patterns {
		if Match(p, value, foldCase) {
			return true
		}
	}
	return false
}

var (
	patternMu    sync.Mutex
	patternCache = map[string]*regexp.Regexp{}
)

// Match reports whether value matches an IAM pattern, where * matches any
// run of characters (including : and /) and ? any one character; actions
// compare without case (foldCase), resources with.
func Match(pattern, value string, foldCase bool) bool {
	key := pattern
	if foldCase {
		key = "(?i)" + pattern
	}
	patternMu.Lock()
	re, ok := patternCache[key]
	if !ok {
		var b strings.Builder
		if foldCase {
			b.WriteString("(?is)^")
		} else {
			b.WriteString("(?s)^")
		}
		for _, r := range pattern {
			switch r {
			case '*':
				b.WriteString(".*")
			case '?':
				b.WriteString(".")
			default:
				b.WriteString(regexp.QuoteMeta(string(r)))
			}
		}
		b.WriteString("$")
		re = regexp.MustCompile(b.String())
		patternCache[key] = re
	}
	patternMu.Unlock()
	return re.MatchString(value)
}

// operator is a parsed Condition operator.
type operator struct {
	set      string // "", "ForAllValues" or "ForAnyValue"
	base     string // StringLike, ArnEquals, Null, ...
	ifExists bool
}

// negated operators hold when no request value matches.
var baseOperators = map[string]struct {
	negated bool
	match   func(pattern, value string) bool
}{
	"StringEquals":              {false, func(p, v string) bool { return p == v }},
	"StringNotEquals":           {true, func(p, v string) bool { return p == v }},
	"StringEqualsIgnoreCase":    {false, strings.EqualFold},
	"StringNotEqualsIgnoreCase": {true, strings.EqualFold},
	"StringLike":                {false, func(p, v string) bool { return Match(p, v, false) }},
	"StringNotLike":             {true, func(p, v string) bool { return Match(p, v, false) }},
	"ArnEquals":                 {false, func(p, v string) bool { return Match(p, v, false) }},
	"ArnLike":                   {false, func(p, v string) bool { return Match(p, v, false) }},
	"ArnNotEquals":              {true, func(p, v string) bool { return Match(p, v, false) }},
	"ArnNotLike":                {true, func(p, v string) bool { return Match(p, v, false) }},
	"Bool":                      {false, strings.EqualFold},
}

func parseOperator(s string) (operator, bool, error) {
	var op operator
	if set, rest, ok := strings.Cut(s, ":"); ok {
		if set != "ForAllValues" && set != "ForAnyValue" {
			return op, false, fmt.Errorf("condition operator %q: unknown set operator %s", s, set)
		}
		op.set, s = set, rest
	}
	if base, ok := strings.CutSuffix(s, "IfExists"); ok && base != "" {
		op.ifExists, s = true, base
	}
	op.base = s
	if s == "Null" {
		return op, false, nil
	}
	b, ok := baseOperators[s]
	if !ok {
		return op, false, fmt.Errorf("condition operator %q is not supported by the local check", s)
	}
	return op, b.negated, nil
}

// conditionHolds evaluates one operator for one key: want are the
// policy's values (any may match), got the request's values for the key.
// As AWS documents, ForAllValues holds when every request value matches
// some policy value, and so for a request without the key (the empty
// set: a DynamoDB Scan has no dynamodb:LeadingKeys, so a statement
// allowing Scan under ForAllValues allows every Scan); ForAnyValue needs
// one value to match and fails on the empty set.
func conditionHolds(opName string, want, got []string) bool {
	op, negated, err := parseOperator(opName)
	if err != nil {
		return false // Parse refuses such policies; never allow on one.
	}
	if op.base == "Null" {
		absent := len(got) == 0
		return len(want) > 0 && strings.EqualFold(want[0], "true") == absent
	}
	matchOne := func(v string) bool {
		for _, w := range want {
			if baseOperators[op.base].match(w, v) {
				return !negated
			}
		}
		return negated
	}
	if len(got) == 0 {
		switch {
		case op.set == "ForAllValues":
			return true
		case op.set == "ForAnyValue":
			return false
		default:
			return op.ifExists || negated
		}
	}
	if op.set == "ForAllValues" {
		for _, v := range got {
			if !matchOne(v) {
				return false
			}
		}
		return true
	}
	for _, v := range got {
		if matchOne(v) {
			return true
		}
	}
	return false
}
