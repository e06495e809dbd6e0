package main

import (
	"context"
	"fmt"
	"io"

	"github.com/aws/aws-sdk-go-v2/service/ssm"

	"github.com/zero-gateway/zero/shared/awsconfig"
	"github.com/zero-gateway/zero/shared/config"
	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/session"
	"github.com/zero-gateway/zero/shared/ssmparam"
	"github.com/zero-gateway/zero/shared/upstream"
)

// configParameter is the SSM parameter a deployed stack reads its
// zero.json from (template.yaml: /zero/${AWS::StackName}/config).
func configParameter(stack string) string { return "/zero/" + stack + "/config" }

// scopeCheck is the session.* the imported private chats are checked
// against (see upstream.ScopeGaps), or why it could not be read.
type scopeCheck struct {
	keys  session.KeyConfig
	where string // the parameter or file the config came from
	err   error  // the config could not be read: nothing is checked
}

// loadScopeCheck reads the zero.json the stack runs with, as `zero
// config` finds it: the SSM parameter param, else /zero/$ZERO_STACK/config,
// else the local file `zero dev` runs with ($ZERO_CONFIG, else
// ~/.zero/zero.json). Read-only; a failure is kept in the result, never
// fatal to the import.
func loadScopeCheck(ctx context.Context, param string, getenv func(string) string) scopeCheck {
	if param == "" && getenv(stackEnv) != "" {
		param = configParameter(getenv(stackEnv))
	}
	if param != "" {
		cfg, err := fetchConfig(ctx, param)
		return scopeCheck{keys: keysOf(cfg), where: param, err: err}
	}
	loc, err := findConfig(getenv)
	if err == nil && !loc.exists {
		err = fmt.Errorf("no zero.json: pass --parameter /zero/<stack>/config, or set %s or %s", stackEnv, configEnv)
	}
	if err != nil {
		return scopeCheck{err: err}
	}
	_, cfg, err := readConfig(loc.path)
	return scopeCheck{keys: keysOf(cfg), where: loc.path, err: err}
}

// fetchConfig reads and parses the zero.json stored in the SSM parameter
// name, with the default AWS configuration.
func fetchConfig(ctx context.Context, name string) (*config.Config, error) {
	awsCfg, err := awsconfig.Load(ctx, nil)
	if err != nil {
		return nil, err
	}
	data, _, err := ssmparam.New(ssm.NewFromConfig(awsCfg), name).Fetch(ctx)
	if fault.Is(err, fault.NotFound) {
		return nil, fmt.Errorf("the parameter %s does not exist (zero config push --parameter %s writes it)", name, name)
	}
	if err != nil {
		return nil, err
	}
	cfg, err := config.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("config %s: %w", name, err)
	}
	return cfg, nil
}

func keysOf(cfg *config.Config) session.KeyConfig {
	if cfg == nil {
		return session.KeyConfig{}
	}
	return cfg.Keys()
}

// report prints, for the import summary, one warning line per dmScope
// that the imported private chats keys need and the config lacks, or one
// line saying the config could not be read.
func (c scopeCheck) report(w io.Writer, keys []string) {
	if c.err != nil {
		fmt.Fprintf(w, "warning: private chats not checked against session.dmScope: %v\n", c.err)
		return
	}
	for _, gap := range upstream.ScopeGaps(keys, c.keys) {
		fmt.Fprintf(w, "%s (%s)\n", gap.Advice(c.keys), c.where)
	}
}
