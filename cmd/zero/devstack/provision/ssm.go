package provision

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ssm"
	ssmtypes "github.com/aws/aws-sdk-go-v2/service/ssm/types"

	"github.com/zero-gateway/zero/cmd/zero/devstack/template"
)

// Environment variables of the functions about zero.json.
const (
	// ConfigParameterEnv names the SSM parameter holding zero.json
	// (template.yaml sets it to !Ref ConfigParameter).
	ConfigParameterEnv = "ZERO_CONFIG_PARAMETER"
	// ConfigTTLEnv is how long a function keeps the config before it
	// checks the parameter's version again (a Go duration).
	ConfigTTLEnv = "ZERO_CONFIG_TTL"
)

// ssmParameter writes an AWS::SSM::Parameter with PutParameter (Overwrite),
// as a stack update would set it to the template's value. Ref is the name.
// Without a Name the parameter is called <stack>-<lower(logical id)>
// (CloudFormation would make up a random one).
func (p *provisioner) ssmParameter(ctx context.Context, id string, res template.Resource) error {
	props, err := p.resolveProps(res)
	if err != nil {
		return err
	}
	name := template.ScalarString(props["Name"])
	if name == "" {
		name = physicalName(p.res.StackName, id)
	}
	in := &ssm.PutParameterInput{
		Name:      aws.String(name),
		Type:      ssmtypes.ParameterType(template.ScalarString(props["Type"])),
		Overwrite: aws.Bool(true),
	}
	value, ok := props["Value"]
	if !ok {
		return fmt.Errorf("parameter %s has no Value", name)
	}
	if list, ok := value.([]any); ok { // a StringList given as a list
		in.Value = aws.String(joinScalars(list))
	} else {
		in.Value = aws.String(template.ScalarString(value))
	}
	var ignored []string
	for _, k := range sortedKeys(props) {
		s := template.ScalarString(props[k])
		switch k {
		case "Name", "Type", "Value":
		case "Description":
			in.Description = aws.String(s)
		case "Tier":
			in.Tier = ssmtypes.ParameterTier(s)
		case "AllowedPattern":
			in.AllowedPattern = aws.String(s)
		case "DataType":
			in.DataType = aws.String(s)
		default: // Tags cannot be sent with Overwrite; Policies need the advanced tier
			ignored = append(ignored, k)
		}
	}
	sort.Strings(ignored)
	for _, k := range ignored {
		p.logf("%s: property %s not applied locally", id, k)
	}
	out, err := p.ssm.PutParameter(ctx, in)
	if err != nil {
		return fmt.Errorf("put parameter %s: %w", name, err)
	}
	p.logf("parameter %s written: %s (version %d)", id, name, out.Version)
	p.res.SSMParameters[id] = SSMParameter{LogicalID: id, Name: name, Type: string(in.Type)}
	p.ev.Define(id, name, map[string]string{"Type": string(in.Type), "Value": aws.ToString(in.Value)})
	return nil
}

// joinScalars renders a list as a StringList value: comma-separated.
func joinScalars(list []any) string {
	parts := make([]string, len(list))
	for i, v := range list {
		parts[i] = template.ScalarString(v)
	}
	return strings.Join(parts, ",")
}

// configParameter finds the parameter the functions read zero.json from:
// the one their ZERO_CONFIG_PARAMETER names. It must be one of the
// template's parameters, and all functions must agree on it.
func (p *provisioner) configParameter() error {
	for _, id := range sortedKeys(p.res.Functions) {
		name, ok := p.res.Functions[id].Env[ConfigParameterEnv]
		if !ok {
			continue
		}
		if cur := p.res.ConfigParameter; cur != "" && cur != name {
			return fmt.Errorf("functions read zero.json from different parameters (%s: %s and %s); want one", ConfigParameterEnv, cur, name)
		}
		p.res.ConfigParameter = name
	}
	if name := p.res.ConfigParameter; name != "" {
		for _, prm := range p.res.SSMParameters {
			if prm.Name == name {
				return nil
			}
		}
		return fmt.Errorf("%s is %s, which is not an AWS::SSM::Parameter of the template", ConfigParameterEnv, name)
	}
	return nil
}
