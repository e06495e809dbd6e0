package emulator_test

// These tests pin down the DynamoDB transaction guarantees the stack
// relies on (see motoLauncher): a transaction's cost does not grow with
// the table, all or nothing is written, and a cancelled transaction names
// the failed condition. Standard DynamoDB calls only.

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/go-cmp/cmp"
)

// newTable creates a pk/sk table for one test, filled with n items.
func newTable(t *testing.T, name string, n int) string {
	t.Helper()
	ctx := context.Background()
	table := "zt-" + run + "-" + name
	_, err := ddb.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:   aws.String(table),
		BillingMode: ddbtypes.BillingModePayPerRequest,
		AttributeDefinitions: []ddbtypes.AttributeDefinition{
			{AttributeName: aws.String("pk"), AttributeType: ddbtypes.ScalarAttributeTypeS},
			{AttributeName: aws.String("sk"), AttributeType: ddbtypes.ScalarAttributeTypeS},
		},
		KeySchema: []ddbtypes.KeySchemaElement{
			{AttributeName: aws.String("pk"), KeyType: ddbtypes.KeyTypeHash},
			{AttributeName: aws.String("sk"), KeyType: ddbtypes.KeyTypeRange},
		},
	})
	if err != nil {
		t.Fatalf("create table %s: %v", table, err)
	}
	t.Cleanup(func() {
		ddb.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(table)})
	})
	for start := 0; start < n; start += 25 {
		var reqs []ddbtypes.WriteRequest
		for i := start; i < min(start+25, n); i++ {
			reqs = append(reqs, ddbtypes.WriteRequest{PutRequest: &ddbtypes.PutRequest{Item: item(fmt.Sprintf("fill#%d", i), "x", "some text to make the item a realistic size")}})
		}
		if _, err := ddb.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]ddbtypes.WriteRequest{table: reqs}}); err != nil {
			t.Fatalf("fill %s: %v", table, err)
		}
	}
	return table
}

func item(pk, sk, body string) map[string]ddbtypes.AttributeValue {
	return map[string]ddbtypes.AttributeValue{
		"pk": &ddbtypes.AttributeValueMemberS{Value: pk}, "sk": &ddbtypes.AttributeValueMemberS{Value: sk},
		"body": &ddbtypes.AttributeValueMemberS{Value: body},
	}
}

func createOnly(table, pk string) ddbtypes.TransactWriteItem {
	return ddbtypes.TransactWriteItem{Put: &ddbtypes.Put{
		TableName: aws.String(table), Item: item(pk, "entry", "v1"), ConditionExpression: aws.String("attribute_not_exists(pk)"),
	}}
}

// TestTransactionCostIndependentOfTableSize: a one-item transaction on a
// table of 3,000 items costs about what it costs on a table of 5.
// Unpatched moto 5.2.1 copied the whole table per item: over 10x slower.
func TestTransactionCostIndependentOfTableSize(t *testing.T) {
	ctx := context.Background()
	small, large := newTable(t, "tx-small", 5), newTable(t, "tx-large", 3000)
	var costs [2][]time.Duration
	for i := range 30 {
		for j, table := range []string{small, large} {
			start := time.Now()
			if _, err := ddb.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{
				TransactItems: []ddbtypes.TransactWriteItem{createOnly(table, "tx#"+strconv.Itoa(i))},
			}); err != nil {
				t.Fatalf("TransactWriteItems: %v", err)
			}
			costs[j] = append(costs[j], time.Since(start))
		}
	}
	s, l := median(costs[0]), median(costs[1])
	t.Logf("TransactWriteItems median: %v on 5 items, %v on 3,000", s, l)
	if ratio := float64(l) / float64(s); ratio > 3 {
		t.Errorf("a transaction on 3,000 items costs %.1fx one on 5 (%v vs %v); want < 3x", ratio, l, s)
	}
}

// TestTransactionAllOrNothing: a failed condition cancels the whole
// transaction, names the item, and writes nothing; a good one writes all.
func TestTransactionAllOrNothing(t *testing.T) {
	ctx := context.Background()
	table := newTable(t, "tx-atomic", 0)
	if _, err := ddb.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: item("taken", "entry", "v0")}); err != nil {
		t.Fatal(err)
	}
	var canceled *ddbtypes.TransactionCanceledException
	_, err := ddb.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []ddbtypes.TransactWriteItem{
		createOnly(table, "fresh"),
		createOnly(table, "taken"),
	}})
	if !errors.As(err, &canceled) {
		t.Fatalf("err = %v; want TransactionCanceledException", err)
	}
	var codes []string
	for _, r := range canceled.CancellationReasons {
		codes = append(codes, aws.ToString(r.Code))
	}
	if diff := cmp.Diff([]string{"None", "ConditionalCheckFailed"}, codes); diff != "" {
		t.Errorf("cancellation reasons (-want +got):\n%s", diff)
	}
	if got := getBody(t, table, "fresh"); got != "" {
		t.Errorf("a cancelled transaction wrote fresh (%q)", got)
	}
	if _, err := ddb.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []ddbtypes.TransactWriteItem{
		createOnly(table, "fresh"),
		{Update: &ddbtypes.Update{TableName: aws.String(table), Key: map[string]ddbtypes.AttributeValue{
			"pk": &ddbtypes.AttributeValueMemberS{Value: "taken"}, "sk": &ddbtypes.AttributeValueMemberS{Value: "entry"},
		}, UpdateExpression: aws.String("SET body = :b"), ConditionExpression: aws.String("body = :old"),
			ExpressionAttributeValues: map[string]ddbtypes.AttributeValue{":b": &ddbtypes.AttributeValueMemberS{Value: "v1"}, ":old": &ddbtypes.AttributeValueMemberS{Value: "v0"}}}},
	}}); err != nil {
		t.Fatalf("good transaction: %v", err)
	}
	if got := []string{getBody(t, table, "fresh"), getBody(t, table, "taken")}; !cmp.Equal(got, []string{"v1", "v1"}) {
		t.Errorf("after a good transaction the items hold %q; want both written", got)
	}
}

func getBody(t *testing.T, table, pk string) string {
	t.Helper()
	out, err := ddb.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String(table), ConsistentRead: aws.Bool(true), Key: map[string]ddbtypes.AttributeValue{
		"pk": &ddbtypes.AttributeValueMemberS{Value: pk}, "sk": &ddbtypes.AttributeValueMemberS{Value: "entry"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if b, ok := out.Item["body"].(*ddbtypes.AttributeValueMemberS); ok {
		return b.Value
	}
	return ""
}
