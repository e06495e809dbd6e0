package main

import (
	"context"
	"flag"
	"fmt"
	"io"
)

// parseFlags gives fs its help text (the usage line, the description
// lines, then the flags), parses args, and refuses positional arguments:
// the gateway commands take flags only. hint, when set, ends the refusal.
func parseFlags(fs *flag.FlagSet, stderr io.Writer, args []string, usage string, about []string, hint string) error {
	setHelp(fs, stderr, usage, about)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return fmt.Errorf("%s takes no arguments, got %q%s", fs.Name(), fs.Args(), hint)
	}
	return nil
}

// setHelp gives fs its help text on stderr: the usage line, the
// description lines, then the flags.
func setHelp(fs *flag.FlagSet, stderr io.Writer, usage string, about []string) {
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: "+usage)
		fmt.Fprintln(stderr)
		for _, line := range about {
			fmt.Fprintln(stderr, line)
		}
		fmt.Fprintln(stderr)
		fs.PrintDefaults()
	}
}

// subcommand is one command under a command group (zero config check).
type subcommand func(ctx context.Context, args []string, stdout, stderr io.Writer) error

// dispatch runs the subcommand named by args[0] of the group (e.g.
// "config"), printing help (the lines of usage) on -h or when none or an
// unknown one is given.
func dispatch(ctx context.Context, group string, args []string, stdout, stderr io.Writer, usage []string, subs map[string]subcommand) error {
	printUsage := func(w io.Writer) {
		for _, line := range usage {
			fmt.Fprintln(w, line)
		}
	}
	if len(args) == 0 {
		printUsage(stderr)
		return flag.ErrHelp
	}
	if sub, ok := subs[args[0]]; ok {
		return sub(ctx, args[1:], stdout, stderr)
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		printUsage(stdout)
		return nil
	}
	printUsage(stderr)
	return fmt.Errorf("unknown %s command %q", group, args[0])
}
