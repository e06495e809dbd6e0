// Command zero is ZERO's operator CLI.
//
//	zero dev            run the whole stack locally (moto/LocalStack + RIE, no Docker)
//	zero config check   validate zero.json
//	zero config push    write zero.json to the deployed stack's SSM parameter
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
	"dev":    {summary: "run ZERO locally: emulator, functions under the RIE, HTTP API and queue triggers", run: runDev},
	"config": {summary: "check zero.json, or push it to a deployed stack (check [FILE] | push --parameter NAME [FILE])", run: runConfig},
	"tools":  {summary: "which tools the policy allows a run, which ZERO provides, and why (--agent ID --model P/M --sandbox --subagent --json)", run: runTools},
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
