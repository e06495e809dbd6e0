package provision

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/zero-gateway/zero/cmd/zero/devstack/iampolicy"
	"github.com/zero-gateway/zero/cmd/zero/devstack/template"
)

const typeRole = "AWS::IAM::Role"

// policies reads each function's execution role (its Role property,
// Fn::GetAtt <role>.Arn of an AWS::IAM::Role of the template) and
// resolves the role's inline policies with the local names and ARNs:
// Function.Role and Function.Policy. A function without such a role is
// allowed nothing (logged). A statement that refers to a
// resource the local stack does not create is left out with a log line
// (nothing local can be called through it); any other unresolvable value
// is an error. Managed policies (ManagedPolicyArns) and the
// AWS::IAM::RolePolicy resources (the template's <fn>LogsPolicy,
// CloudWatch Logs only) are not read: the local functions log to the
// console.
func (p *provisioner) policies() error {
	for _, id := range sortedKeys(p.res.Functions) {
		fn := p.res.Functions[id]
		role, err := roleOf(p.tmpl, id)
		if err != nil {
			// Not a deployable function (CloudFormation requires a Role):
			// it may do nothing, and the check says so for any call.
			p.logf("%v: it is allowed no AWS call locally", err)
			continue
		}
		policy, err := p.rolePolicy(role)
		if err != nil {
			return fmt.Errorf("function %s: role %s: %w", id, role, err)
		}
		fn.Role, fn.Policy = role, policy
		p.res.Functions[id] = fn
	}
	return nil
}

// roleOf returns the logical id of the template role function id runs as.
func roleOf(t *template.Template, id string) (string, error) {
	ref := t.Resources[id].Properties["Role"]
	var role string
	switch x := ref.(type) {
	case map[string]any:
		switch args := x["Fn::GetAtt"].(type) {
		case []any:
			if len(args) == 2 && args[1] == "Arn" {
				role, _ = args[0].(string)
			}
		case string:
			if r, ok := strings.CutSuffix(args, ".Arn"); ok {
				role = r
			}
		}
	}
	if r, ok := t.Resources[role]; !ok || r.Type != typeRole {
		return "", fmt.Errorf("function %s: Role %v is not Fn::GetAtt of an %s of the template; the local stack cannot give it its policy", id, ref, typeRole)
	}
	return role, nil
}

// rolePolicy merges the role's inline policies, resolved statement by
// statement.
func (p *provisioner) rolePolicy(role string) (iampolicy.Policy, error) {
	list, _ := p.tmpl.Resources[role].Properties["Policies"].([]any)
	var out iampolicy.Policy
	for i, item := range list {
		m, _ := item.(map[string]any)
		doc, _ := m["PolicyDocument"].(map[string]any)
		sts, ok := doc["Statement"].([]any)
		if !ok && doc["Statement"] != nil {
			sts = []any{doc["Statement"]}
		}
		for j, st := range sts {
			v, err := p.ev.Resolve(st)
			var absent *template.AbsentError
			if errors.As(err, &absent) {
				p.logf("role %s policy %d statement %d left out locally: %v", role, i, j, err)
				continue
			}
			if err != nil {
				return iampolicy.Policy{}, fmt.Errorf("policy %d statement %d: %w", i, j, err)
			}
			if v == nil {
				// Fn::If chose AWS::NoValue (the Bedrock statement when
				// BedrockModels is empty): no statement.
				continue
			}
			one, err := iampolicy.Parse(map[string]any{"Statement": []any{v}})
			if err != nil {
				return iampolicy.Policy{}, fmt.Errorf("policy %d: %w", i, err)
			}
			out = iampolicy.Merge(out, one)
		}
	}
	return out, nil
}

// users gives each function an IAM user on the emulator, named
// <stack>-<function>, whose one inline policy is its role's actions as
// the emulator can enforce them (iampolicy.ForEmulator), and a fresh
// access key: Function.Credentials. Only with Options.Users.
func (p *provisioner) users(ctx context.Context) error {
	if p.iam == nil {
		return nil
	}
	for _, id := range sortedKeys(p.res.Functions) {
		fn := p.res.Functions[id]
		user := p.res.StackName + "-" + id
		creds, err := p.iam.PutUser(ctx, user, fn.Role, iampolicy.ForEmulator(fn.Policy).JSON())
		if err != nil {
			return fmt.Errorf("function %s: IAM user %s: %w", id, user, err)
		}
		fn.Credentials = &aws.Credentials{AccessKeyID: creds.AccessKeyID, SecretAccessKey: creds.SecretAccessKey, Source: creds.Source}
		p.res.Functions[id] = fn
	}
	return nil
}
