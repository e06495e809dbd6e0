package main

import (
	"flag"
	"fmt"
	"io"
)

// parseFlags gives fs its help text (the usage line, the description
// lines, then the flags), parses args, and refuses positional arguments:
// the gateway commands take flags only. hint, when set, ends the refusal.
func parseFlags(fs *flag.FlagSet, stderr io.Writer, args []string, usage string, about []string, hint string) error {
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: "+usage)
		fmt.Fprintln(stderr)
		for _, line := range about {
			fmt.Fprintln(stderr, line)
		}
		fmt.Fprintln(stderr)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return fmt.Errorf("%s takes no arguments, got %q%s", fs.Name(), fs.Args(), hint)
	}
	return nil
}
