package devstack

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"time"
	"unicode"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/aws/aws-sdk-go-v2/service/ssm"
	"github.com/aws/aws-sdk-go-v2/service/sts"
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

	// ConfigParameter is the name of the SSM parameter the functions read
	// zero.json from (their ZERO_CONFIG_PARAMETER), "" when none does.
	ConfigParameter string

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

// ProvisionOptions configures Provision.
type ProvisionOptions struct {
	// StackName prefixes every physical name: <StackName>-<lower(logical id)>.
	StackName string
	// Params are template parameter values; defaults fill the rest.
	Params map[string]string
	Logf   func(format string, args ...any)
}

var stackNamePattern = regexp.MustCompile(`^[a-z][a-z0-9-]{0,39}$`)

// Provision creates the template's queues, tables, buckets and SSM
// parameters on the
// endpoint of cfg (which must point at an emulator) and reads its functions,
// HTTP API routes and SQS event source mappings. It is idempotent: existing
// resources are reused and their settings re-applied. Resource types that
// are not emulated (IAM, stages, permissions, ...) are skipped with a log line.
func Provision(ctx context.Context, cfg aws.Config, t *Template, opts ProvisionOptions) (*Resources, error) {
	logf := opts.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	if !stackNamePattern.MatchString(opts.StackName) {
		return nil, fmt.Errorf("stack name %q: want lower-case letters, digits and '-', starting with a letter, at most 40 characters", opts.StackName)
	}
	params, err := t.parameterValues(opts.Params)
	if err != nil {
		return nil, err
	}
	p := &provisioner{
		sqs:  sqs.NewFromConfig(cfg),
		ddb:  dynamodb.NewFromConfig(cfg),
		ssm:  ssm.NewFromConfig(cfg),
		s3:   s3.NewFromConfig(cfg, func(o *s3.Options) { o.UsePathStyle = true }),
		logf: logf,
		res: &Resources{
			StackName:     opts.StackName,
			Region:        cfg.Region,
			Queues:        map[string]Queue{},
			Tables:        map[string]Table{},
			Buckets:       map[string]Bucket{},
			SSMParameters: map[string]SSMParameter{},
			Functions:     map[string]Function{},
		},
		tmpl: t,
	}
	p.res.AccountID = p.accountID(ctx, cfg)
	p.r = newResolver(params, cfg.Region, p.res.AccountID, opts.StackName)

	order, err := provisionOrder(t)
	if err != nil {
		return nil, err
	}
	for _, id := range order {
		res := t.Resources[id]
		var err error
		switch res.Type {
		case typeQueue:
			err = p.queue(ctx, id, res)
		case typeTable:
			err = p.table(ctx, id, res)
		case typeBucket:
			err = p.bucket(ctx, id, res)
		case typeSSMParam:
			err = p.ssmParameter(ctx, id, res)
		}
		if err != nil {
			return nil, fmt.Errorf("provision %s (%s): %w", id, res.Type, err)
		}
	}
	if err := p.functions(); err != nil {
		return nil, err
	}
	if err := p.configParameter(); err != nil {
		return nil, err
	}
	if err := p.eventSources(); err != nil {
		return nil, err
	}
	if err := p.routes(); err != nil {
		return nil, err
	}
	ids := make([]string, 0, len(t.Resources))
	for id := range t.Resources {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		switch typ := t.Resources[id].Type; typ {
		case typeQueue, typeTable, typeBucket, typeSSMParam, typeFunction, typeESM, typeHTTPAPI:
		default:
			logf("skip %s (%s): not emulated locally", id, typ)
		}
	}
	return p.res, nil
}

type provisioner struct {
	sqs  *sqs.Client
	ddb  *dynamodb.Client
	s3   *s3.Client
	ssm  *ssm.Client
	logf func(string, ...any)
	res  *Resources
	tmpl *Template
	r    *resolver
}

