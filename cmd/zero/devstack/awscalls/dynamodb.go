package awscalls

import (
	"encoding/json"
	"sort"
	"strings"

	"github.com/zero-gateway/zero/cmd/zero/devstack/iampolicy"
)

// transactActions are the actions AWS authorises a transaction's items as.
var transactActions = map[string]string{
	"Put":            "dynamodb:PutItem",
	"Update":         "dynamodb:UpdateItem",
	"Delete":         "dynamodb:DeleteItem",
	"ConditionCheck": "dynamodb:ConditionCheckItem",
	"Get":            "dynamodb:GetItem",
}

type ddbBody struct {
	TableName     string
	IndexName     string
	RequestItems  map[string]json.RawMessage
	TransactItems []map[string]struct{ TableName string }
}

// parseDynamoDB maps a DynamoDB call to its table (or index) ARNs: a
// Query or Scan of an index is on <table>/index/<name>; a transaction
// needs each item's action on its table; a batch needs the batch action
// on each table it names.
func parseDynamoDB(a args) (string, []iampolicy.Request) {
	op := operation(a)
	var b ddbBody
	_ = json.Unmarshal(a.body, &b)
	table := func(name string) string {
		if strings.HasPrefix(name, "arn:") {
			return name
		}
		return "arn:aws:dynamodb:" + a.region + ":" + a.account + ":table/" + name
	}
	var out []iampolicy.Request
	switch {
	case len(b.TransactItems) > 0:
		for _, item := range b.TransactItems {
			for kind, v := range item {
				action, ok := transactActions[kind]
				if !ok {
					action = "unparsed:dynamodb"
				}
				out = append(out, iampolicy.Request{Action: action, Resource: table(v.TableName)})
			}
		}
	case len(b.RequestItems) > 0:
		names := make([]string, 0, len(b.RequestItems))
		for n := range b.RequestItems {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			out = append(out, iampolicy.Request{Action: "dynamodb:" + op, Resource: table(n)})
		}
	case b.TableName != "":
		res := table(b.TableName)
		if b.IndexName != "" {
			res += "/index/" + b.IndexName
		}
		out = append(out, iampolicy.Request{Action: "dynamodb:" + op, Resource: res})
	default:
		out = append(out, iampolicy.Request{Action: "dynamodb:" + op, Resource: "*"})
	}
	return "DynamoDB." + op, out
}
