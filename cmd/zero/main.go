// Command zero is ZERO's operator CLI.
//
//	zero dev            run the whole stack locally (moto/LocalStack + RIE, no Docker)
//	zero config check   validate zero.json
//	zero config push    write zero.json to the deployed stack's SSM parameter
//	zero secrets        set a secret (SSM SecureString) from stdin, list which are set
//	zero status         the gateway's health, config version and recent sessions
//	zero sessions       the gateway's sessions
//	zero agent          send a message to the agent (and wait for the reply)
//	zero chat           talk to the agent line by line
//	zero gateway call   call any gateway API method
//	zero telegram       set the Telegram bot's webhook (set-webhook)
//	zero discord        register the slash commands, print how to set the endpoint
//	zero dlq            list the dead-letter queue, redrive it to the work queue
//	zero outbox         list the announce outbox, re-queue a dead item
//	zero import         bring the upstream system's sessions and transcripts in
//	zero export         write sessions and transcripts out in the upstream layout
//	zero workspace      a workspace file's versions, and restoring one
//
// Subcommands live in their own files and register in commands; each gets
// its arguments after the subcommand name and parses them with package flag.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"syscall"
)

// command is one subcommand of zero.
type command struct {
	summary string
	run     func(ctx context.Context, args []string, stdout, stderr io.Writer) error
}

// commands maps subcommand names to their implementations.
var commands = map[string]command{
	"dev":       {summary: "run ZERO locally: emulator, functions under the RIE, HTTP API and queue triggers", run: runDev},
	"config":    {summary: "check zero.json, or push it to a deployed stack (check [FILE] | push --parameter NAME [FILE])", run: runConfig},
	"tools":     {summary: "which tools the policy allows a run, which ZERO provides, and why (--agent ID --model P/M --sandbox --subagent --json)", run: runTools},
	"status":    {summary: "the gateway: reachable or not, config version, recent sessions (--json --url URL --token TOKEN)", run: runStatus},
	"sessions":  {summary: "the gateway's sessions (--json --active MINUTES --limit N --agent ID)", run: runSessions},
	"agent":     {summary: "send a message to the agent and print the reply (--message TEXT --session KEY --no-wait --timeout 120s --json)", run: runAgent},
	"chat":      {summary: "talk to the agent: each line read is sent, each reply printed (--session KEY --timeout 120s)", run: runChat},
	"gateway":   {summary: "call a gateway API method (call METHOD --params JSON --json)", run: runGateway},
	"discord":   {summary: "register the slash commands (register-commands --guild ID --dry-run --json), how to set the endpoint (set-endpoint --url URL)", run: runDiscord},
	"telegram":  {summary: "point the Telegram bot at the webhook (set-webhook --url PUBLIC_URL --secret S --token T --drop-pending)", run: runTelegram},
	"secrets":   {summary: "set a secret from stdin, never argv (set NAME --stack STACK < value), or list which are set (list --stack STACK)", run: runSecrets},
	"cron":      {summary: "cron jobs through the gateway (list --all | add --name N --every 1h --message TEXT | rm ID | run ID | runs ID)", run: runCron},
	"outbox":    {summary: "the announce outbox through the gateway (list --state S --json | retry ID)", run: runOutbox},
	"dlq":       {summary: "the dead-letter queue: what failed and why, and moving it back (list | redrive --dry-run)", run: runDLQ},
	"import":    {summary: "bring the upstream system's sessions and transcripts in (--from DIR --agent ID --dry-run --table T --bucket B)", run: runImport},
	"export":    {summary: "write sessions and transcripts out in the upstream layout (--to DIR --agent ID --since 7d --table T --bucket B)", run: runExport},
	"workspace": {summary: "a workspace file's versions, or bring one back (versions --agent ID PATH | restore --agent ID [--version V] PATH; --bucket B)", run: runWorkspace},
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(2)
		}
		fmt.Fprintln(os.Stderr, "zero:", err)
		os.Exit(1)
	}
}

// run dispatches args (without the program name) to a subcommand. Usage
// errors and -h return flag.ErrHelp after printing usage to stderr.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		usage(stderr)
		return flag.ErrHelp
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		usage(stdout)
		return nil
	}
	cmd, ok := commands[args[0]]
	if !ok {
		usage(stderr)
		return fmt.Errorf("unknown command %q", args[0])
	}
	return cmd.run(ctx, args[1:], stdout, stderr)
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: zero <command> [flags]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "commands:")
	names := make([]string, 0, len(commands))
	for name := range commands {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		fmt.Fprintf(w, "  %-10s %s\n", name, commands[name].summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Run 'zero <command> -h' for a command's flags.")
}
