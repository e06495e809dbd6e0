package sqsqueue

import (
	"context"
	"encoding/json"
	"os"
	"strconv"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/zero-gateway/zero/shared/awsconfig"
	"github.com/zero-gateway/zero/shared/awstest"
	"github.com/zero-gateway/zero/shared/emulator"
)

var (
	testClient *sqs.Client
	counter    *awsconfig.Counter
)

func TestMain(m *testing.M) {
	counter = awsconfig.NewCounter()
	os.Exit(emulator.RunTests(m, counter, func(_ context.Context, cfg aws.Config) (func(), error) {
		testClient = sqs.NewFromConfig(cfg)
		return nil, nil
	}))
}

// testQueue is a FIFO work queue with its FIFO dead-letter queue.
type testQueue struct {
	url, arn       string
	dlqURL, dlqARN string
}

// newQueues creates a uniquely named FIFO queue and FIFO DLQ (like
// template.yaml's, with a short visibility timeout) and deletes them after
// the test.
func newQueues(t *testing.T, visibility, maxReceive int) testQueue {
	t.Helper()
	ctx := context.Background()
	base := awstest.Name("zero-test-")
	create := func(name string, attrs map[string]string) (url, arn string) {
		attrs["FifoQueue"] = "true"
		attrs["ContentBasedDeduplication"] = "false"
		out, err := testClient.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String(name), Attributes: attrs})
		if err != nil {
			t.Fatalf("create queue %s: %v", name, err)
		}
		url = *out.QueueUrl
		t.Cleanup(func() { testClient.DeleteQueue(context.Background(), &sqs.DeleteQueueInput{QueueUrl: &url}) })
		got, err := testClient.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{
			QueueUrl: &url, AttributeNames: []types.QueueAttributeName{types.QueueAttributeNameQueueArn},
		})
		if err != nil {
			t.Fatalf("queue arn of %s: %v", name, err)
		}
		return url, got.Attributes[string(types.QueueAttributeNameQueueArn)]
	}
	var q testQueue
	q.dlqURL, q.dlqARN = create(base+"-dlq.fifo", map[string]string{})
	redrive, _ := json.Marshal(map[string]string{"deadLetterTargetArn": q.dlqARN, "maxReceiveCount": strconv.Itoa(maxReceive)})
	q.url, q.arn = create(base+".fifo", map[string]string{
		"VisibilityTimeout": strconv.Itoa(visibility),
		"RedrivePolicy":     string(redrive),
	})
	return q
}
