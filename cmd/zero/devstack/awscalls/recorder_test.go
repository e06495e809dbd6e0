package awscalls

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/aws-sdk-go-v2/service/scheduler"
	schedtypes "github.com/aws/aws-sdk-go-v2/service/scheduler/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/aws/aws-sdk-go-v2/service/ssm"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/zero-gateway/zero/cmd/zero/devstack/iampolicy"
)

const (
	account  = "123456789012"
	tableARN = "arn:aws:dynamodb:eu-west-1:" + account + ":table/t"
	queueURL = "http://127.0.0.1/" + account + "/q.fifo"
	queueARN = "arn:aws:sqs:eu-west-1:" + account + ":q.fifo"
)

// TestRecordedCalls sends real SDK requests through a recorder (to an
// upstream that answers every request with an empty 200, which the SDK
// may fail to decode: only the recorded calls matter) and checks what
// each one needs from IAM.
func TestRecordedCalls(t *testing.T) {
	var forwarded atomic.Int64
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		forwarded.Add(1)
		w.WriteHeader(http.StatusOK)
	}))
	defer upstream.Close()
	for _, tc := range []struct {
		name string
		call func(ctx context.Context, cfg aws.Config)
		want []iampolicy.Call
	}{
		{"dynamodb get item", func(ctx context.Context, cfg aws.Config) {
			_, _ = dynamodb.NewFromConfig(cfg).GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("t"), Key: key("a")})
		}, calls("DynamoDB.GetItem", leading(req("dynamodb:GetItem", tableARN), "a"))},
		{"dynamodb query on an index", func(ctx context.Context, cfg aws.Config) {
			_, _ = dynamodb.NewFromConfig(cfg).Query(ctx, &dynamodb.QueryInput{TableName: aws.String("t"), IndexName: aws.String("bySessionId"),
				KeyConditionExpression: aws.String("sessionId = :s"), ExpressionAttributeValues: map[string]ddbtypes.AttributeValue{":s": &ddbtypes.AttributeValueMemberS{Value: "x"}}})
		}, calls("DynamoDB.Query", leading(req("dynamodb:Query", tableARN+"/index/bySessionId"), unknownKey))},
		{"dynamodb transaction per item", func(ctx context.Context, cfg aws.Config) {
			_, _ = dynamodb.NewFromConfig(cfg).TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []ddbtypes.TransactWriteItem{
				{Put: &ddbtypes.Put{TableName: aws.String("t"), Item: key("a")}},
				{Delete: &ddbtypes.Delete{TableName: aws.String("t"), Key: key("b")}},
				{ConditionCheck: &ddbtypes.ConditionCheck{TableName: aws.String("t"), Key: key("c"), ConditionExpression: aws.String("attribute_exists(pk)")}},
			}})
		}, calls("DynamoDB.TransactWriteItems", leading(req("dynamodb:PutItem", tableARN), "a"), leading(req("dynamodb:DeleteItem", tableARN), "b"),
			leading(req("dynamodb:ConditionCheckItem", tableARN), "c"))},
		{"dynamodb batch per table", func(ctx context.Context, cfg aws.Config) {
			_, _ = dynamodb.NewFromConfig(cfg).BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]ddbtypes.KeysAndAttributes{"t": {Keys: []map[string]ddbtypes.AttributeValue{key("a")}}}})
		}, calls("DynamoDB.BatchGetItem", leading(req("dynamodb:BatchGetItem", tableARN), "a"))},
		{"sqs batch is its single action", func(ctx context.Context, cfg aws.Config) {
			_, _ = sqs.NewFromConfig(cfg).SendMessageBatch(ctx, &sqs.SendMessageBatchInput{QueueUrl: aws.String(queueURL), Entries: []sqstypes.SendMessageBatchRequestEntry{{Id: aws.String("1"), MessageBody: aws.String("x")}}})
		}, calls("SQS.SendMessageBatch", req("sqs:SendMessage", queueARN))},
		{"s3 get object with its key", func(ctx context.Context, cfg aws.Config) {
			_, _ = s3Client(cfg).GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("b"), Key: aws.String("agents/main/s.jsonl.d/1.jsonl")})
		}, calls("S3.GetObject", req("s3:GetObject", "arn:aws:s3:::b/agents/main/s.jsonl.d/1.jsonl"))},
		{"s3 put object", func(ctx context.Context, cfg aws.Config) {
			_, _ = s3Client(cfg).PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("b"), Key: aws.String("agents/x"), Body: bytes.NewReader([]byte("x")), IfNoneMatch: aws.String("*")})
		}, calls("S3.PutObject", req("s3:PutObject", "arn:aws:s3:::b/agents/x"))},
		{"s3 list with its prefix", func(ctx context.Context, cfg aws.Config) {
			_, _ = s3Client(cfg).ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String("b"), Prefix: aws.String("agents/main/")})
		}, calls("S3.ListObjectsV2", iampolicy.Request{Action: "s3:ListBucket", Resource: "arn:aws:s3:::b", Context: map[string][]string{"s3:prefix": {"agents/main/"}}})},
		{"s3 delete objects per key", func(ctx context.Context, cfg aws.Config) {
			_, _ = s3Client(cfg).DeleteObjects(ctx, &s3.DeleteObjectsInput{Bucket: aws.String("b"), Delete: &s3types.Delete{Objects: []s3types.ObjectIdentifier{{Key: aws.String("agents/1")}, {Key: aws.String("agents/2")}}}})
		}, calls("S3.DeleteObjects", req("s3:DeleteObject", "arn:aws:s3:::b/agents/1"), req("s3:DeleteObject", "arn:aws:s3:::b/agents/2"))},
		{"ssm parameter", func(ctx context.Context, cfg aws.Config) {
			_, _ = ssm.NewFromConfig(cfg).GetParameter(ctx, &ssm.GetParameterInput{Name: aws.String("/zero/zt/config")})
		}, calls("SSM.GetParameter", req("ssm:GetParameter", "arn:aws:ssm:eu-west-1:"+account+":parameter/zero/zt/config"))},
		{"scheduler create with its role", func(ctx context.Context, cfg aws.Config) {
			_, _ = scheduler.NewFromConfig(cfg).CreateSchedule(ctx, &scheduler.CreateScheduleInput{Name: aws.String("job-1"), GroupName: aws.String("zt-cron"),
				ScheduleExpression: aws.String("rate(1 minute)"), FlexibleTimeWindow: &schedtypes.FlexibleTimeWindow{Mode: schedtypes.FlexibleTimeWindowModeOff},
				Target: &schedtypes.Target{Arn: aws.String("arn:aws:lambda:eu-west-1:" + account + ":function:cron"), RoleArn: aws.String("arn:aws:iam::" + account + ":role/sched")}})
		}, calls("Scheduler.CreateSchedule", req("scheduler:CreateSchedule", "arn:aws:scheduler:eu-west-1:"+account+":schedule/zt-cron/job-1"),
			iampolicy.Request{Action: "iam:PassRole", Resource: "arn:aws:iam::" + account + ":role/sched", Context: map[string][]string{"iam:PassedToService": {"scheduler.amazonaws.com"}}})},
		{"scheduler delete names its group in the query", func(ctx context.Context, cfg aws.Config) {
			_, _ = scheduler.NewFromConfig(cfg).DeleteSchedule(ctx, &scheduler.DeleteScheduleInput{Name: aws.String("job-1"), GroupName: aws.String("zt-cron")})
		}, calls("Scheduler.DeleteSchedule", req("scheduler:DeleteSchedule", "arn:aws:scheduler:eu-west-1:"+account+":schedule/zt-cron/job-1"))},
		{"sts caller identity needs nothing", func(ctx context.Context, cfg aws.Config) {
			_, _ = sts.NewFromConfig(cfg).GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
		}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec, err := New(upstream.URL, account, nil)
			if err != nil {
				t.Fatal(err)
			}
			front := httptest.NewServer(rec.Handler("Runner"))
			defer front.Close()
			before := forwarded.Load()
			tc.call(context.Background(), config(front.URL))
			if forwarded.Load() == before {
				t.Errorf("the request was not forwarded")
			}
			if diff := cmp.Diff(tc.want, rec.Calls(), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("recorded calls (-want +got):\n%s", diff)
			}
		})
	}
}

