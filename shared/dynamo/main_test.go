package dynamo

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"

	"github.com/zero-gateway/zero/shared/awsconfig"
	"github.com/zero-gateway/zero/shared/awstest"
	"github.com/zero-gateway/zero/shared/emulator"
)

var (
	testClient *dynamodb.Client
	testTable  string             // created in TestMain, like template.yaml's SessionTable
	counter    *awsconfig.Counter // counts every call made with testClient
)

func TestMain(m *testing.M) {
	counter = awsconfig.NewCounter()
	code := emulator.RunTests(m, counter, func(ctx context.Context, cfg aws.Config) (func(), error) {
		testClient = dynamodb.NewFromConfig(cfg, func(o *dynamodb.Options) { o.APIOptions = append(o.APIOptions, forbidScan) })
		testTable = awstest.Name("zero-sessions-")
		if err := createTable(ctx, testClient, testTable); err != nil {
			return nil, err
		}
		return func() { testClient.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: &testTable}) }, nil
	})
	if n := scans.Load(); n > 0 && code == 0 {
		fmt.Fprintf(os.Stderr, "FAIL: the tests made %d Scan calls; reads must be queries or key lookups\n", n)
		code = 1
	}
	os.Exit(code)
}

// scans counts the Scan calls made with testClient, which fails them: the
// store must never scan the table.
var scans atomic.Int64

func forbidScan(stack *middleware.Stack) error {
	return stack.Initialize.Add(middleware.InitializeMiddlewareFunc("zeroForbidScan",
		func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
			if middleware.GetOperationName(ctx) == "Scan" {
				scans.Add(1)
				return middleware.InitializeOutput{}, middleware.Metadata{}, errors.New("dynamo tests: Scan is not allowed")
			}
			return next.HandleInitialize(ctx, in)
		}), middleware.After)
}

// createTable creates a table with template.yaml's SessionTable keys,
// indexes and TTL.
func createTable(ctx context.Context, c *dynamodb.Client, name string) error {
	_, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:   &name,
		BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("sk"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("agentId"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("updatedAt"), AttributeType: types.ScalarAttributeTypeN},
			{AttributeName: aws.String("sessionId"), AttributeType: types.ScalarAttributeTypeS},
		},
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange},
		},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{
			{
				IndexName: aws.String("byAgent"),
				KeySchema: []types.KeySchemaElement{
					{AttributeName: aws.String("agentId"), KeyType: types.KeyTypeHash},
					{AttributeName: aws.String("updatedAt"), KeyType: types.KeyTypeRange},
				},
				Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll},
			},
			{
				IndexName: aws.String("bySessionId"),
				KeySchema: []types.KeySchemaElement{
					{AttributeName: aws.String("sessionId"), KeyType: types.KeyTypeHash},
				},
				Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly},
			},
		},
	})
	if err != nil {
		return fmt.Errorf("create table %s: %w", name, err)
	}
	if err := dynamodb.NewTableExistsWaiter(c).Wait(ctx, &dynamodb.DescribeTableInput{TableName: &name}, time.Minute); err != nil {
		return fmt.Errorf("wait for table %s: %w", name, err)
	}
	_, err = c.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{
		TableName:               &name,
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("ttl"), Enabled: aws.Bool(true)},
	})
	if err != nil {
		return fmt.Errorf("enable TTL on %s: %w", name, err)
	}
	return nil
}

// freshTable creates a table for one test and deletes it afterwards.
func freshTable(t testing.TB) string {
	t.Helper()
	name := awstest.Name("zero-test-")
	if err := createTable(context.Background(), testClient, name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		testClient.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: &name})
	})
	return name
}