// accountID asks STS who the caller is; emulators answer with their fixed
// account (moto 123456789012, LocalStack 000000000000).
func (p *provisioner) accountID(ctx context.Context, cfg aws.Config) string {
	out, err := sts.NewFromConfig(cfg).GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
	if err != nil || aws.ToString(out.Account) == "" {
		p.logf("STS GetCallerIdentity failed (%v); using account 000000000000", err)
		return "000000000000"
	}
	return aws.ToString(out.Account)
}

// provisionOrder sorts the resources the stack creates so that each comes
// after the ones its properties refer to (a queue after its dead-letter queue).
func provisionOrder(t *Template) ([]string, error) {
	local := map[string]bool{}
	for id, r := range t.Resources {
		switch r.Type {
		case typeQueue, typeTable, typeBucket, typeSSMParam:
			local[id] = true
		}
	}
	ids := make([]string, 0, len(local))
	for id := range local {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	const (
		unvisited = iota
		visiting
		done
	)
	state := map[string]int{}
	var order []string
	var visit func(id string, path []string) error
	visit = func(id string, path []string) error {
		switch state[id] {
		case done:
			return nil
		case visiting:
			return fmt.Errorf("dependency cycle: %s -> %s", strings.Join(path, " -> "), id)
		}
		state[id] = visiting
		res := t.Resources[id]
		deps := references(res.Properties, t.Parameters)
		deps = append(deps, dependsOn(res.DependsOn)...)
		for _, d := range deps {
			if local[d] {
				if err := visit(d, append(path, id)); err != nil {
					return err
				}
			}
		}
		state[id] = done
		order = append(order, id)
		return nil
	}
	for _, id := range ids {
		if err := visit(id, nil); err != nil {
			return nil, err
		}
	}
	return order, nil
}

func dependsOn(v any) []string {
	switch x := v.(type) {
	case string:
		return []string{x}
	case []any:
		var out []string
		for _, e := range x {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// physicalName derives a resource name from the stack name and logical id.
func physicalName(stack, logicalID string) string {
	return stack + "-" + strings.ToLower(logicalID)
}

// resolveProps resolves all properties of a resource.
func (p *provisioner) resolveProps(res Resource) (map[string]any, error) {
	v, err := p.r.resolve(res.Properties)
	if err != nil {
		return nil, err
	}
	m, _ := v.(map[string]any)
	if m == nil {
		m = map[string]any{}
	}
	return m, nil
}

// sqsAttributes maps AWS::SQS::Queue properties to queue attribute names.
var sqsAttributes = map[string]bool{
	"ContentBasedDeduplication":     true,
	"DeduplicationScope":            true,
	"DelaySeconds":                  true,
	"FifoQueue":                     true,
	"FifoThroughputLimit":           true,
	"KmsDataKeyReusePeriodSeconds":  true,
	"KmsMasterKeyId":                true,
	"MaximumMessageSize":            true,
	"MessageRetentionPeriod":        true,
	"ReceiveMessageWaitTimeSeconds": true,
	"RedriveAllowPolicy":            true,
	"RedrivePolicy":                 true,
	"SqsManagedSseEnabled":          true,
	"VisibilityTimeout":             true,
}

// queueAttributes converts resolved queue properties to SQS attributes.
// Properties that are not attributes (QueueName, Tags) are returned apart.
func queueAttributes(props map[string]any) (attrs map[string]string, ignored []string, err error) {
	attrs = map[string]string{}
	for k, v := range props {
		if !sqsAttributes[k] {
			ignored = append(ignored, k)
			continue
		}
		switch x := v.(type) {
		case map[string]any:
			b, err := json.Marshal(x)
			if err != nil {
				return nil, nil, fmt.Errorf("%s: %w", k, err)
			}
			attrs[k] = string(b)
		default:
			attrs[k] = scalarString(x)
		}
	}
	sort.Strings(ignored)
	return attrs, ignored, nil
}

func (p *provisioner) queue(ctx context.Context, id string, res Resource) error {
	props, err := p.resolveProps(res)
	if err != nil {
		return err
	}
	attrs, ignored, err := queueAttributes(props)
	if err != nil {
		return err
	}
	for _, k := range ignored {
		if k != "QueueName" {
			p.logf("%s: property %s not applied locally", id, k)
		}
	}
	fifo := attrs["FifoQueue"] == "true"
	name := physicalName(p.res.StackName, id)
	if fifo {
		name += ".fifo"
	}
	if len(name) > 80 {
		return fmt.Errorf("queue name %s is longer than 80 characters; use a shorter stack name", name)
	}
	var url string
	if got, err := p.sqs.GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: aws.String(name)}); err == nil {
		url = aws.ToString(got.QueueUrl)
		settable := map[string]string{}
		for k, v := range attrs {
			if k != "FifoQueue" { // cannot change after creation
				settable[k] = v
			}
		}
		if len(settable) > 0 {
			if _, err := p.sqs.SetQueueAttributes(ctx, &sqs.SetQueueAttributesInput{QueueUrl: got.QueueUrl, Attributes: settable}); err != nil {
				return fmt.Errorf("update queue %s: %w", name, err)
			}
		}
		p.logf("queue %s exists: %s", id, url)
	} else {
		out, err := p.sqs.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String(name), Attributes: attrs})
		if err != nil {
			return fmt.Errorf("create queue %s: %w", name, err)
		}
		url = aws.ToString(out.QueueUrl)
		p.logf("queue %s created: %s", id, url)
	}
	got, err := p.sqs.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{
		QueueUrl:       aws.String(url),
		AttributeNames: []sqstypes.QueueAttributeName{sqstypes.QueueAttributeNameQueueArn},
	})
	if err != nil {
		return fmt.Errorf("queue %s ARN: %w", name, err)
	}
	arn := got.Attributes[string(sqstypes.QueueAttributeNameQueueArn)]
	p.res.Queues[id] = Queue{LogicalID: id, Name: name, URL: url, ARN: arn, FIFO: fifo}
	p.r.define(id, url, map[string]string{"Arn": arn, "QueueName": name, "QueueUrl": url})
	return nil
}