func TestUnparsedRequestsAreRecorded(t *testing.T) {
	for _, tc := range []struct {
		name string
		req  *http.Request
		want string
	}{
		{"unsigned", httptest.NewRequest(http.MethodGet, "/", nil), "unparsed:unsigned"},
		{"unknown service", signed(httptest.NewRequest(http.MethodPost, "/", nil), "kinesis"), "unparsed:kinesis"},
		{"s3 sub-resource", signed(httptest.NewRequest(http.MethodGet, "/b?versioning", nil), "s3"), "unparsed:s3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, reqs := Parse(tc.req, nil, account)
			if len(reqs) != 1 || reqs[0].Action != tc.want {
				t.Errorf("Parse = %+v, want one %s", reqs, tc.want)
			}
		})
	}
}

func signed(r *http.Request, service string) *http.Request {
	r.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=AKID/20260101/us-east-1/"+service+"/aws4_request, SignedHeaders=host, Signature=x")
	return r
}

func config(endpoint string) aws.Config {
	return aws.Config{
		Region:           "eu-west-1",
		BaseEndpoint:     aws.String(endpoint),
		Credentials:      credentials.NewStaticCredentialsProvider("AKID", "secret", ""),
		RetryMaxAttempts: 1,
	}
}

func s3Client(cfg aws.Config) *s3.Client {
	return s3.NewFromConfig(cfg, func(o *s3.Options) { o.UsePathStyle = true })
}

func key(v string) map[string]ddbtypes.AttributeValue {
	return map[string]ddbtypes.AttributeValue{"pk": &ddbtypes.AttributeValueMemberS{Value: v}, "sk": &ddbtypes.AttributeValueMemberS{Value: "entry"}}
}

// leading adds the partition keys r touches as its dynamodb:LeadingKeys.
func leading(r iampolicy.Request, keys ...string) iampolicy.Request {
	r.Context = map[string][]string{LeadingKeys: keys}
	return r
}

func req(action, resource string) iampolicy.Request {
	return iampolicy.Request{Action: action, Resource: resource}
}

func calls(op string, reqs ...iampolicy.Request) []iampolicy.Call {
	out := make([]iampolicy.Call, len(reqs))
	for i, r := range reqs {
		out[i] = iampolicy.Call{Function: "Runner", Operation: op, Request: r}
	}
	return out
}
