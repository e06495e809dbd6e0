package provision

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/zero-gateway/zero/cmd/zero/devstack/template"
)

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
			attrs[k] = template.ScalarString(x)
		}
	}
	sort.Strings(ignored)
	return attrs, ignored, nil
}

func (p *provisioner) queue(ctx context.Context, id string, res template.Resource) error {
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
	p.ev.Define(id, url, map[string]string{"Arn": arn, "QueueName": name, "QueueUrl": url})
	return nil
}