// createTableInput maps resolved AWS::DynamoDB::Table properties to a
// CreateTable request. Property names mostly match the API's shapes, so the
// nested ones go through JSON; SSE and streams differ and are mapped by hand.
func createTableInput(name string, props map[string]any) (*dynamodb.CreateTableInput, []string, error) {
	in := &dynamodb.CreateTableInput{TableName: aws.String(name)}
	var ignored []string
	for k, v := range props {
		var err error
		switch k {
		case "AttributeDefinitions":
			err = jsonInto(v, &in.AttributeDefinitions)
		case "KeySchema":
			err = jsonInto(v, &in.KeySchema)
		case "BillingMode":
			in.BillingMode = ddbtypes.BillingMode(scalarString(v))
		case "ProvisionedThroughput":
			err = jsonInto(v, &in.ProvisionedThroughput)
		case "GlobalSecondaryIndexes":
			err = jsonInto(v, &in.GlobalSecondaryIndexes)
		case "LocalSecondaryIndexes":
			err = jsonInto(v, &in.LocalSecondaryIndexes)
		case "TableClass":
			in.TableClass = ddbtypes.TableClass(scalarString(v))
		case "SSESpecification":
			m, _ := v.(map[string]any)
			sse := &ddbtypes.SSESpecification{Enabled: aws.Bool(scalarString(m["SSEEnabled"]) == "true")}
			if s := scalarString(m["SSEType"]); s != "" {
				sse.SSEType = ddbtypes.SSEType(s)
			}
			if s := scalarString(m["KMSMasterKeyId"]); s != "" {
				sse.KMSMasterKeyId = aws.String(s)
			}
			in.SSESpecification = sse
		case "StreamSpecification":
			m, _ := v.(map[string]any)
			in.StreamSpecification = &ddbtypes.StreamSpecification{
				StreamEnabled:  aws.Bool(true),
				StreamViewType: ddbtypes.StreamViewType(scalarString(m["StreamViewType"])),
			}
		case "TableName", "TimeToLiveSpecification", "PointInTimeRecoverySpecification":
			// Name is derived locally; the other two are applied after creation.
		default:
			ignored = append(ignored, k)
		}
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", k, err)
		}
	}
	sort.Strings(ignored)
	return in, ignored, nil
}

