package provision

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/aws/aws-sdk-go-v2/service/ssm"
	ssmtypes "github.com/aws/aws-sdk-go-v2/service/ssm/types"
	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/cmd/zero/devstack/template"
	"github.com/zero-gateway/zero/shared/awsconfig"
	"github.com/zero-gateway/zero/shared/emulator"
)

// The integration tests share one moto server (or the emulator named by
// ZERO_AWS_ENDPOINT) and namespace their resources with a unique prefix.
var (
	emuErr  error
	tempDir string
)

func TestMain(m *testing.M) {
	var srv *emulator.Server
	srv, emuErr = emulator.Start(context.Background(), "")
	if emuErr == nil {
		srv.Setenv()
	}
	var err error
	if tempDir, err = os.MkdirTemp("", "devstack-test-"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	srv.Stop()
	os.RemoveAll(tempDir)
	os.Exit(code)
}

// need fails a test when a prerequisite is missing: `make test` installs
// them all (`make deps`), so a missing one is a broken setup, not a reason
// to skip.
func need(t *testing.T, what string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s unavailable (run `make deps`): %v", what, err)
	}
}

func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", "..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

func uniquePrefix(t *testing.T, what string) string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return "zt-" + hex.EncodeToString(b[:]) + "-" + what
}

var (
	translateOnce sync.Once
	translated    string
	translateErr  error
)

// translatedTemplate translates the repository's template.yaml once per run.
func translatedTemplate(t *testing.T) string {
	t.Helper()
	translateOnce.Do(func() {
		translated = filepath.Join(tempDir, "template.json")
		translateErr = template.Translate(context.Background(), repoRoot(t), "template.yaml", translated)
	})
	need(t, "aws-sam-translator", translateErr)
	return translated
}

// testParams are values for the template's required parameters.
var testParams = map[string]string{"TelegramBotId": "123456"}

