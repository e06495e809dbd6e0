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

// singleItemOps are the operations on one item, whose Key (or Item) gives
// their LeadingKeys.
var singleItemOps = map[string]bool{"GetItem": true, "PutItem": true, "UpdateItem": true, "DeleteItem": true}

type ddbBody struct {
	TableName     string
	IndexName     string
	RequestItems  map[string]json.RawMessage
	TransactItems []map[string]json.RawMessage
}

// parseDynamoDB maps a DynamoDB call to its table (or index) ARNs and the
// partition keys it touches (dynamodb:LeadingKeys): a Query or Scan of an
// index is on <table>/index/<name>; a transaction needs each item's
// action on its table; a batch needs the batch action on each table it
// names, with all that table's keys.
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
		out = transactRequests(b.TransactItems, table)
	case len(b.RequestItems) > 0:
		names := make([]string, 0, len(b.RequestItems))
		for n := range b.RequestItems {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			out = append(out, iampolicy.Request{Action: "dynamodb:" + op, Resource: table(n), Context: batchKeys(b.RequestItems[n])})
		}
	case b.TableName != "":
		out = append(out, tableRequest(op, table(b.TableName), b.IndexName, a.body))
	default:
		out = append(out, iampolicy.Request{Action: "dynamodb:" + op, Resource: "*"})
	}
	return "DynamoDB." + op, out
}

// transactRequests asks for each transaction item's action on its table,
// with the item's partition key.
func transactRequests(items []map[string]json.RawMessage, table func(string) string) []iampolicy.Request {
	var out []iampolicy.Request
	for _, it := range items {
		for kind, raw := range it {
			action, ok := transactActions[kind]
			if !ok {
				action = "unparsed:dynamodb"
			}
			var v struct{ TableName string }
			_ = json.Unmarshal(raw, &v)
			out = append(out, iampolicy.Request{Action: action, Resource: table(v.TableName), Context: transactKeys(raw)})
		}
	}
	return out
}

// tableRequest is the request of a call on one table (or index): a
// single-item call's and a base-table Query's LeadingKeys are read from
// the body; a Query of an index records an unknown key (see unknownKey);
// a Scan touches no partition key in particular and records none.
func tableRequest(op, tableARN, index string, body []byte) iampolicy.Request {
	r := iampolicy.Request{Action: "dynamodb:" + op, Resource: tableARN}
	switch {
	case index != "":
		r.Resource += "/index/" + index
		if op == "Query" {
			r.Context = keySet(item{})
		}
	case singleItemOps[op]:
		r.Context = singleItemKeys(body)
	case op == "Query":
		r.Context = queryKeys(body)
	}
	return r
}