func jsonInto(v any, dst any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, dst)
}

func (p *provisioner) table(ctx context.Context, id string, res Resource) error {
	props, err := p.resolveProps(res)
	if err != nil {
		return err
	}
	name := physicalName(p.res.StackName, id)
	in, ignored, err := createTableInput(name, props)
	if err != nil {
		return err
	}
	for _, k := range ignored {
		p.logf("%s: property %s not applied locally", id, k)
	}
	desc, err := p.ddb.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
	if err == nil {
		p.logf("table %s exists: %s", id, name)
	} else {
		if _, err := p.ddb.CreateTable(ctx, in); err != nil {
			var inUse *ddbtypes.ResourceInUseException
			if !errors.As(err, &inUse) {
				return fmt.Errorf("create table %s: %w", name, err)
			}
		}
		waiter := dynamodb.NewTableExistsWaiter(p.ddb, func(o *dynamodb.TableExistsWaiterOptions) {
			o.MinDelay = 200 * time.Millisecond
			o.MaxDelay = 2 * time.Second
		})
		desc, err = waiter.WaitForOutput(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)}, 2*time.Minute)
		if err != nil {
			return fmt.Errorf("wait for table %s: %w", name, err)
		}
		p.logf("table %s created: %s", id, name)
	}
	if ttl, ok := props["TimeToLiveSpecification"].(map[string]any); ok && scalarString(ttl["Enabled"]) == "true" {
		if err := p.enableTTL(ctx, name, scalarString(ttl["AttributeName"])); err != nil {
			return err
		}
	}
	if pitr, ok := props["PointInTimeRecoverySpecification"].(map[string]any); ok && scalarString(pitr["PointInTimeRecoveryEnabled"]) == "true" {
		_, err := p.ddb.UpdateContinuousBackups(ctx, &dynamodb.UpdateContinuousBackupsInput{
			TableName:                        aws.String(name),
			PointInTimeRecoverySpecification: &ddbtypes.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: aws.Bool(true)},
		})
		if err != nil {
			// Backups do not change behaviour; an emulator without them is fine.
			p.logf("%s: point-in-time recovery not applied locally: %v", id, err)
		}
	}
	arn := aws.ToString(desc.Table.TableArn)
	attrs := map[string]string{"Arn": arn}
	if s := aws.ToString(desc.Table.LatestStreamArn); s != "" {
		attrs["StreamArn"] = s
	}
	p.res.Tables[id] = Table{LogicalID: id, Name: name, ARN: arn}
	p.r.define(id, name, attrs)
	return nil
}

func (p *provisioner) enableTTL(ctx context.Context, table, attr string) error {
	cur, err := p.ddb.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(table)})
	if err == nil && cur.TimeToLiveDescription != nil {
		d := cur.TimeToLiveDescription
		st := d.TimeToLiveStatus
		if aws.ToString(d.AttributeName) == attr && (st == ddbtypes.TimeToLiveStatusEnabled || st == ddbtypes.TimeToLiveStatusEnabling) {
			return nil
		}
	}
	_, err = p.ddb.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{
		TableName:               aws.String(table),
		TimeToLiveSpecification: &ddbtypes.TimeToLiveSpecification{AttributeName: aws.String(attr), Enabled: aws.Bool(true)},
	})
	if err != nil {
		return fmt.Errorf("enable TTL on %s.%s: %w", table, attr, err)
	}
	return nil
}

