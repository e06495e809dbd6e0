package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
)

// runGateway is `zero gateway`: talk to the gateway API directly.
func runGateway(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return dispatch(ctx, "gateway", args, stdout, stderr, []string{
		"usage: zero gateway call METHOD [--params JSON] [--json] [--url URL] [--token TOKEN]",
		"",
		"call sends one RPC (POST <url>/rpc) and prints its result.",
	}, map[string]subcommand{"call": runGatewayCall})
}

// runGatewayCall is `zero gateway call METHOD`: any method, params given as
// a JSON object, the result printed as JSON (indented; one line with --json).
func runGatewayCall(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("zero gateway call", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var conn gatewayFlags
	conn.register(fs)
	paramsFlag := fs.String("params", "{}", "the method's params, a JSON object")
	asJSON := fs.Bool("json", false, "print the result as compact JSON on one line")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: zero gateway call METHOD [--params JSON] [--json] [--url URL] [--token TOKEN]")
		fmt.Fprintln(stderr)
		fmt.Fprintln(stderr, "Sends METHOD with params to the gateway and prints the result as JSON.")
		fmt.Fprintln(stderr, "Errors go to stderr with a non-zero exit.")
		fmt.Fprintln(stderr)
		fs.PrintDefaults()
	}
	rest, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(rest) != 1 {
		fs.Usage()
		return fmt.Errorf("zero gateway call takes one METHOD, got %q", rest)
	}
	method := rest[0]
	params, err := objectParams("--params", *paramsFlag)
	if err != nil {
		return err
	}
	client, err := conn.client(os.Getenv)
	if err != nil {
		return err
	}
	result, err := client.Call(ctx, method, params)
	if err != nil {
		return err
	}
	var out bytes.Buffer
	if *asJSON {
		err = json.Compact(&out, result)
	} else {
		err = json.Indent(&out, result, "", "  ")
	}
	if err != nil {
		return fmt.Errorf("gateway %s: result is not JSON: %w", method, err)
	}
	out.WriteByte('\n')
	_, err = stdout.Write(out.Bytes())
	return err
}

// objectParams checks that s, the value of flag name, is a JSON object
// and returns it as is.
func objectParams(name, s string) (json.RawMessage, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal([]byte(s), &obj); err != nil || obj == nil {
		if err == nil {
			err = fmt.Errorf("null")
		}
		return nil, fmt.Errorf("%s must be a JSON object: %w", name, err)
	}
	return json.RawMessage(s), nil
}
