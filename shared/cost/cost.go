// Package cost estimates what a run costs ZERO's own infrastructure at AWS
// list prices: its counted AWS calls (DynamoDB request units, SQS
// requests, S3 requests) and its Lambda time. It is core: no AWS import;
// call counts are keyed "Service.Operation" as shared/awsconfig.Counter
// names them ("DynamoDB.TransactWriteItems").
//
// The result is an estimate, not a bill: request units are inferred per
// call from ZERO's item sizes (items under 1 KB but the context item),
// free tiers, storage, data transfer and CloudWatch are left out.
package cost

import (
	"fmt"
	"math"
	"sort"
	"time"
)

// Prices are AWS list prices in USD for one region and one Lambda
// architecture.
type Prices struct {
	DynamoWriteUnit     float64 // one on-demand write request unit
	DynamoReadUnit      float64 // one on-demand read request unit
	SQSRequest          float64 // one FIFO queue request (64 KB chunk)
	S3Put               float64 // one PUT, COPY, POST or LIST request (S3 Standard)
	S3Get               float64 // one GET or other read request (S3 Standard)
	LambdaGBSecond      float64 // one GB-second of duration, at the architecture's rate
	LambdaRequest       float64 // one invocation
	SchedulerInvocation float64 // one EventBridge Scheduler invocation (past the free tier)
}

// Arch is a Lambda function's instruction set architecture, as
// template.yaml's Architectures names it.
type Arch string

const (
	ARM64 Arch = "arm64"  // what template.yaml deploys
	X86   Arch = "x86_64" // 20 % dearer per GB-second
)

// DeployedArch is the architecture template.yaml deploys every function on.
const DeployedArch = ARM64

// DefaultRegion is the region whose prices stand in for a region the table
// does not hold.
const DefaultRegion = "us-east-1"

// regionPrices are the published on-demand list prices (checked 2026-11)
// per region, with Lambda at the arm64 rate; lambdaX86GBSecond holds the
// x86 rate. us-east-1 and us-west-2 price every service ZERO uses the same:
//
//	Lambda        arm64 $0.0000133334 / GB-s, x86 $0.0000166667 / GB-s, $0.20 / 1M requests
//	DynamoDB      on-demand $0.625 / 1M write units, $0.125 / 1M read units
//	SQS           FIFO $0.50 / 1M requests
//	S3 Standard   $0.005 / 1,000 PUT/COPY/POST/LIST, $0.0004 / 1,000 GET
//	Scheduler     $1.00 / 1M invocations (14M a month free)
var regionPrices = map[string]Prices{
	"us-east-1": usEast1,
	"us-west-2": usEast1,
}

var usEast1 = Prices{
	DynamoWriteUnit:     0.625e-6,
	DynamoReadUnit:      0.125e-6,
	SQSRequest:          0.50e-6,
	S3Put:               0.005e-3,
	S3Get:               0.0004e-3,
	LambdaGBSecond:      0.0000133334,
	LambdaRequest:       0.20e-6,
	SchedulerInvocation: 1.00e-6,
}

// lambdaX86GBSecond is the x86 GB-second rate by region.
var lambdaX86GBSecond = map[string]float64{
	"us-east-1": 0.0000166667,
	"us-west-2": 0.0000166667,
}

// For returns the list prices of region for functions on arch. A region
// the table does not hold gets DefaultRegion's prices and known=false, so
// a caller can say which prices it used.
func For(region string, arch Arch) (p Prices, known bool) {
	p, known = regionPrices[region]
	if !known {
		region, p = DefaultRegion, regionPrices[DefaultRegion]
	}
	if arch == X86 {
		p.LambdaGBSecond = lambdaX86GBSecond[region]
	}
	return p, known
}

// ListPrices are us-east-1's prices for the deployed architecture (arm64):
// what ZERO's cost lines use unless told a region.
var ListPrices, _ = For(DefaultRegion, DeployedArch)

// units is what one call of an operation is billed as.
type units struct {
	write, read float64 // DynamoDB request units
	sqs         float64 // SQS requests
	put, get    float64 // S3 requests
}

// callUnits are the units of one call of each operation ZERO makes, at
// ZERO's item sizes: a transaction writes the entry, the context (a few
// KB, up to 256 KB: taken as 4 KB) and a record, each item billed twice
// (transactions cost double); a batch read reads the entry, the context
// and two small items, strongly consistent.
var callUnits = map[string]units{
	"DynamoDB.TransactWriteItems": {write: 2 * (1 + 4 + 1)},
	"DynamoDB.PutItem":            {write: 1},
	"DynamoDB.UpdateItem":         {write: 1},
	"DynamoDB.DeleteItem":         {write: 1},
	"DynamoDB.BatchWriteItem":     {write: 4},
	"DynamoDB.GetItem":            {read: 1},
	"DynamoDB.BatchGetItem":       {read: 1 + 4 + 1 + 1},
	"DynamoDB.Query":              {read: 1},
	"SQS.SendMessage":             {sqs: 1},
	"SQS.SendMessageBatch":        {sqs: 1},
	"SQS.ReceiveMessage":          {sqs: 1},
	"SQS.DeleteMessage":           {sqs: 1},
	"SQS.DeleteMessageBatch":      {sqs: 1},
	"SQS.ChangeMessageVisibility": {sqs: 1},
	"S3.PutObject":                {put: 1},
	"S3.ListObjectsV2":            {put: 1},
	"S3.GetObject":                {get: 1},
	"S3.HeadObject":               {get: 1},
}