func (p *provisioner) bucket(ctx context.Context, id string, res Resource) error {
	props, err := p.resolveProps(res)
	if err != nil {
		return err
	}
	name := physicalName(p.res.StackName, id)
	if len(name) > 63 {
		return fmt.Errorf("bucket name %s is longer than 63 characters; use a shorter stack name", name)
	}
	in := &s3.CreateBucketInput{Bucket: aws.String(name)}
	if p.res.Region != "" && p.res.Region != "us-east-1" {
		in.CreateBucketConfiguration = &s3types.CreateBucketConfiguration{LocationConstraint: s3types.BucketLocationConstraint(p.res.Region)}
	}
	if _, err := p.s3.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: aws.String(name)}); err == nil {
		p.logf("bucket %s exists: %s", id, name)
	} else if _, err := p.s3.CreateBucket(ctx, in); err != nil {
		var owned *s3types.BucketAlreadyOwnedByYou
		if !errors.As(err, &owned) {
			return fmt.Errorf("create bucket %s: %w", name, err)
		}
	} else {
		p.logf("bucket %s created: %s", id, name)
	}
	for _, k := range sortedKeys(props) {
		v := props[k]
		m, _ := v.(map[string]any)
		var err error
		switch k {
		case "BucketName":
		case "BucketEncryption":
			err = p.bucketEncryption(ctx, name, m)
		case "PublicAccessBlockConfiguration":
			var cfg s3types.PublicAccessBlockConfiguration
			if err = jsonInto(m, &cfg); err == nil {
				_, err = p.s3.PutPublicAccessBlock(ctx, &s3.PutPublicAccessBlockInput{Bucket: aws.String(name), PublicAccessBlockConfiguration: &cfg})
			}
		case "OwnershipControls":
			var cfg s3types.OwnershipControls
			if err = jsonInto(m, &cfg); err == nil {
				_, err = p.s3.PutBucketOwnershipControls(ctx, &s3.PutBucketOwnershipControlsInput{Bucket: aws.String(name), OwnershipControls: &cfg})
			}
		case "VersioningConfiguration":
			_, err = p.s3.PutBucketVersioning(ctx, &s3.PutBucketVersioningInput{
				Bucket:                  aws.String(name),
				VersioningConfiguration: &s3types.VersioningConfiguration{Status: s3types.BucketVersioningStatus(scalarString(m["Status"]))},
			})
		default:
			p.logf("%s: property %s not applied locally", id, k)
		}
		if err != nil {
			return fmt.Errorf("bucket %s %s: %w", name, k, err)
		}
	}
	arn := "arn:aws:s3:::" + name
	p.res.Buckets[id] = Bucket{LogicalID: id, Name: name, ARN: arn}
	p.r.define(id, name, map[string]string{
		"Arn":                arn,
		"DomainName":         name + ".s3.amazonaws.com",
		"RegionalDomainName": name + ".s3." + p.res.Region + ".amazonaws.com",
	})
	return nil
}

func (p *provisioner) bucketEncryption(ctx context.Context, bucket string, m map[string]any) error {
	list, _ := m["ServerSideEncryptionConfiguration"].([]any)
	var rules []s3types.ServerSideEncryptionRule
	for _, e := range list {
		rm, _ := e.(map[string]any)
		rule := s3types.ServerSideEncryptionRule{}
		if def, ok := rm["ServerSideEncryptionByDefault"].(map[string]any); ok {
			d := &s3types.ServerSideEncryptionByDefault{SSEAlgorithm: s3types.ServerSideEncryption(scalarString(def["SSEAlgorithm"]))}
			if k := scalarString(def["KMSMasterKeyID"]); k != "" {
				d.KMSMasterKeyID = aws.String(k)
			}
			rule.ApplyServerSideEncryptionByDefault = d
		}
		if b, ok := rm["BucketKeyEnabled"]; ok {
			rule.BucketKeyEnabled = aws.Bool(scalarString(b) == "true")
		}
		rules = append(rules, rule)
	}
	_, err := p.s3.PutBucketEncryption(ctx, &s3.PutBucketEncryptionInput{
		Bucket:                            aws.String(bucket),
		ServerSideEncryptionConfiguration: &s3types.ServerSideEncryptionConfiguration{Rules: rules},
	})
	return err
}

