package provision

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/zero-gateway/zero/cmd/zero/devstack/template"
)

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
			in.BillingMode = ddbtypes.BillingMode(template.ScalarString(v))
		case "ProvisionedThroughput":
			err = jsonInto(v, &in.ProvisionedThroughput)
		case "GlobalSecondaryIndexes":
			err = jsonInto(v, &in.GlobalSecondaryIndexes)
		case "LocalSecondaryIndexes":
			err = jsonInto(v, &in.LocalSecondaryIndexes)
		case "TableClass":
			in.TableClass = ddbtypes.TableClass(template.ScalarString(v))
		case "SSESpecification":
			m, _ := v.(map[string]any)
			sse := &ddbtypes.SSESpecification{Enabled: aws.Bool(template.ScalarString(m["SSEEnabled"]) == "true")}
			if s := template.ScalarString(m["SSEType"]); s != "" {
				sse.SSEType = ddbtypes.SSEType(s)
			}
			if s := template.ScalarString(m["KMSMasterKeyId"]); s != "" {
				sse.KMSMasterKeyId = aws.String(s)
			}
			in.SSESpecification = sse
		case "StreamSpecification":
			m, _ := v.(map[string]any)
			in.StreamSpecification = &ddbtypes.StreamSpecification{
				StreamEnabled:  aws.Bool(true),
				StreamViewType: ddbtypes.StreamViewType(template.ScalarString(m["StreamViewType"])),
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

func (p *provisioner) table(ctx context.Context, id string, res template.Resource) error {
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
	if ttl, ok := props["TimeToLiveSpecification"].(map[string]any); ok && template.ScalarString(ttl["Enabled"]) == "true" {
		if err := p.enableTTL(ctx, name, template.ScalarString(ttl["AttributeName"])); err != nil {
			return err
		}
	}
	if pitr, ok := props["PointInTimeRecoverySpecification"].(map[string]any); ok && template.ScalarString(pitr["PointInTimeRecoveryEnabled"]) == "true" {
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
	p.ev.Define(id, name, attrs)
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