func TestProvisionFromTemplate(t *testing.T) {
	need(t, "AWS emulator", emuErr)
	t.Parallel()
	ctx := context.Background()
	tmpl, err := template.Load(translatedTemplate(t))
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := awsconfig.Load(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	prefix := uniquePrefix(t, "prov")
	opts := Options{StackName: prefix, Params: testParams, Logf: t.Logf}
	res, err := Provision(ctx, cfg, tmpl, opts)
	if err != nil {
		t.Fatal(err)
	}

	t.Run("queues", func(t *testing.T) {
		client := sqs.NewFromConfig(cfg)
		dlq, work := res.Queues["DeadLetterQueue"], res.Queues["WorkQueue"]
		eq(t, "work name", work.Name, prefix+"-workqueue.fifo")
		eq(t, "dlq name", dlq.Name, prefix+"-deadletterqueue.fifo")
		attrs := queueAttrs(t, client, work.URL)
		eq(t, "FifoQueue", attrs["FifoQueue"], "true")
		eq(t, "ContentBasedDeduplication", attrs["ContentBasedDeduplication"], "false")
		eq(t, "VisibilityTimeout", attrs["VisibilityTimeout"], "5400")
		eq(t, "MessageRetentionPeriod", attrs["MessageRetentionPeriod"], "345600")
		eq(t, "QueueArn", attrs["QueueArn"], work.ARN)
		var redrive struct {
			DeadLetterTargetArn string `json:"deadLetterTargetArn"`
			MaxReceiveCount     any    `json:"maxReceiveCount"`
		}
		if err := json.Unmarshal([]byte(attrs["RedrivePolicy"]), &redrive); err != nil {
			t.Fatalf("RedrivePolicy %q: %v", attrs["RedrivePolicy"], err)
		}
		eq(t, "deadLetterTargetArn", redrive.DeadLetterTargetArn, dlq.ARN)
		eq(t, "maxReceiveCount", fmt.Sprint(redrive.MaxReceiveCount), "5")
		dattrs := queueAttrs(t, client, dlq.URL)
		eq(t, "dlq FifoQueue", dattrs["FifoQueue"], "true")
		eq(t, "dlq MessageRetentionPeriod", dattrs["MessageRetentionPeriod"], "1209600")
		// The sub-agent lane: its own queue with the work queue's
		// settings and its own dead-letter queue.
		sub, subDLQ := res.Queues["SubagentQueue"], res.Queues["SubagentDeadLetterQueue"]
		eq(t, "subagent name", sub.Name, prefix+"-subagentqueue.fifo")
		sattrs := queueAttrs(t, client, sub.URL)
		eq(t, "subagent FifoQueue", sattrs["FifoQueue"], "true")
		eq(t, "subagent VisibilityTimeout", sattrs["VisibilityTimeout"], "5400")
		if err := json.Unmarshal([]byte(sattrs["RedrivePolicy"]), &redrive); err != nil {
			t.Fatalf("subagent RedrivePolicy %q: %v", sattrs["RedrivePolicy"], err)
		}
		eq(t, "subagent deadLetterTargetArn", redrive.DeadLetterTargetArn, subDLQ.ARN)
		eq(t, "subagent maxReceiveCount", fmt.Sprint(redrive.MaxReceiveCount), "5")
		eq(t, "subagent dlq FifoQueue", queueAttrs(t, client, subDLQ.URL)["FifoQueue"], "true")
	})

	t.Run("table", func(t *testing.T) {
		client := dynamodb.NewFromConfig(cfg)
		tbl := res.Tables["SessionTable"]
		eq(t, "name", tbl.Name, prefix+"-sessiontable")
		d, err := client.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(tbl.Name)})
		if err != nil {
			t.Fatal(err)
		}
		eq(t, "keys", d.Table.KeySchema, []ddbtypes.KeySchemaElement{
			{AttributeName: aws.String("pk"), KeyType: ddbtypes.KeyTypeHash},
			{AttributeName: aws.String("sk"), KeyType: ddbtypes.KeyTypeRange},
		})
		types := map[string]ddbtypes.ScalarAttributeType{}
		for _, a := range d.Table.AttributeDefinitions {
			types[aws.ToString(a.AttributeName)] = a.AttributeType
		}
		eq(t, "attribute types", types, map[string]ddbtypes.ScalarAttributeType{
			"pk": "S", "sk": "S", "agentId": "S", "updatedAt": "N", "sessionId": "S",
		})
		indexes := map[string][]ddbtypes.KeySchemaElement{}
		for _, gsi := range d.Table.GlobalSecondaryIndexes {
			indexes[aws.ToString(gsi.IndexName)] = gsi.KeySchema
		}
		eq(t, "indexes", indexes, map[string][]ddbtypes.KeySchemaElement{
			"byAgent": {
				{AttributeName: aws.String("agentId"), KeyType: ddbtypes.KeyTypeHash},
				{AttributeName: aws.String("updatedAt"), KeyType: ddbtypes.KeyTypeRange},
			},
			"bySessionId": {{AttributeName: aws.String("sessionId"), KeyType: ddbtypes.KeyTypeHash}},
		})
		if d.Table.BillingModeSummary != nil {
			eq(t, "billing", d.Table.BillingModeSummary.BillingMode, ddbtypes.BillingModePayPerRequest)
		}
		ttl, err := client.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(tbl.Name)})
		if err != nil {
			t.Fatal(err)
		}
		eq(t, "ttl attribute", aws.ToString(ttl.TimeToLiveDescription.AttributeName), "ttl")
		eq(t, "ttl status", ttl.TimeToLiveDescription.TimeToLiveStatus, ddbtypes.TimeToLiveStatusEnabled)
	})

	t.Run("bucket", func(t *testing.T) {
		client := s3.NewFromConfig(cfg, func(o *s3.Options) { o.UsePathStyle = true })
		b := res.Buckets["TranscriptBucket"]
		eq(t, "name", b.Name, prefix+"-transcriptbucket")
		enc, err := client.GetBucketEncryption(ctx, &s3.GetBucketEncryptionInput{Bucket: aws.String(b.Name)})
		if err != nil {
			t.Fatal(err)
		}
		rules := enc.ServerSideEncryptionConfiguration.Rules
		if len(rules) != 1 || rules[0].ApplyServerSideEncryptionByDefault == nil {
			t.Fatalf("encryption rules = %+v", rules)
		}
		eq(t, "sse", string(rules[0].ApplyServerSideEncryptionByDefault.SSEAlgorithm), "AES256")
		pab, err := client.GetPublicAccessBlock(ctx, &s3.GetPublicAccessBlockInput{Bucket: aws.String(b.Name)})
		if err != nil {
			t.Fatal(err)
		}
		c := pab.PublicAccessBlockConfiguration
		eq(t, "public access block", []bool{aws.ToBool(c.BlockPublicAcls), aws.ToBool(c.BlockPublicPolicy), aws.ToBool(c.IgnorePublicAcls), aws.ToBool(c.RestrictPublicBuckets)}, []bool{true, true, true, true})
		own, err := client.GetBucketOwnershipControls(ctx, &s3.GetBucketOwnershipControlsInput{Bucket: aws.String(b.Name)})
		if err != nil {
			t.Fatal(err)
		}
		eq(t, "ownership", string(own.OwnershipControls.Rules[0].ObjectOwnership), "BucketOwnerEnforced")
		// Versioned, as deployed: zero workspace restore and the file
		// tools' conditional writes run against versions locally too.
		ver, err := client.GetBucketVersioning(ctx, &s3.GetBucketVersioningInput{Bucket: aws.String(b.Name)})
		if err != nil {
			t.Fatal(err)
		}
		eq(t, "versioning", ver.Status, s3types.BucketVersioningStatusEnabled)
	})

	t.Run("functions", func(t *testing.T) {
		wh, run := res.Functions["TelegramWebhook"], res.Functions["Runner"]
		eq(t, "webhook dir", wh.SourceDir, "./functions/telegram-webhook")
		eq(t, "runner dir", run.SourceDir, "./functions/runner")
		eq(t, "webhook timeout", wh.Timeout, 10*time.Second)
		eq(t, "runner timeout", run.Timeout, 900*time.Second)
		eq(t, "runner memory", run.MemorySize, 256)
		eq(t, "webhook memory", wh.MemorySize, 128)
		eq(t, "webhook env", wh.Env, map[string]string{
			"ZERO_QUEUE_URL": res.Queues["WorkQueue"].URL,
			"ZERO_TABLE":     prefix + "-sessiontable",
			// Secrets by their SSM parameter's name, never by value.
			"TELEGRAM_WEBHOOK_SECRET_PARAMETER": "/zero/" + prefix + "/secrets/telegram-webhook-secret",
			"TELEGRAM_BOT_ID":                   "123456",
			"ZERO_CONFIG_PARAMETER":             "/zero/" + prefix + "/config",
		})
		eq(t, "runner env", run.Env, map[string]string{
			"ZERO_TABLE":                   prefix + "-sessiontable",
			"ZERO_BUCKET":                  prefix + "-transcriptbucket",
			"TELEGRAM_BOT_TOKEN_PARAMETER": "/zero/" + prefix + "/secrets/telegram-bot-token",
			"OPENAI_API_KEY_PARAMETER":     "/zero/" + prefix + "/secrets/openai-api-key",
			"ANTHROPIC_API_KEY_PARAMETER":  "/zero/" + prefix + "/secrets/anthropic-api-key",
			"BRAVE_API_KEY_PARAMETER":      "/zero/" + prefix + "/secrets/brave-api-key",
			"DISCORD_BOT_TOKEN_PARAMETER":  "/zero/" + prefix + "/secrets/discord-bot-token",
			"DISCORD_APPLICATION_ID":       "",
			"DISCORD_API_BASE_URL":         "https://discord.com/api/v10",
			"TELEGRAM_API_BASE_URL":        "https://api.telegram.org",
			"OPENAI_BASE_URL":              "https://api.openai.com/v1",
			"ZERO_MODEL":                   "zero/echo",
			"ZERO_CONFIG_PARAMETER":        "/zero/" + prefix + "/config",
			// One parameter feeds both this and the redrive policy's
			// maxReceiveCount (checked under queues), so they cannot drift.
			"ZERO_QUEUE_URL":          res.Queues["WorkQueue"].URL,
			"ZERO_SUBAGENT_QUEUE_URL": res.Queues["SubagentQueue"].URL,
			"ZERO_MAX_RECEIVE_COUNT":  "5",
			"ZERO_GROUP_CONCURRENCY":  "10",
			"ZERO_MIN_BUDGET_SECONDS": "120",
			"ZERO_RETRY_BASE_SECONDS": "5",
			"ZERO_RETRY_MAX_SECONDS":  "300",
			"ZERO_BEDROCK_MODELS":     "",
			// The cron tool's schedules, as the gateway's; the gateway
			// tool's config writes are off by default (AgentConfigWrites).
			"ZERO_CRON_GROUP":      prefix + "-cron",
			"ZERO_CRON_TARGET_ARN": res.Functions["Cron"].ARN,
			"ZERO_CRON_ROLE_ARN":   "arn:aws:iam::" + res.AccountID + ":role/" + prefix + "-CronSchedulerRole",
			"ZERO_CONFIG_WRITES":   "false",
		})
		eq(t, "routes", res.Routes, []Route{
			{Method: "GET", Path: "/", Function: "Gateway"},                // the control page
			{Method: "GET", Path: "/assets/{proxy+}", Function: "Gateway"}, // and its assets
			{Method: "POST", Path: "/hooks/agent", Function: "Hooks"},
			{Method: "POST", Path: "/hooks/wake", Function: "Hooks"},
			{Method: "POST", Path: "/rpc", Function: "Gateway"},
			{Method: "POST", Path: "/webhooks/discord", Function: "DiscordInteractions"},
			{Method: "POST", Path: "/webhooks/telegram", Function: "TelegramWebhook"},
		})
		dc := res.Functions["DiscordInteractions"]
		eq(t, "discord dir", dc.SourceDir, "./functions/discord-interactions")
		eq(t, "discord env", dc.Env, map[string]string{
			"DISCORD_PUBLIC_KEY":     "",
			"DISCORD_APPLICATION_ID": "",
			"ZERO_QUEUE_URL":         res.Queues["WorkQueue"].URL,
			"ZERO_TABLE":             prefix + "-sessiontable",
			"ZERO_CONFIG_PARAMETER":  "/zero/" + prefix + "/config",
		})
		gw := res.Functions["Gateway"]
		eq(t, "gateway dir", gw.SourceDir, "./functions/gateway")
		eq(t, "gateway timeout", gw.Timeout, 30*time.Second)
		eq(t, "gateway env", gw.Env, map[string]string{
			"ZERO_GATEWAY_TOKEN_PARAMETER": "/zero/" + prefix + "/secrets/gateway-token",
			"ZERO_TABLE":                   prefix + "-sessiontable",
			"ZERO_BUCKET":                  prefix + "-transcriptbucket",
			"ZERO_QUEUE_URL":               res.Queues["WorkQueue"].URL,
			"ZERO_SUBAGENT_QUEUE_URL":      res.Queues["SubagentQueue"].URL,
			"ZERO_DLQ_URL":                 res.Queues["DeadLetterQueue"].URL,
			"ZERO_SUBAGENT_DLQ_URL":        res.Queues["SubagentDeadLetterQueue"].URL,
			"ZERO_CONFIG_PARAMETER":        "/zero/" + prefix + "/config",
			"ZERO_CRON_GROUP":              prefix + "-cron",
			"ZERO_CRON_TARGET_ARN":         res.Functions["Cron"].ARN,
			"ZERO_CRON_ROLE_ARN":           "arn:aws:iam::" + res.AccountID + ":role/" + prefix + "-CronSchedulerRole",
		})
		eq(t, "schedule groups", res.ScheduleGroups, map[string]ScheduleGroup{"CronScheduleGroup": {LogicalID: "CronScheduleGroup",
			Name: prefix + "-cron", ARN: "arn:aws:scheduler:" + res.Region + ":" + res.AccountID + ":schedule-group/" + prefix + "-cron"}})
		hk := res.Functions["Hooks"]
		eq(t, "hooks dir", hk.SourceDir, "./functions/hooks")
		eq(t, "hooks env", hk.Env, map[string]string{
			"ZERO_HOOKS_TOKEN_PARAMETER": "/zero/" + prefix + "/secrets/hooks-token",
			"ZERO_QUEUE_URL":             res.Queues["WorkQueue"].URL,
			"ZERO_SUBAGENT_QUEUE_URL":    res.Queues["SubagentQueue"].URL,
			"ZERO_CONFIG_PARAMETER":      "/zero/" + prefix + "/config",
		})
		eq(t, "event sources", res.EventSources, []EventSource{{
			LogicalID: "RunnerSubagents", Function: "Runner", Queue: "SubagentQueue",
			QueueURL: res.Queues["SubagentQueue"].URL, QueueARN: res.Queues["SubagentQueue"].ARN,
			BatchSize: 10, ReportBatchItemFailures: true, Enabled: true, MaximumConcurrency: 10,
		}, {
			LogicalID: "RunnerWork", Function: "Runner", Queue: "WorkQueue",
			QueueURL: res.Queues["WorkQueue"].URL, QueueARN: res.Queues["WorkQueue"].ARN,
			BatchSize: 10, ReportBatchItemFailures: true, Enabled: true, MaximumConcurrency: 20,
		}})
	})

	t.Run("config parameter", func(t *testing.T) {
		name := "/zero/" + prefix + "/config"
		eq(t, "parameters", res.SSMParameters, map[string]SSMParameter{
			"ConfigParameter": {LogicalID: "ConfigParameter", Name: name, Type: "String"},
		})
		eq(t, "config parameter", res.ConfigParameter, name)
		got := describeParameter(t, ssm.NewFromConfig(cfg), name)
		eq(t, "value", got.value, "{}")
		eq(t, "type", got.typ, "String")
		eq(t, "description", got.description, "ZERO configuration (zero.json, JSON or JSON5).")
	})

	t.Run("conditions, skipped resources and outputs", func(t *testing.T) {
		eq(t, "conditions", res.Conditions, map[string]bool{"AgentWritesConfig": false, "HasAlarmTopic": false, "HasBedrockModels": false})
		notEmulated := func(typ string) string { return "(" + typ + ") is not emulated locally" }
		logGroup := "(AWS::Logs::LogGroup) is not created locally: the functions log to the console"
		eq(t, "skipped", res.Skipped, map[string]string{
			"CronLogGroup":                         logGroup,
			"CronRole":                             notEmulated("AWS::IAM::Role"),
			"CronLogsPolicy":                       notEmulated("AWS::IAM::RolePolicy"),
			"CronSchedulerRole":                    notEmulated("AWS::IAM::Role"),
			"DeadLetterAlarm":                      notEmulated("AWS::CloudWatch::Alarm"),
			"Dashboard":                            notEmulated("AWS::CloudWatch::Dashboard"),
			"MessageAgeAlarm":                      notEmulated("AWS::CloudWatch::Alarm"),
			"TurnFailuresAlarm":                    notEmulated("AWS::CloudWatch::Alarm"),
			"DiscordInteractionsDiscordPermission": notEmulated("AWS::Lambda::Permission"),
			"DiscordInteractionsLogGroup":          logGroup,
			"DiscordInteractionsRole":              notEmulated("AWS::IAM::Role"),
			"DiscordInteractionsLogsPolicy":        notEmulated("AWS::IAM::RolePolicy"),
			"GatewayLogGroup":                      logGroup,
			"RunnerLogGroup":                       logGroup,
			"TelegramWebhookLogGroup":              logGroup,
			"TranscriptBucketPolicy":               "(AWS::S3::BucketPolicy) is not applied locally: the emulator is plain HTTP, so its aws:SecureTransport deny would refuse every call",
			"GatewayRPCPermission":                 notEmulated("AWS::Lambda::Permission"),
			"GatewayUIPermission":                  notEmulated("AWS::Lambda::Permission"),
			"GatewayUIAssetsPermission":            notEmulated("AWS::Lambda::Permission"),
			"HooksAgentPermission":                 notEmulated("AWS::Lambda::Permission"),
			"HooksLogGroup":                        logGroup,
			"HooksRole":                            notEmulated("AWS::IAM::Role"),
			"HooksLogsPolicy":                      notEmulated("AWS::IAM::RolePolicy"),
			"HooksWakePermission":                  notEmulated("AWS::Lambda::Permission"),
			"GatewayRole":                          notEmulated("AWS::IAM::Role"),
			"GatewayLogsPolicy":                    notEmulated("AWS::IAM::RolePolicy"),
			"HttpApiApiGatewayDefaultStage":        notEmulated("AWS::ApiGatewayV2::Stage"),
			"RunnerRole":                           notEmulated("AWS::IAM::Role"),
			"RunnerLogsPolicy":                     notEmulated("AWS::IAM::RolePolicy"),
			"SubagentDeadLetterAlarm":              notEmulated("AWS::CloudWatch::Alarm"),
			"TelegramWebhookRole":                  notEmulated("AWS::IAM::Role"),
			"TelegramWebhookLogsPolicy":            notEmulated("AWS::IAM::RolePolicy"),
			"TelegramWebhookTelegramPermission":    notEmulated("AWS::Lambda::Permission"),
		})
		front := "HttpApi is served by the local HTTP front, which has no API id (use the front's URL)"
		eq(t, "outputs", res.Outputs, []template.OutputValue{
			{Name: "ConfigParameterName", Description: "SSM parameter holding zero.json (zero config push --parameter <this> zero.json).", Value: "/zero/" + prefix + "/config"},
			{Name: "DashboardURL", Description: "The CloudWatch dashboard of turns, latency, cost, failures and message age.", Unavailable: "Dashboard " + notEmulated("AWS::CloudWatch::Dashboard")},
			{Name: "DeadLetterAlarmName", Description: "CloudWatch alarm on the dead-letter queue's depth.", Unavailable: "DeadLetterAlarm " + notEmulated("AWS::CloudWatch::Alarm")},
			{Name: "DeadLetterQueueURL", Description: "FIFO dead-letter queue URL (zero dlq list --dlq <this>).", Value: res.Queues["DeadLetterQueue"].URL},
			{Name: "DiscordInteractionsURL", Description: "Discord's Interactions Endpoint URL (Developer Portal, General Information).", Unavailable: front},
			{Name: "GatewayURL", Description: "The gateway API (zero --url <this without /rpc>).", Unavailable: front},
			{Name: "HooksURL", Description: "Webhook hooks base URL (POST <this>/wake and <this>/agent with the hooks-token bearer).", Unavailable: front},
			{Name: "SessionTableName", Description: "DynamoDB session table.", Value: prefix + "-sessiontable"},
			{Name: "SubagentDeadLetterQueueURL", Description: "FIFO dead-letter queue of the sub-agent lane (zero dlq list --dlq <this>).", Value: res.Queues["SubagentDeadLetterQueue"].URL},
			{Name: "SubagentQueueURL", Description: "FIFO sub-agent queue URL (the sub-agent lane).", Value: res.Queues["SubagentQueue"].URL},
			{Name: "TranscriptBucketName", Description: "S3 transcript bucket.", Value: prefix + "-transcriptbucket"},
			{Name: "WebhookURL", Description: "Telegram webhook URL (pass to setWebhook with the secret).", Unavailable: front},
			{Name: "WorkQueueURL", Description: "FIFO work queue URL.", Value: res.Queues["WorkQueue"].URL},
		})
	})

	t.Run("idempotent", func(t *testing.T) {
		again, err := Provision(ctx, cfg, tmpl, opts)
		if err != nil {
			t.Fatalf("second Provision: %v", err)
		}
		eq(t, "queues", again.Queues, res.Queues)
		eq(t, "tables", again.Tables, res.Tables)
		eq(t, "buckets", again.Buckets, res.Buckets)
		eq(t, "parameters", again.SSMParameters, res.SSMParameters)
	})
}