// functions reads the Lambda functions and resolves their environments.
// Names and ARNs are defined first so environments may refer to functions.
func (p *provisioner) functions() error {
	ids := p.tmpl.resourceIDs(typeFunction)
	for _, id := range ids {
		name := p.res.StackName + "-" + id
		arn := fmt.Sprintf("arn:aws:lambda:%s:%s:function:%s", p.res.Region, p.res.AccountID, name)
		p.r.define(id, name, map[string]string{"Arn": arn})
	}
	for _, id := range ids {
		props := p.tmpl.Resources[id].Properties
		fn := Function{
			LogicalID:  id,
			Name:       p.r.refs[id],
			ARN:        p.r.attrs[id]["Arn"],
			SourceDir:  "./functions/" + kebabCase(id),
			Env:        map[string]string{},
			Timeout:    3 * time.Second,
			MemorySize: 128,
		}
		if v, ok := props["Timeout"]; ok {
			s, err := p.r.resolveString(v)
			if err != nil {
				return fmt.Errorf("function %s Timeout: %w", id, err)
			}
			var secs int
			if _, err := fmt.Sscan(s, &secs); err != nil || secs <= 0 {
				return fmt.Errorf("function %s Timeout %q: want positive seconds", id, s)
			}
			fn.Timeout = time.Duration(secs) * time.Second
		}
		if v, ok := props["MemorySize"]; ok {
			s, err := p.r.resolveString(v)
			if err == nil {
				_, _ = fmt.Sscan(s, &fn.MemorySize)
			}
		}
		if env, ok := props["Environment"].(map[string]any); ok {
			vars, _ := env["Variables"].(map[string]any)
			for _, k := range sortedKeys(vars) {
				s, err := p.r.resolveString(vars[k])
				if err != nil {
					return fmt.Errorf("function %s environment %s: %w", id, k, err)
				}
				fn.Env[k] = s
			}
		}
		p.res.Functions[id] = fn
	}
	return nil
}

// functionByRef maps a resolved FunctionName (name or ARN) to a logical id.
func (p *provisioner) functionByRef(ref string) (string, bool) {
	for id, fn := range p.res.Functions {
		if ref == fn.Name || ref == fn.ARN || ref == id {
			return id, true
		}
	}
	return "", false
}

func (p *provisioner) eventSources() error {
	for _, id := range p.tmpl.resourceIDs(typeESM) {
		props, err := p.resolveProps(p.tmpl.Resources[id])
		if err != nil {
			return fmt.Errorf("event source mapping %s: %w", id, err)
		}
		srcARN := scalarString(props["EventSourceArn"])
		var queue *Queue
		for _, q := range p.res.Queues {
			if q.ARN == srcARN {
				queue = &q
			}
		}
		if queue == nil {
			p.logf("skip %s (%s): source %s is not a local SQS queue", id, typeESM, srcARN)
			continue
		}
		fnID, ok := p.functionByRef(scalarString(props["FunctionName"]))
		if !ok {
			return fmt.Errorf("event source mapping %s: function %q is not in the template", id, scalarString(props["FunctionName"]))
		}
		es := EventSource{
			LogicalID: id, Function: fnID, Queue: queue.LogicalID,
			QueueURL: queue.URL, QueueARN: queue.ARN,
			BatchSize: 10, Enabled: true,
		}
		if v, ok := props["BatchSize"]; ok {
			if _, err := fmt.Sscan(scalarString(v), &es.BatchSize); err != nil || es.BatchSize < 1 {
				return fmt.Errorf("event source mapping %s: BatchSize %v", id, v)
			}
		}
		if v, ok := props["Enabled"]; ok {
			es.Enabled = scalarString(v) != "false"
		}
		if rts, ok := props["FunctionResponseTypes"].([]any); ok {
			for _, t := range rts {
				if scalarString(t) == "ReportBatchItemFailures" {
					es.ReportBatchItemFailures = true
				}
			}
		}
		if sc, ok := props["ScalingConfig"].(map[string]any); ok {
			if v, ok := sc["MaximumConcurrency"]; ok {
				if _, err := fmt.Sscan(scalarString(v), &es.MaximumConcurrency); err != nil || es.MaximumConcurrency < 2 {
					return fmt.Errorf("event source mapping %s: ScalingConfig.MaximumConcurrency %v (at least 2)", id, v)
				}
			}
		}
		for _, k := range sortedKeys(props) {
			switch k {
			case "EventSourceArn", "FunctionName", "BatchSize", "Enabled", "FunctionResponseTypes", "ScalingConfig":
			default:
				p.logf("%s: property %s not applied locally", id, k)
			}
		}
		p.res.EventSources = append(p.res.EventSources, es)
	}
	return nil
}

