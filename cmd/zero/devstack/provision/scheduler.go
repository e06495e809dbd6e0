package provision

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/scheduler"

	"github.com/zero-gateway/zero/cmd/zero/devstack/template"
	"github.com/zero-gateway/zero/shared/awserr"
)

// Types the cron jobs' schedules need locally.
const typeScheduleGroup = "AWS::Scheduler::ScheduleGroup"

// ScheduleGroup is a provisioned EventBridge Scheduler schedule group:
// the local firing ticker fires the schedules in it.
type ScheduleGroup struct {
	LogicalID string
	Name      string
	ARN       string
}

// scheduleGroup creates an AWS::Scheduler::ScheduleGroup (an existing one
// is reused). Ref is the name; without a Name it is
// <stack>-<lower(logical id)>.
func (p *provisioner) scheduleGroup(ctx context.Context, id string, res template.Resource) error {
	props, err := p.resolveProps(res)
	if err != nil {
		return err
	}
	name := template.ScalarString(props["Name"])
	if name == "" {
		name = physicalName(p.res.StackName, id)
	}
	client := scheduler.NewFromConfig(p.cfg)
	_, err = client.CreateScheduleGroup(ctx, &scheduler.CreateScheduleGroupInput{Name: aws.String(name)})
	if err != nil && awserr.APICode(err) != "ConflictException" {
		return fmt.Errorf("create schedule group %s: %w", name, err)
	}
	arn := fmt.Sprintf("arn:aws:scheduler:%s:%s:schedule-group/%s", p.res.Region, p.res.AccountID, name)
	p.ev.Define(id, name, map[string]string{"Arn": arn})
	p.res.ScheduleGroups[id] = ScheduleGroup{LogicalID: id, Name: name, ARN: arn}
	return nil
}

// defineRole gives a role of the template, which the local stack does not
// create, its name and ARN for references (a schedule's RoleArn, a
// function's environment): <stack>-<logical id>.
func (p *provisioner) defineRole(id string) {
	name := p.res.StackName + "-" + id
	p.ev.Define(id, name, map[string]string{
		"Arn":    fmt.Sprintf("arn:aws:iam::%s:role/%s", p.res.AccountID, name),
		"RoleId": "local-" + name,
	})
}
