// Package provision creates a translated template's queues, tables,
// buckets and SSM parameters on an AWS emulator (moto or LocalStack) with
// the AWS APIs, and reads what the local stack needs to run the rest: its
// functions (environments resolved), HTTP API routes and SQS event source
// mappings. It honours the template's Conditions (a resource whose
// Condition is false is not created) and resolves its Outputs.
//
// Why not moto's own CloudFormation: see docs/local-stack.md.
package provision

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/ssm"
	"github.com/aws/aws-sdk-go-v2/service/sts"

	"github.com/zero-gateway/zero/cmd/zero/devstack/template"
	"github.com/zero-gateway/zero/shared/emulator"
)

// StackNamePattern is what a stack name (the prefix of every physical
// name) must match.
var StackNamePattern = regexp.MustCompile(`^[a-z][a-z0-9-]{0,39}$`)

// Provision evaluates the template's Conditions with the parameters,
// creates the queues, tables, buckets and SSM parameters whose Condition
// holds on the endpoint of cfg (which must point at an emulator), reads
// its functions, HTTP API routes and SQS event source mappings, and
// resolves its Outputs. It is idempotent: existing resources are reused
// and their settings re-applied.
//
// Each function's role's inline policies are resolved to local ARNs
// (Function.Policy); with Options.Users each function also gets an IAM
// user of its own on the emulator and an access key (see iam.go).
//
// Resources of other types (IAM, stages, permissions, alarms, ...) and
// resources whose Condition is false are not created; they are listed in
// Resources.Skipped with the reason, and a reference to one from anything
// the local stack needs is an error naming it. A condition, intrinsic
// function or reference that cannot be evaluated is an error naming the
// resource, property, condition or output.
func Provision(ctx context.Context, cfg aws.Config, t *template.Template, opts Options) (*Resources, error) {
	if !StackNamePattern.MatchString(opts.StackName) {
		return nil, fmt.Errorf("stack name %q: want lower-case letters, digits and '-', starting with a letter, at most 40 characters", opts.StackName)
	}
	params, err := t.ParameterValues(opts.Params)
	if err != nil {
		return nil, err
	}
	p := newProvisioner(cfg, t, opts)
	p.res.AccountID = p.accountID(ctx, cfg)
	p.ev = template.NewEvaluator(params, cfg.Region, p.res.AccountID, opts.StackName)
	if err := p.conditions(); err != nil {
		return nil, err
	}
	if err := p.create(ctx); err != nil {
		return nil, err
	}
	for _, step := range []func() error{p.functions, p.policies, p.configParameter, p.eventSources, p.routes, p.outputs} {
		if err := step(); err != nil {
			return nil, err
		}
	}
	if err := p.users(ctx); err != nil {
		return nil, err
	}
	return p.res, nil
}

type provisioner struct {
	cfg  aws.Config
	sqs  *sqs.Client
	ddb  *dynamodb.Client
	s3   *s3.Client
	ssm  *ssm.Client
	logf func(string, ...any)
	res  *Resources
	// tmpl is the template with only the resources whose Condition holds.
	tmpl *template.Template
	ev   *template.Evaluator
	// iam creates the functions' users (Options.Users); nil: none.
	iam *emulator.IAM
}

func newProvisioner(cfg aws.Config, t *template.Template, opts Options) *provisioner {
	logf := opts.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	return &provisioner{
		cfg:  cfg,
		sqs:  sqs.NewFromConfig(cfg),
		ddb:  dynamodb.NewFromConfig(cfg),
		ssm:  ssm.NewFromConfig(cfg),
		s3:   s3.NewFromConfig(cfg, func(o *s3.Options) { o.UsePathStyle = true }),
		logf: logf,
		res: &Resources{
			StackName:      opts.StackName,
			Region:         cfg.Region,
			Queues:         map[string]Queue{},
			Tables:         map[string]Table{},
			Buckets:        map[string]Bucket{},
			SSMParameters:  map[string]SSMParameter{},
			Functions:      map[string]Function{},
			Skipped:        map[string]string{},
			ScheduleGroups: map[string]ScheduleGroup{},
		},
		tmpl: t,
		iam:  opts.Users,
	}
}