// openAPIMethods maps OpenAPI operation keys to route methods.
var openAPIMethods = map[string]string{
	"get": "GET", "put": "PUT", "post": "POST", "delete": "DELETE",
	"patch": "PATCH", "head": "HEAD", "options": "OPTIONS",
	"x-amazon-apigateway-any-method": "ANY",
}

// routes reads HTTP API routes from the OpenAPI Body that the SAM translator
// writes into AWS::ApiGatewayV2::Api; each operation's integration URI names
// the function (…/functions/<function ARN>/invocations).
func (p *provisioner) routes() error {
	for _, id := range p.tmpl.resourceIDs(typeHTTPAPI) {
		body, ok := p.tmpl.Resources[id].Properties["Body"].(map[string]any)
		if !ok {
			p.logf("skip %s (%s): no OpenAPI Body to read routes from", id, typeHTTPAPI)
			continue
		}
		paths, _ := body["paths"].(map[string]any)
		for _, path := range sortedKeys(paths) {
			ops, _ := paths[path].(map[string]any)
			for _, op := range sortedKeys(ops) {
				method, ok := openAPIMethods[op]
				if !ok {
					continue
				}
				opm, _ := ops[op].(map[string]any)
				integ, _ := opm["x-amazon-apigateway-integration"].(map[string]any)
				if integ == nil {
					continue
				}
				uri, err := p.r.resolveString(integ["uri"])
				if err != nil {
					return fmt.Errorf("%s route %s %s: %w", id, method, path, err)
				}
				fnID, ok := functionFromIntegrationURI(uri, p.functionByRef)
				if !ok {
					p.logf("skip route %s %s: integration %s is not a local function", method, path, uri)
					continue
				}
				if v := scalarString(integ["payloadFormatVersion"]); v != "" && v != "2.0" {
					return fmt.Errorf("%s route %s %s: payload format %s is not supported locally (only 2.0)", id, method, path, v)
				}
				p.res.Routes = append(p.res.Routes, Route{Method: method, Path: path, Function: fnID})
			}
		}
	}
	return nil
}

func functionFromIntegrationURI(uri string, lookup func(string) (string, bool)) (string, bool) {
	const start, end = "/functions/", "/invocations"
	i := strings.Index(uri, start)
	j := strings.LastIndex(uri, end)
	if i < 0 || j < i+len(start) {
		return lookup(uri)
	}
	return lookup(uri[i+len(start) : j])
}

// kebabCase turns a logical id into a directory name: TelegramWebhook ->
// telegram-webhook, HTTPProxy -> http-proxy.
func kebabCase(s string) string {
	rs := []rune(s)
	var b strings.Builder
	for i, r := range rs {
		if unicode.IsUpper(r) {
			prevLower := i > 0 && (unicode.IsLower(rs[i-1]) || unicode.IsDigit(rs[i-1]))
			nextLower := i > 0 && i+1 < len(rs) && unicode.IsUpper(rs[i-1]) && unicode.IsLower(rs[i+1])
			if prevLower || nextLower {
				b.WriteByte('-')
			}
			b.WriteRune(unicode.ToLower(r))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
