package devstack

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/ssm"

	"github.com/zero-gateway/zero/shared/secret"
	"github.com/zero-gateway/zero/shared/ssmparam"
)

// secretParameters maps each secret a function of the template reads to
// its SSM parameter (the value of the function's Spec.Env variable); the
// functions that read one must agree on the parameter.
func (s *Stack) secretParameters() (map[string]string, map[string]string, error) {
	params, readers := map[string]string{}, map[string]string{}
	for _, id := range sortedKeys(s.Resources.Functions) {
		env := s.Resources.Functions[id].Env
		for _, spec := range secret.All() {
			p, ok := env[spec.Env]
			if !ok {
				continue
			}
			if cur, seen := params[spec.Name]; seen && cur != p {
				return nil, nil, fmt.Errorf("functions %s and %s read the secret %s from different parameters (%s and %s)", readers[spec.Name], id, spec.Name, cur, p)
			}
			params[spec.Name], readers[spec.Name] = p, id
		}
	}
	return params, readers, nil
}

// writeSecrets writes Options.Secrets into the SecureString parameters the
// functions read them from, as `zero secrets set` does on AWS, and deletes
// the parameters of secrets not given, so that a run against an emulator
// that is still up never keeps an old value. A secret no function reads,
// a required one not given, or one that breaks its rules (the 32-character
// minimum of the webhook secret and the gateway token) stops Start with an
// error naming it and never its value.
func (s *Stack) writeSecrets(ctx context.Context) error {
	params, readers, err := s.secretParameters()
	if err != nil {
		return err
	}
	for name := range s.opts.Secrets {
		if _, ok := params[name]; !ok {
			if _, err := secret.Lookup(name); err != nil {
				return err
			}
			return fmt.Errorf("secret %s is given but no function of the template reads it", name)
		}
	}
	client := ssm.NewFromConfig(s.AWSConfig)
	for _, name := range sortedKeys(params) {
		spec, _ := secret.Lookup(name)
		v, ok := s.opts.Secrets[name]
		if !ok {
			if !spec.Optional {
				return fmt.Errorf("secret %s is required by function %s (zero dev takes it from %s)", name, readers[name], spec.DevEnv)
			}
			if err := ssmparam.DeleteSecret(ctx, client, params[name]); err != nil {
				return err
			}
			continue
		}
		if err := spec.Check(v); err != nil {
			return err
		}
		if _, err := ssmparam.PutSecret(ctx, client, params[name], v, ""); err != nil {
			return err
		}
		s.logf("secret %s written to %s (SecureString)", name, params[name])
	}
	return nil
}

// PutSecret replaces a secret's value (a rotation); the functions use it
// within SecretsTTL. The value is checked against the secret's rules first.
func (s *Stack) PutSecret(ctx context.Context, name, value string) error {
	spec, err := secret.Lookup(name)
	if err != nil {
		return err
	}
	if err := spec.Check(value); err != nil {
		return err
	}
	params, _, err := s.secretParameters()
	if err != nil {
		return err
	}
	p, ok := params[name]
	if !ok {
		return fmt.Errorf("secret %s: no function of the template reads it", name)
	}
	_, err = ssmparam.PutSecret(ctx, ssm.NewFromConfig(s.AWSConfig), p, value, "")
	return err
}