// ssmTemplate has a named parameter the function reads its config from,
// an unnamed StringList, and refers to both.
const ssmTemplate = `{
  "Parameters": {"Doc": {"Type": "String", "Default": "{a: 1}"}},
  "Resources": {
    "Config": {"Type": "AWS::SSM::Parameter", "Properties": {
      "Name": {"Fn::Sub": "/zero/${AWS::StackName}/config"}, "Type": "String",
      "Value": {"Ref": "Doc"}, "Description": "the doc", "Tier": "Intelligent-Tiering"}},
    "Hosts": {"Type": "AWS::SSM::Parameter", "Properties": {"Type": "StringList", "Value": ["a", "b"],
      "Tags": {"team": "zero"}}},
    "Fn": {"Type": "AWS::Lambda::Function", "Properties": {"Environment": {"Variables": {
      "ZERO_CONFIG_PARAMETER": {"Ref": "Config"}, "HOSTS": {"Fn::GetAtt": ["Hosts", "Value"]},
      "HOSTS_NAME": {"Ref": "Hosts"}}}}}
  }
}`

func TestProvisionSSMParameter(t *testing.T) {
	need(t, "AWS emulator", emuErr)
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "template.json")
	if err := os.WriteFile(path, []byte(ssmTemplate), 0o644); err != nil {
		t.Fatal(err)
	}
	tmpl, err := template.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := awsconfig.Load(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	client := ssm.NewFromConfig(cfg)
	prefix := uniquePrefix(t, "ssm")
	configName, hostsName := "/zero/"+prefix+"/config", prefix+"-hosts"
	t.Cleanup(func() {
		client.DeleteParameters(context.Background(), &ssm.DeleteParametersInput{Names: []string{configName, hostsName}})
	})
	res, err := Provision(ctx, cfg, tmpl, Options{StackName: prefix, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "parameters", res.SSMParameters, map[string]SSMParameter{
		"Config": {LogicalID: "Config", Name: configName, Type: "String"},
		"Hosts":  {LogicalID: "Hosts", Name: hostsName, Type: "StringList"},
	})
	eq(t, "config parameter", res.ConfigParameter, configName)
	eq(t, "env", res.Functions["Fn"].Env, map[string]string{
		"ZERO_CONFIG_PARAMETER": configName, "HOSTS": "a,b", "HOSTS_NAME": hostsName,
	})
	got := describeParameter(t, client, configName)
	eq(t, "config", got, parameterState{value: "{a: 1}", typ: "String", description: "the doc", version: 1})
	got = describeParameter(t, client, hostsName)
	eq(t, "hosts", got, parameterState{value: "a,b", typ: "StringList", version: 1})

	// Provisioning again sets the template's value, as a stack update
	// does: a new version.
	if _, err := Provision(ctx, cfg, tmpl, Options{StackName: prefix, Params: map[string]string{"Doc": "{a: 2}"}}); err != nil {
		t.Fatalf("second Provision: %v", err)
	}
	got = describeParameter(t, client, configName)
	eq(t, "config after update", got, parameterState{value: "{a: 2}", typ: "String", description: "the doc", version: 2})
}

type parameterState struct {
	value, typ, description string
	version                 int64
}

// describeParameter reads a parameter's value, type, description and version.
func describeParameter(t *testing.T, client *ssm.Client, name string) parameterState {
	t.Helper()
	ctx := context.Background()
	got, err := client.GetParameter(ctx, &ssm.GetParameterInput{Name: aws.String(name)})
	if err != nil {
		t.Fatalf("get parameter %s: %v", name, err)
	}
	st := parameterState{value: aws.ToString(got.Parameter.Value), typ: string(got.Parameter.Type), version: got.Parameter.Version}
	desc, err := client.DescribeParameters(ctx, &ssm.DescribeParametersInput{
		ParameterFilters: []ssmtypes.ParameterStringFilter{{Key: aws.String("Name"), Option: aws.String("Equals"), Values: []string{name}}},
	})
	if err != nil || len(desc.Parameters) != 1 {
		t.Fatalf("describe parameter %s: %v (%d found)", name, err, len(desc.Parameters))
	}
	st.description = aws.ToString(desc.Parameters[0].Description)
	return st
}

func queueAttrs(t *testing.T, client *sqs.Client, url string) map[string]string {
	t.Helper()
	out, err := client.GetQueueAttributes(context.Background(), &sqs.GetQueueAttributesInput{
		QueueUrl: aws.String(url), AttributeNames: []sqstypes.QueueAttributeName{sqstypes.QueueAttributeNameAll},
	})
	if err != nil {
		t.Fatal(err)
	}
	return out.Attributes
}

func TestProvisionOrder(t *testing.T) {
	tests := []struct {
		name      string
		resources map[string]template.Resource
		want      []string
		wantErr   string
	}{
		{
			name: "dead-letter queue first",
			resources: map[string]template.Resource{
				"A":   {Type: typeQueue, Properties: map[string]any{"RedrivePolicy": map[string]any{"deadLetterTargetArn": map[string]any{"Fn::GetAtt": []any{"DLQ", "Arn"}}}}},
				"DLQ": {Type: typeQueue},
				"T":   {Type: typeTable},
				"F":   {Type: typeFunction, Properties: map[string]any{"Role": map[string]any{"Ref": "A"}}},
			},
			want: []string{"DLQ", "A", "T"},
		},
		{
			name: "DependsOn counts",
			resources: map[string]template.Resource{
				"A": {Type: typeBucket, DependsOn: "B"},
				"B": {Type: typeBucket},
			},
			want: []string{"B", "A"},
		},
		{
			name: "cycle",
			resources: map[string]template.Resource{
				"A": {Type: typeQueue, Properties: map[string]any{"X": map[string]any{"Ref": "B"}}},
				"B": {Type: typeQueue, Properties: map[string]any{"X": map[string]any{"Ref": "A"}}},
			},
			wantErr: "dependency cycle",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := provisionOrder(&template.Template{Resources: tt.resources})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			eq(t, "order", got, tt.want)
		})
	}
}

