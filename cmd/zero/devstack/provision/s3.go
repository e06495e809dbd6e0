package provision

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/zero-gateway/zero/cmd/zero/devstack/template"
)

func (p *provisioner) bucket(ctx context.Context, id string, res template.Resource) error {
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
	if err := p.bucketProperties(ctx, id, name, props); err != nil {
		return err
	}
	arn := "arn:aws:s3:::" + name
	p.res.Buckets[id] = Bucket{LogicalID: id, Name: name, ARN: arn}
	p.ev.Define(id, name, map[string]string{
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
			d := &s3types.ServerSideEncryptionByDefault{SSEAlgorithm: s3types.ServerSideEncryption(template.ScalarString(def["SSEAlgorithm"]))}
			if k := template.ScalarString(def["KMSMasterKeyID"]); k != "" {
				d.KMSMasterKeyID = aws.String(k)
			}
			rule.ApplyServerSideEncryptionByDefault = d
		}
		if b, ok := rm["BucketKeyEnabled"]; ok {
			rule.BucketKeyEnabled = aws.Bool(template.ScalarString(b) == "true")
		}
		rules = append(rules, rule)
	}
	_, err := p.s3.PutBucketEncryption(ctx, &s3.PutBucketEncryptionInput{
		Bucket:                            aws.String(bucket),
		ServerSideEncryptionConfiguration: &s3types.ServerSideEncryptionConfiguration{Rules: rules},
	})
	return err
}

// bucketProperties applies the bucket's settings: encryption, public
// access block, ownership controls and versioning.
func (p *provisioner) bucketProperties(ctx context.Context, id, name string, props map[string]any) error {
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
				VersioningConfiguration: &s3types.VersioningConfiguration{Status: s3types.BucketVersioningStatus(template.ScalarString(m["Status"]))},
			})
		default:
			p.logf("%s: property %s not applied locally", id, k)
		}
		if err != nil {
			return fmt.Errorf("bucket %s %s: %w", name, k, err)
		}
	}
	return nil
}