// Calls prices a count of AWS calls by operation. Operations it does not
// know (SSM, STS: free at ZERO's volume) cost nothing and are returned,
// sorted, so a caller can say so.
func (p Prices) Calls(calls map[string]int) (usd float64, unpriced []string) {
	for op, n := range calls {
		u, ok := callUnits[op]
		if !ok {
			unpriced = append(unpriced, op)
			continue
		}
		per := u.write*p.DynamoWriteUnit + u.read*p.DynamoReadUnit + u.sqs*p.SQSRequest + u.put*p.S3Put + u.get*p.S3Get
		usd += float64(n) * per
	}
	sort.Strings(unpriced)
	return usd, unpriced
}

// Lambda prices invocations of a function of memoryMB running d in all.
func (p Prices) Lambda(d time.Duration, memoryMB, invocations int) float64 {
	gbSeconds := float64(memoryMB) / 1024 * d.Seconds()
	return gbSeconds*p.LambdaGBSecond + float64(invocations)*p.LambdaRequest
}

// RunnerMemoryMB is the runner function's memory (template.yaml;
// TestTemplateDashboardAndAlarms in functions/runner checks they agree).
const RunnerMemoryMB = 256

// Scheduler prices n EventBridge Scheduler invocations (cron jobs firing).
func (p Prices) Scheduler(n int) float64 { return float64(n) * p.SchedulerInvocation }

// TurnCalls is the AWS call profile of one plain turn (docs/performance.md,
// Performance: 5 calls): the message's SendMessage, the runner's
// BatchGetItem, the transcript part's PutObject, the commit's
// TransactWriteItems and the record's UpdateItem.
var TurnCalls = map[string]int{
	"SQS.SendMessage":             1,
	"DynamoDB.BatchGetItem":       1,
	"S3.PutObject":                1,
	"DynamoDB.TransactWriteItems": 1,
	"DynamoDB.UpdateItem":         1,
}

// AnnounceCalls is the AWS call profile of one outbox announce: the item's
// PutItem and its delivery message's SendMessage, then the delivery's
// GetItem and settling UpdateItem.
var AnnounceCalls = map[string]int{
	"DynamoDB.PutItem":    1,
	"SQS.SendMessage":     1,
	"DynamoDB.GetItem":    1,
	"DynamoDB.UpdateItem": 1,
}

// Add returns the sum of call counts.
func Add(counts ...map[string]int) map[string]int {
	out := map[string]int{}
	for _, c := range counts {
		for op, n := range c {
			out[op] += n
		}
	}
	return out
}

// Tokens prices a model's tokens at per-million-token prices.
func Tokens(input, output int64, inputPerM, outputPerM float64) float64 {
	return float64(input)/1e6*inputPerM + float64(output)/1e6*outputPerM
}

// Turn prices one runner invocation that made calls and ran for d at
// memoryMB: the calls plus the invocation's Lambda time and request.
// Unpriced calls (SSM, STS) count as free.
func (p Prices) Turn(calls map[string]int, d time.Duration, memoryMB int) float64 {
	usd, _ := p.Calls(calls)
	return usd + p.Lambda(d, memoryMB, 1)
}

// FormatUSD writes an amount in dollars, in decimals (never an exponent),
// with at least two significant digits: $0.0030, $0.000058, $1.2500; $0
// for nothing.
func FormatUSD(v float64) string {
	if v <= 0 {
		return "$0"
	}
	decimals := max(4, int(math.Ceil(-math.Log10(v)))+1)
	return fmt.Sprintf("$%.*f", decimals, v)
}

// WebhookMemoryMB is the webhook functions' memory (template.yaml's
// Globals).
const WebhookMemoryMB = 128

// Estimated durations of a plain turn's two invocations, without the
// model's time: what docs/performance.md measured on the local stack,
// rounded up.
const (
	EstimatedRunnerTime  = 100 * time.Millisecond
	EstimatedWebhookTime = 50 * time.Millisecond
)

// Per1000 prices 1,000 turns that each made calls and ran the runner for
// runner and the webhook for webhook (one invocation each).
func (p Prices) Per1000(calls map[string]int, runner, webhook time.Duration) float64 {
	usd, _ := p.Calls(calls)
	usd += p.Lambda(runner, RunnerMemoryMB, 1) + p.Lambda(webhook, WebhookMemoryMB, 1)
	return 1000 * usd
}

// EstimatePer1000PlainTurns is the README's estimate of what 1,000 plain
// turns cost ZERO's own infrastructure (the model not included): the
// per-turn call profile and the estimated durations at ListPrices.
func EstimatePer1000PlainTurns() float64 {
	return ListPrices.Per1000(TurnCalls, EstimatedRunnerTime, EstimatedWebhookTime)
}
