package dynamo

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/zero-gateway/zero/shared/awsconfig"
	"github.com/zero-gateway/zero/shared/emulator"
)

var (
	testClient *dynamodb.Client
	testTable  string             // created in TestMain, like template.yaml's SessionTable
	counter    *awsconfig.Counter // counts every call made with testClient
)

func TestMain(m *testing.M) {
	counter = awsconfig.NewCounter()
	os.Exit(emulator.RunTests(m, counter, func(ctx context.Context, cfg aws.Config) (func(), error) {
		testClient = dynamodb.NewFromConfig(cfg)
		testTable = "zero-sessions-" + randomSuffix()
		if err := createTable(ctx, testClient, testTable); err != nil {
			return nil, err
		}
		return func() { testClient.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: &testTable}) }, nil
	}))
}

// createTable creates a table with template.yaml's SessionTable keys and TTL.
func createTable(ctx context.Context, c *dynamodb.Client, name string) error {
	_, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:   &name,
		BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("sk"), AttributeType: types.ScalarAttributeTypeS},
		},
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange},
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
	name := "zero-test-" + randomSuffix()
	if err := createTable(context.Background(), testClient, name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		testClient.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: &name})
	})
	return name
}

func randomSuffix() string {
	b := make([]byte, 6)
	rand.Read(b)
	return hex.EncodeToString(b)
}