// absentReasons says why a resource of a type the local stack runs but
// does not create has no Ref or attributes.
var absentReasons = map[string]string{
	typeHTTPAPI: "is served by the local HTTP front, which has no API id (use the front's URL)",
	typeESM:     "is run by the local event source emulator, which has no mapping id",
}

// notEmulatedReasons say why a resource type the local stack does not
// create is left out, where there is more to say than "is not emulated
// locally".
var notEmulatedReasons = map[string]string{
	typeBucketPolicy: "is not applied locally: the emulator is plain HTTP, so its aws:SecureTransport deny would refuse every call",
	typeLogGroup:     "is not created locally: the functions log to the console",
}

// conditions evaluates the template's Conditions and keeps in p.tmpl only
// the resources whose Condition holds. Resources left out, and those of
// types that are not emulated, are recorded as absent (Resources.Skipped,
// and the evaluator refuses references to them).
func (p *provisioner) conditions() error {
	conds, err := p.ev.Conditions(p.tmpl.Conditions)
	if err != nil {
		return err
	}
	p.res.Conditions = conds
	kept := map[string]template.Resource{}
	for _, id := range sortedKeys(p.tmpl.Resources) {
		r := p.tmpl.Resources[id]
		if r.Condition != "" {
			holds, err := p.ev.Condition(r.Condition)
			if err != nil {
				return fmt.Errorf("resource %s: %w", id, err)
			}
			if !holds {
				p.skip(id, fmt.Sprintf("(%s) is not created: its condition %s is false", r.Type, r.Condition))
				continue
			}
		}
		kept[id] = r
		switch r.Type {
		case typeQueue, typeTable, typeBucket, typeSSMParam, typeFunction, typeScheduleGroup:
		case typeESM, typeHTTPAPI:
			p.ev.Absent(id, absentReasons[r.Type])
		default:
			reason := notEmulatedReasons[r.Type]
			if reason == "" {
				reason = "is not emulated locally"
			}
			p.skip(id, fmt.Sprintf("(%s) %s", r.Type, reason))
			if r.Type == typeRole {
				p.defineRole(id) // not created, but its ARN is referred to
			}
		}
	}
	t := *p.tmpl
	t.Resources = kept
	p.tmpl = &t
	return nil
}

// skip records a resource that is not created locally, and why.
func (p *provisioner) skip(id, reason string) {
	p.res.Skipped[id] = reason
	p.ev.Absent(id, reason)
	p.logf("skip %s %s", id, reason)
}

// create creates the queues, tables, buckets and SSM parameters, each
// after the ones it refers to.
func (p *provisioner) create(ctx context.Context) error {
	order, err := provisionOrder(p.tmpl)
	if err != nil {
		return err
	}
	for _, id := range order {
		res := p.tmpl.Resources[id]
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
		case typeScheduleGroup:
			err = p.scheduleGroup(ctx, id, res)
		}
		if err != nil {
			return fmt.Errorf("provision %s (%s): %w", id, res.Type, err)
		}
	}
	return nil
}

// outputs resolves the template's Outputs (see template.Evaluator.Outputs).
func (p *provisioner) outputs() error {
	out, err := p.ev.Outputs(p.tmpl.Outputs)
	if err != nil {
		return err
	}
	p.res.Outputs = out
	return nil
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
func provisionOrder(t *template.Template) ([]string, error) {
	local := map[string]bool{}
	for id, r := range t.Resources {
		switch r.Type {
		case typeQueue, typeTable, typeBucket, typeSSMParam, typeScheduleGroup:
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
		deps := template.References(res.Properties, t.Parameters)
		deps = append(deps, template.DependsOn(res.DependsOn)...)
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

// physicalName derives a resource name from the stack name and logical id.
func physicalName(stack, logicalID string) string {
	return stack + "-" + strings.ToLower(logicalID)
}

// resolveProps resolves all properties of a resource.
func (p *provisioner) resolveProps(res template.Resource) (map[string]any, error) {
	v, err := p.ev.Resolve(res.Properties)
	if err != nil {
		return nil, err
	}
	m, _ := v.(map[string]any)
	if m == nil {
		m = map[string]any{}
	}
	return m, nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
