package awscalls

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestLeadingKeys parses DynamoDB JSON bodies as the SDK sends them and
// checks the dynamodb:LeadingKeys each authorisation carries (nil: the
// request records none).
func TestLeadingKeys(t *testing.T) {
	const tbl = `"TableName": "t"`
	for _, tc := range []struct {
		name, op, body string
		want           [][]string
	}{
		{"get item", "GetItem", `{` + tbl + `, "Key": {"pk": {"S": "session#a"}, "sk": {"S": "entry"}}}`, [][]string{{"session#a"}}},
		{"put item reads its item", "PutItem", `{` + tbl + `, "Item": {"pk": {"S": "cron"}, "sk": {"S": "job#1"}, "data": {"S": "x"}}}`, [][]string{{"cron"}}},
		{"update item", "UpdateItem", `{` + tbl + `, "Key": {"pk": {"S": "outbox"}, "sk": {"S": "1"}}, "UpdateExpression": "SET a = :a"}`, [][]string{{"outbox"}}},
		{"delete item", "DeleteItem", `{` + tbl + `, "Key": {"pk": {"S": "cron"}, "sk": {"S": "job#1"}}}`, [][]string{{"cron"}}},
		{"number key", "GetItem", `{` + tbl + `, "Key": {"pk": {"N": "42"}}}`, [][]string{{"42"}}},
		{"binary key is unknown", "GetItem", `{` + tbl + `, "Key": {"pk": {"B": "AAE="}}}`, [][]string{{unknownKey}}},
		{"no key is unknown", "GetItem", `{` + tbl + `}`, [][]string{{unknownKey}}},
		{"batch get: all keys, distinct and sorted", "BatchGetItem",
			`{"RequestItems": {"t": {"Keys": [{"pk": {"S": "run#2"}}, {"pk": {"S": "run#1"}}, {"pk": {"S": "run#2"}}]}}}`, [][]string{{"run#1", "run#2"}}},
		{"batch write: puts and deletes", "BatchWriteItem",
			`{"RequestItems": {"t": [{"PutRequest": {"Item": {"pk": {"S": "run#1"}}}}, {"DeleteRequest": {"Key": {"pk": {"S": "msg#m"}}}}]}}`, [][]string{{"msg#m", "run#1"}}},
		{"transaction: each item its own key", "TransactWriteItems",
			`{"TransactItems": [{"Update": {` + tbl + `, "Key": {"pk": {"S": "run#1"}}}}, {"Put": {` + tbl + `, "Item": {"pk": {"S": "session#a"}}}}]}`,
			[][]string{{"run#1"}, {"session#a"}}},
		{"query with an alias and a sort condition", "Query",
			`{` + tbl + `, "KeyConditionExpression": "#pk = :pk AND begins_with(#sk, :p)", "ExpressionAttributeNames": {"#pk": "pk", "#sk": "sk"},
			"ExpressionAttributeValues": {":pk": {"S": "cron#j"}, ":p": {"S": "run#"}}}`, [][]string{{"cron#j"}}},
		{"query with the sort condition first", "Query",
			`{` + tbl + `, "KeyConditionExpression": "(sk > :s) and (pk = :v)", "ExpressionAttributeValues": {":v": {"S": "outbox"}, ":s": {"S": "0"}}}`, [][]string{{"outbox"}}},
		{"query sort-key equality is not the partition key", "Query",
			`{` + tbl + `, "KeyConditionExpression": "sk = :s", "ExpressionAttributeValues": {":s": {"S": "x"}}}`, [][]string{{unknownKey}}},
		{"legacy key conditions", "Query",
			`{` + tbl + `, "KeyConditions": {"pk": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "outbox"}]}}}`, [][]string{{"outbox"}}},
		{"query of an index is unknown", "Query",
			`{` + tbl + `, "IndexName": "bySessionId", "KeyConditionExpression": "sessionId = :s", "ExpressionAttributeValues": {":s": {"S": "x"}}}`, [][]string{{unknownKey}}},
		{"scan touches none", "Scan", `{` + tbl + `}`, [][]string{nil}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := signed(httptest.NewRequest(http.MethodPost, "/", strings.NewReader(tc.body)), "dynamodb")
			r.Header.Set("X-Amz-Target", "DynamoDB_20120810."+tc.op)
			_, reqs := Parse(r, []byte(tc.body), account)
			var got [][]string
			for _, q := range reqs {
				got = append(got, q.Context[LeadingKeys])
			}
			if diff := cmp.Diff(tc.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("LeadingKeys of %s (-want +got):\n%s", tc.op, diff)
			}
		})
	}
}