func TestKebabCase(t *testing.T) {
	tests := []struct{ in, want string }{
		{"TelegramWebhook", "telegram-webhook"},
		{"Runner", "runner"},
		{"HTTPProxy", "http-proxy"},
		{"DiscordV2Interactions", "discord-v2-interactions"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := kebabCase(tt.in); got != tt.want {
				t.Errorf("kebabCase(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestQueueAttributes(t *testing.T) {
	props := map[string]any{
		"FifoQueue": true, "ContentBasedDeduplication": false, "VisibilityTimeout": 720.0,
		"RedrivePolicy": map[string]any{"deadLetterTargetArn": "arn:x", "maxReceiveCount": 5.0},
		"QueueName":     "ignored", "Tags": []any{},
	}
	attrs, ignored, err := queueAttributes(props)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"FifoQueue": "true", "ContentBasedDeduplication": "false", "VisibilityTimeout": "720",
		"RedrivePolicy": `{"deadLetterTargetArn":"arn:x","maxReceiveCount":5}`,
	}
	eq(t, "attrs", attrs, want)
	eq(t, "ignored", ignored, []string{"QueueName", "Tags"})
}

// eq reports a difference between got and want as a go-cmp diff. SDK
// types' unexported (empty) fields are compared too.
func eq[T any](t *testing.T, what string, got, want T) {
	t.Helper()
	if diff := cmp.Diff(want, got, cmp.Exporter(func(reflect.Type) bool { return true })); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", what, diff)
	}
}

// conditionsTemplate has a queue that exists only in prod, a function whose
// environment chooses with Fn::If (and drops a variable with AWS::NoValue)
// and an output that exists only in prod.
const conditionsTemplate = `{
  "Parameters": {"Env": {"Type": "String", "Default": "dev"}, "Topic": {"Type": "String", "Default": ""}},
  "Conditions": {
    "IsProd": {"Fn::Equals": [{"Ref": "Env"}, "prod"]},
    "HasTopic": {"Fn::Not": [{"Fn::Equals": [{"Ref": "Topic"}, ""]}]},
    "ProdWithTopic": {"Fn::And": [{"Condition": "IsProd"}, {"Condition": "HasTopic"}]}
  },
  "Resources": {
    "Always": {"Type": "AWS::SQS::Queue", "Properties": {"VisibilityTimeout": {"Fn::If": ["IsProd", 60, 30]}}},
    "ProdOnly": {"Type": "AWS::SQS::Queue", "Condition": "IsProd", "Properties": {}},
    "Fn": {"Type": "AWS::Lambda::Function", "Properties": {"Environment": {"Variables": {
      "QUEUE": {"Fn::If": ["IsProd", {"Ref": "ProdOnly"}, {"Ref": "Always"}]},
      "TOPIC": {"Fn::If": ["ProdWithTopic", {"Ref": "Topic"}, {"Ref": "AWS::NoValue"}]}}}}}
  },
  "Outputs": {
    "Queue": {"Value": {"Ref": "Always"}},
    "ProdQueue": {"Condition": "IsProd", "Value": {"Ref": "ProdOnly"}}
  }
}`

// loadConditionsTemplate parses conditionsTemplate and applies edit to it.
func loadConditionsTemplate(t *testing.T, edit func(*template.Template)) *template.Template {
	t.Helper()
	var tmpl template.Template
	if err := json.Unmarshal([]byte(conditionsTemplate), &tmpl); err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		edit(&tmpl)
	}
	return &tmpl
}

func TestProvisionConditions(t *testing.T) {
	need(t, "AWS emulator", emuErr)
	t.Parallel()
	ctx := context.Background()
	cfg, err := awsconfig.Load(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	client := sqs.NewFromConfig(cfg)
	type want struct {
		conditions map[string]bool
		queues     []string // logical ids created
		absent     []string // logical ids whose queue must not exist
		skipped    map[string]string
		env        map[string]string // "<Always>"/"<ProdOnly>" stand for the queue URLs
		visibility string            // of Always
		outputs    []string          // names
	}
	tests := []struct {
		name   string
		params map[string]string
		want   want
	}{
		{
			name: "dev: the prod-only queue is not created and nothing refers to it",
			want: want{
				conditions: map[string]bool{"IsProd": false, "HasTopic": false, "ProdWithTopic": false},
				queues:     []string{"Always"}, absent: []string{"ProdOnly"},
				skipped:    map[string]string{"ProdOnly": "(AWS::SQS::Queue) is not created: its condition IsProd is false"},
				env:        map[string]string{"QUEUE": "<Always>"},
				visibility: "30", outputs: []string{"Queue"},
			},
		},
		{
			name:   "prod with a topic: everything exists",
			params: map[string]string{"Env": "prod", "Topic": "arn:aws:sns:us-east-1:123456789012:t"},
			want: want{
				conditions: map[string]bool{"IsProd": true, "HasTopic": true, "ProdWithTopic": true},
				queues:     []string{"Always", "ProdOnly"},
				skipped:    map[string]string{},
				env:        map[string]string{"QUEUE": "<ProdOnly>", "TOPIC": "arn:aws:sns:us-east-1:123456789012:t"},
				visibility: "60", outputs: []string{"ProdQueue", "Queue"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prefix := uniquePrefix(t, "cond")
			res, err := Provision(ctx, cfg, loadConditionsTemplate(t, nil), Options{StackName: prefix, Params: tt.params, Logf: t.Logf})
			if err != nil {
				t.Fatal(err)
			}
			eq(t, "conditions", res.Conditions, tt.want.conditions)
			eq(t, "queues", sortedKeys(res.Queues), tt.want.queues)
			eq(t, "skipped", res.Skipped, tt.want.skipped)
			for _, id := range tt.want.absent {
				name := prefix + "-" + strings.ToLower(id)
				if _, err := client.GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: aws.String(name)}); err == nil {
					t.Errorf("queue %s exists, want it not created", name)
				}
			}
			env := map[string]string{}
			for k, v := range tt.want.env {
				v = strings.NewReplacer("<Always>", res.Queues["Always"].URL, "<ProdOnly>", res.Queues["ProdOnly"].URL).Replace(v)
				env[k] = v
			}
			eq(t, "env", res.Functions["Fn"].Env, env)
			eq(t, "visibility", queueAttrs(t, client, res.Queues["Always"].URL)["VisibilityTimeout"], tt.want.visibility)
			var names []string
			for _, o := range res.Outputs {
				names = append(names, o.Name)
			}
			eq(t, "outputs", names, tt.want.outputs)
		})
	}
}

// TestProvisionRefusesLoudly checks that what cannot be evaluated stops
// Provision with an error naming where it is, instead of being dropped.
func TestProvisionRefusesLoudly(t *testing.T) {
	need(t, "AWS emulator", emuErr)
	t.Parallel()
	ctx := context.Background()
	cfg, err := awsconfig.Load(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	fnEnv := func(tmpl *template.Template) map[string]any {
		return tmpl.Resources["Fn"].Properties["Environment"].(map[string]any)["Variables"].(map[string]any)
	}
	tests := []struct {
		name    string
		edit    func(*template.Template)
		wantErr string
	}{
		{
			name: "a resource's undeclared condition",
			edit: func(tmpl *template.Template) {
				r := tmpl.Resources["ProdOnly"]
				r.Condition = "IsStaging"
				tmpl.Resources["ProdOnly"] = r
			},
			wantErr: "resource ProdOnly: condition IsStaging is not declared",
		},
		{
			name: "a condition function that does not exist",
			edit: func(tmpl *template.Template) {
				tmpl.Conditions["Odd"] = map[string]any{"Fn::Contains": []any{"a", "b"}}
			},
			wantErr: "condition Odd: Fn::Contains is not a condition function",
		},
		{
			name:    "an unconditional reference to a resource whose condition is false",
			edit:    func(tmpl *template.Template) { fnEnv(tmpl)["PROD"] = map[string]any{"Ref": "ProdOnly"} },
			wantErr: "function Fn environment PROD: Ref ProdOnly: ProdOnly (AWS::SQS::Queue) is not created: its condition IsProd is false",
		},
		{
			name: "an unsupported intrinsic in a property",
			edit: func(tmpl *template.Template) {
				tmpl.Resources["Always"].Properties["DelaySeconds"] = map[string]any{"Fn::FindInMap": []any{"M", "a", "b"}}
			},
			wantErr: "provision Always (AWS::SQS::Queue): DelaySeconds: Fn::FindInMap is not supported",
		},
		{
			name: "an output that cannot be evaluated",
			edit: func(tmpl *template.Template) {
				tmpl.Outputs["Imported"] = template.Output{Value: map[string]any{"Fn::ImportValue": "x"}}
			},
			wantErr: "output Imported: Fn::ImportValue is not supported",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Provision(ctx, cfg, loadConditionsTemplate(t, tt.edit), Options{StackName: uniquePrefix(t, "loud"), Logf: t.Logf})
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("Provision() error = %v, want it to contain %q", err, tt.wantErr)
			}
		})
	}
}
