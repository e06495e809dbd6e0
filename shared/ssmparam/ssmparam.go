// Package ssmparam is the adapter that keeps one document (zero.json) in an
// SSM Parameter Store parameter. A Parameter is a config.Source: the
// functions fetch the document through it, and operators (zero config
// push, zero dev) replace it with Put.
package ssmparam

import (
	"context"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ssm"
	"github.com/aws/aws-sdk-go-v2/service/ssm/types"

	"github.com/zero-gateway/zero/shared/config"
	"github.com/zero-gateway/zero/shared/fault"
)

// Parameter is one named SSM parameter. Safe for concurrent use.
type Parameter struct {
	client *ssm.Client
	name   string
}

var _ config.Source = (*Parameter)(nil)

// New returns the parameter called name (e.g. "/zero/<stack>/config").
func New(client *ssm.Client, name string) *Parameter {
	return &Parameter{client: client, name: name}
}

// Name is the parameter's name.
func (p *Parameter) Name() string { return p.name }

// Fetch reads the parameter's value with one GetParameter call. version is
// the parameter's Version number in decimal; SSM raises it on every write,
// so an unchanged version means unchanged content. A missing parameter is
// a fault.NotFound error; every error is classified (see codes).
//
// WithDecryption is set so that the parameter may be turned into a
// SecureString; for a String it changes nothing (a SecureString also
// needs kms:Decrypt on its key).
func (p *Parameter) Fetch(ctx context.Context) (data []byte, version string, err error) {
	out, err := p.client.GetParameter(ctx, &ssm.GetParameterInput{
		Name:           aws.String(p.name),
		WithDecryption: aws.Bool(true),
	})
	if err != nil {
		return nil, "", classify(err, "get parameter "+p.name)
	}
	if out.Parameter == nil {
		return nil, "", fault.New(fault.Internal, "get parameter %s: the answer holds no parameter", p.name)
	}
	return []byte(aws.ToString(out.Parameter.Value)), strconv.FormatInt(out.Parameter.Version, 10), nil
}

// Put replaces the parameter's value, creating the parameter when it is
// missing, with one PutParameter call, and returns the new version.
//
// It writes a String parameter in the Intelligent-Tiering tier, as
// template.yaml declares it: SSM keeps a value up to 4 KB in the free
// standard tier and moves a larger one (up to 8 KB) to the advanced tier
// instead of rejecting it.
func (p *Parameter) Put(ctx context.Context, data []byte) (version string, err error) {
	out, err := p.client.PutParameter(ctx, &ssm.PutParameterInput{
		Name:      aws.String(p.name),
		Value:     aws.String(string(data)),
		Type:      types.ParameterTypeString,
		Tier:      types.ParameterTierIntelligentTiering,
		Overwrite: aws.Bool(true),
	})
	if err != nil {
		return "", classify(err, "put parameter "+p.name)
	}
	return strconv.FormatInt(out.Version, 10), nil
}
