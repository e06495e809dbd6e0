package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/zero-gateway/zero/shared/config"
	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/session"
	"github.com/zero-gateway/zero/shared/tool"
)

// echoModel is the model of an agent with none configured, as in zero dev.
var echoModel = model.Ref{Provider: "zero", Name: "echo"}

// toolsReport is the --json output of `zero tools`.
type toolsReport struct {
	Tools    []toolLine `json:"tools"`
	Warnings []string   `json:"warnings,omitempty"`
}

// toolLine is one tool of toolsReport: whether the policy allows it,
// whether ZERO provides it, and the rule that decided.
type toolLine struct {
	Name      string `json:"name"`
	Allowed   bool   `json:"allowed"`
	Available bool   `json:"available"`
	Reason    string `json:"reason"`
	// Unavailable is why the serverless deployment does not provide the
	// tool (exec, process, browser, canvas, nodes): what a call answers.
	Unavailable string `json:"unavailable,omitempty"`
}

// runTools is `zero tools`: the tool policy of one run, tool by tool, from
// the zero.json `zero dev` runs with.
func runTools(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("zero tools", flag.ContinueOnError)
	fs.SetOutput(stderr)
	agentFlag := fs.String("agent", "", "the agent that runs (default: the default agent)")
	modelFlag := fs.String("model", "", "the run's model, provider/model (default: the agent's model, else zero/echo)")
	sandbox := fs.Bool("sandbox", false, "the run is sandboxed")
	subagent := fs.Bool("subagent", false, "the run is a sub-agent's (started by sessions_spawn)")
	asJSON := fs.Bool("json", false, `print {"tools": [{"name", "allowed", "available", "reason"}], "warnings": [...]}`)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: zero tools [--agent ID] [--model PROVIDER/MODEL] [--sandbox] [--subagent] [--json]")
		fmt.Fprintln(stderr)
		fmt.Fprintln(stderr, "Evaluates the tool policy of zero.json (tools.*, agents.*.tools, byProvider,")
		fmt.Fprintln(stderr, "tools.subagents.tools) for one run and prints, for every tool, whether the policy")
		fmt.Fprintln(stderr, "allows it, whether ZERO provides it (available; web_fetch and web_search also need tools.web.*.enabled) and which rule decided.")
		fmt.Fprintf(stderr, "The config is $%s, else ~/.zero/zero.json, else zero dev's local config.\n\n", configEnv)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return fmt.Errorf("zero tools takes no arguments, got %q", fs.Args())
	}
	dc, err := loadDevConfig(os.Getenv)
	if err != nil {
		return err
	}
	cfg := dc.cfg
	if dc.loc.exists {
		printWarnings(stderr, dc.loc.path, cfg)
	} else {
		fmt.Fprintln(stderr, "note:", devConfigNotice)
	}
	agentID, err := toolsAgent(cfg, *agentFlag)
	if err != nil {
		return err
	}
	ref, err := toolsModel(cfg, agentID, *modelFlag)
	if err != nil {
		return err
	}
	d := tool.Decide(cfg, tool.Request{AgentID: agentID, Model: ref, Sandbox: *sandbox, Subagent: *subagent})
	report := toolsReport{Warnings: d.Warnings}
	for _, v := range d.Tools {
		available := tool.Available(cfg, v.Name) && (v.Name != "image" || tool.ImageAvailable(cfg, ref))
		why, _ := tool.Unavailable(v.Name)
		report.Tools = append(report.Tools, toolLine{Name: v.Name, Allowed: v.Allowed, Available: available, Reason: v.Reason, Unavailable: why})
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(report)
	}
	return printTools(stdout, stderr, report, agentID, ref, *sandbox, *subagent)
}

// toolsAgent is the agent --agent names (normalised), or the default
// agent; an agent that is not configured is an error.
func toolsAgent(cfg *config.Config, flagValue string) (string, error) {
	routing := cfg.Routing()
	if strings.TrimSpace(flagValue) == "" {
		return routing.Default, nil
	}
	id := session.NormalizeAgentID(flagValue)
	if len(routing.IDs) == 0 {
		if id == routing.Default {
			return id, nil
		}
		return "", fmt.Errorf("unknown agent %q: zero.json has no agents.list, so the only agent is %q", flagValue, routing.Default)
	}
	if !slices.Contains(routing.IDs, id) {
		return "", fmt.Errorf("unknown agent %q: agents.list has %s", flagValue, strings.Join(routing.IDs, ", "))
	}
	return id, nil
}

// toolsModel is the model --model names, else the agent's configured
// model, else zero/echo.
func toolsModel(cfg *config.Config, agentID, flagValue string) (model.Ref, error) {
	if strings.TrimSpace(flagValue) != "" {
		ref, err := model.ParseRef(flagValue)
		if err != nil {
			return model.Ref{}, fmt.Errorf("--model %q: want provider/model, e.g. openai/gpt-4o", flagValue)
		}
		return ref, nil
	}
	if ref, ok := cfg.DefaultModel(agentID); ok {
		return ref, nil
	}
	return echoModel, nil
}

// printTools writes the report as a table, warnings to stderr.
func printTools(stdout, stderr io.Writer, report toolsReport, agentID string, ref model.Ref, sandbox, subagent bool) error {
	run := []string{"agent " + agentID, "model " + ref.String()}
	if sandbox {
		run = append(run, "sandboxed")
	}
	if subagent {
		run = append(run, "sub-agent")
	}
	fmt.Fprintln(stdout, strings.Join(run, ", "))
	fmt.Fprintln(stdout)
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "TOOL\tALLOWED\tAVAILABLE\tREASON")
	var offered []string
	for _, t := range report.Tools {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", t.Name, yesNo(t.Allowed), yesNo(t.Available), t.Reason)
		if t.Allowed && t.Available {
			offered = append(offered, t.Name)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(stdout)
	if len(offered) == 0 {
		fmt.Fprintln(stdout, "offered to the model: none")
	} else {
		fmt.Fprintln(stdout, "offered to the model:", strings.Join(offered, ", "))
	}
	var serverless []string
	for _, t := range report.Tools {
		if t.Unavailable != "" {
			serverless = append(serverless, t.Name)
		}
	}
	if len(serverless) > 0 {
		fmt.Fprintln(stdout, "not in this serverless deployment (a call answers why; see docs/serverless.md):", strings.Join(serverless, ", "))
	}
	for _, w := range report.Warnings {
		fmt.Fprintln(stderr, "warning:", w)
	}
	return nil
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
