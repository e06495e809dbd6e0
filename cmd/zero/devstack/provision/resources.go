package provision

import (
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/zero-gateway/zero/cmd/zero/devstack/iampolicy"
	"github.com/zero-gateway/zero/cmd/zero/devstack/template"
	"github.com/zero-gateway/zero/shared/emulator"
)

// Resource types the local stack creates, and the ones it reads to run code.
const (
	typeQueue    = "AWS::SQS::Queue"
	typeTable    = "AWS::DynamoDB::Table"
	typeBucket   = "AWS::S3::Bucket"
	typeSSMParam = "AWS::SSM::Parameter"
	typeFunction = "AWS::Lambda::Function"
	typeESM      = "AWS::Lambda::EventSourceMapping"
	typeHTTPAPI  = "AWS::ApiGatewayV2::Api"

	// Read only to say why they are left out.
	typeBucketPolicy = "AWS::S3::BucketPolicy"
	typeLogGroup     = "AWS::Logs::LogGroup"
)

// Resources describes what Provision created and what it read from the
// template to run the functions. Maps are keyed by logical id.
type Resources struct {
	StackName string
	Region    string
	AccountID string

	Queues        map[string]Queue
	Tables        map[string]Table
	Buckets       map[string]Bucket
	SSMParameters map[string]SSMParameter
	Functions     map[string]Function
	// ScheduleGroups are the EventBridge Scheduler schedule groups, whose
	// schedules the local stack fires itself (moto never does).
	ScheduleGroups map[string]ScheduleGroup

	// ConfigParameter is the name of the SSM parameter the functions read
	// zero.json from (their ZERO_CONFIG_PARAMETER), "" when none does.
	ConfigParameter string

	// Conditions are the template's conditions, evaluated with the
	// parameters.
	Conditions map[string]bool
	// Skipped are the template's resources that were not created, by
	// logical id, with the reason: a false Condition or a type that is not
	// emulated ("(AWS::IAM::Role) is not emulated locally").
	Skipped map[string]string
	// Outputs are the template's outputs whose Condition holds, sorted by
	// name; one that refers to a resource that is not there locally has
	// Unavailable set instead of a Value.
	Outputs []template.OutputValue

	// Routes are the HTTP API routes, in template order of paths and methods.
	Routes []Route
	// EventSources are the SQS event source mappings.
	EventSources []EventSource
}

// Queue is a provisioned SQS queue.
type Queue struct {
	LogicalID string
	Name      string
	URL       string
	ARN       string
	FIFO      bool
}

// Table is a provisioned DynamoDB table.
type Table struct {
	LogicalID string
	Name      string
	ARN       string
}

// Bucket is a provisioned S3 bucket.
type Bucket struct {
	LogicalID string
	Name      string
	ARN       string
}

// SSMParameter is a provisioned SSM Parameter Store parameter.
type SSMParameter struct {
	LogicalID string
	Name      string
	// Type is String or StringList.
	Type string
}

// Function is a Lambda function of the template, to be run under the RIE.
type Function struct {
	LogicalID string
	// Name is the local function name (AWS_LAMBDA_FUNCTION_NAME).
	Name string
	ARN  string
	// SourceDir is the Go package of the function, relative to the repo
	// root: ./functions/<kebab-case logical id>.
	SourceDir string
	// Env is Environment.Variables with intrinsics resolved. It may hold
	// secrets: never log values.
	Env        map[string]string
	Timeout    time.Duration
	MemorySize int

	// Role is the logical id of the function's execution role, and Policy
	// its inline policies with local names and ARNs: what the function may
	// do (see iampolicy.Check).
	Role   string
	Policy iampolicy.Policy
	// Credentials are the access key of the function's own IAM user on the
	// emulator (Options.Users), nil without one. Never log them.
	Credentials *aws.Credentials
}

// Route is one HTTP API route.
type Route struct {
	// Method is upper case, or "ANY".
	Method string
	// Path is the route path, e.g. /webhooks/telegram or /items/{id} or
	// /{proxy+}; "$default" is the catch-all route.
	Path string
	// Function is the logical id of the integrated function.
	Function string
}

// RouteKey is the API Gateway route key, e.g. "POST /webhooks/telegram".
func (r Route) RouteKey() string {
	if r.Path == "$default" {
		return "$default"
	}
	return r.Method + " " + r.Path
}

// EventSource is an SQS event source mapping.
type EventSource struct {
	LogicalID string
	// Function is the logical id of the target function.
	Function string
	// Queue is the logical id of the source queue.
	Queue     string
	QueueURL  string
	QueueARN  string
	BatchSize int
	// ReportBatchItemFailures is set when FunctionResponseTypes has it.
	ReportBatchItemFailures bool
	Enabled                 bool
	// MaximumConcurrency is ScalingConfig.MaximumConcurrency: how many
	// invocations the mapping runs at once (0: not set). The local stack
	// runs at most that many pollers.
	MaximumConcurrency int
}

// Options configures Provision.
type Options struct {
	// StackName prefixes every physical name: <StackName>-<lower(logical id)>.
	StackName string
	// Params are template parameter values; defaults fill the rest.
	Params map[string]string
	Logf   func(format string, args ...any)
	// Users, when non-nil, is the emulator's IAM (signing with its admin
	// key): each function gets a user of its own with its role's actions
	// and an access key (Function.Credentials). Nil on an emulator that
	// does not enforce IAM.
	Users *emulator.IAM
}
