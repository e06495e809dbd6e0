package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ssm"
	"golang.org/x/term"

	"github.com/zero-gateway/zero/shared/awsconfig"
	"github.com/zero-gateway/zero/shared/secret"
	"github.com/zero-gateway/zero/shared/ssmparam"
)

// stackEnv names the deployed stack `zero secrets` works on by default.
const stackEnv = "ZERO_STACK"

// maxSecretBytes bounds what `zero secrets set` reads: a standard SSM
// parameter holds at most 4 KB.
const maxSecretBytes = 4096

// secretInput is where `zero secrets set` reads the value: stdin, which
// tests replace. terminal tells whether it is a terminal, and readHidden
// reads a line from it without echo.
var secretInput = struct {
	r          io.Reader
	terminal   func() bool
	readHidden func() ([]byte, error)
}{
	r:          os.Stdin,
	terminal:   func() bool { return term.IsTerminal(int(os.Stdin.Fd())) },
	readHidden: func() ([]byte, error) { return term.ReadPassword(int(os.Stdin.Fd())) },
}

func runSecrets(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	usage := func() {
		fmt.Fprintln(stderr, "usage: zero secrets set NAME [--stack STACK | --parameter PARAM] [--key-id KMS_KEY] < value")
		fmt.Fprintln(stderr, "       zero secrets list [--stack STACK]")
		fmt.Fprintln(stderr)
		fmt.Fprintln(stderr, "set writes one secret into its SSM SecureString parameter /zero/<stack>/secrets/<NAME>,")
		fmt.Fprintln(stderr, "reading the value from stdin (a prompt without echo on a terminal), never from the")
		fmt.Fprintln(stderr, "command line; it checks the value first and never prints it. The functions pick a new")
		fmt.Fprintln(stderr, "value up within ZERO_SECRETS_TTL (5 minutes). list shows which secrets are set, never values.")
		fmt.Fprintln(stderr)
		fmt.Fprintln(stderr, "secrets:")
		for _, s := range secret.All() {
			fmt.Fprintf(stderr, "  %-24s %s\n", s.Name, s.Use)
		}
	}
	if len(args) == 0 {
		usage()
		return flag.ErrHelp
	}
	switch args[0] {
	case "set":
		return runSecretsSet(ctx, args[1:], stdout, stderr, usage)
	case "list":
		return runSecretsList(ctx, args[1:], stdout, stderr, usage)
	case "-h", "-help", "--help", "help":
		usage()
		return nil
	default:
		usage()
		return fmt.Errorf("zero secrets: unknown subcommand %q", args[0])
	}
}

func runSecretsSet(ctx context.Context, args []string, stdout, stderr io.Writer, usage func()) error {
	fs := flag.NewFlagSet("zero secrets set", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = usage
	stack := fs.String("stack", os.Getenv(stackEnv), "the stack (default $"+stackEnv+"): the parameter is /zero/<stack>/secrets/NAME")
	param := fs.String("parameter", "", "the SSM parameter's full name instead of the stack's")
	keyID := fs.String("key-id", "", "KMS key to encrypt with (default: the AWS managed key alias/aws/ssm)")
	value := fs.String("value", "", "only \"-\": read the value from stdin (the default)")
	// The name may come before or after the flags.
	var name string
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		name, args = args[0], args[1:]
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if name == "" && fs.NArg() > 0 {
		name = fs.Arg(0)
		if err := fs.Parse(fs.Args()[1:]); err != nil {
			return err
		}
	}
	if fs.NArg() > 0 || name == "" {
		usage()
		return errors.New("zero secrets set takes one secret NAME; the value comes from stdin")
	}
	if *value != "" && *value != "-" {
		// Never take it from argv: it would stay in the shell's history
		// and show in ps to every user of the machine.
		return errors.New("--value takes only \"-\" (stdin): pipe the value in or type it at the prompt, never on the command line")
	}
	spec, err := secret.Lookup(name)
	if err != nil {
		return err
	}
	stackGiven := false
	fs.Visit(func(f *flag.Flag) { stackGiven = stackGiven || f.Name == "stack" })
	target, err := secretTarget(spec, *param, *stack, stackGiven)
	if err != nil {
		return err
	}
	v, err := readSecretValue(spec, stderr)
	if err != nil {
		return err
	}
	if err := spec.Check(v); err != nil {
		return err
	}
	cfg, err := awsconfig.Load(ctx, nil)
	if err != nil {
		return err
	}
	version, err := ssmparam.PutSecret(ctx, ssm.NewFromConfig(cfg), target, v, *keyID)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "secret %s written to %s (SecureString, version %d); the functions use it within %s\n",
		spec.Name, target, version, ssmparam.DefaultSecretsTTL)
	secretNextStep(stdout, spec, v)
	return nil
}

// secretTarget is the parameter a secret is written to: --parameter, or
// the stack's /zero/<stack>/secrets/<name>; never both.
func secretTarget(spec secret.Spec, param, stack string, stackGiven bool) (string, error) {
	switch {
	case param != "" && stackGiven:
		return "", errors.New("pass --stack or --parameter, not both")
	case param != "":
		return param, nil
	case stack == "":
		return "", fmt.Errorf("which stack? pass --stack STACK or set %s (or --parameter PARAM)", stackEnv)
	}
	return secret.Parameter(stack, spec.Name), nil
}

// secretNextStep says what else a new value of spec needs, if anything.
func secretNextStep(stdout io.Writer, spec secret.Spec, v string) {
	switch spec.Name {
	case secret.TelegramBotToken.Name:
		fmt.Fprintf(stdout, "bot id %s: the stack parameter TelegramBotId must be the same\n", secret.BotID(v))
	case secret.TelegramWebhookSecret.Name:
		fmt.Fprintln(stdout, "now tell Telegram: zero telegram set-webhook --url <WebhookURL> (with the same secret)")
	}
}

// readSecretValue reads the value from stdin: on a terminal with a prompt
// and without echo, else all of it, without the trailing newline.
func readSecretValue(spec secret.Spec, stderr io.Writer) (string, error) {
	if secretInput.terminal() {
		fmt.Fprintf(stderr, "%s (input hidden): ", spec.Name)
		b, err := secretInput.readHidden()
		fmt.Fprintln(stderr)
		if err != nil {
			return "", fmt.Errorf("read %s: %w", spec.Name, err)
		}
		return string(b), nil
	}
	b, err := io.ReadAll(io.LimitReader(secretInput.r, maxSecretBytes+1))
	if err != nil {
		return "", fmt.Errorf("read %s from stdin: %w", spec.Name, err)
	}
	if len(b) > maxSecretBytes {
		return "", fmt.Errorf("secret %s: more than %d bytes on stdin", spec.Name, maxSecretBytes)
	}
	b = bytes.TrimSuffix(b, []byte("\n"))
	b = bytes.TrimSuffix(b, []byte("\r"))
	if len(b) == 0 {
		return "", fmt.Errorf("secret %s: nothing on stdin (pipe the value in, e.g. from a password manager)", spec.Name)
	}
	return string(b), nil
}

func runSecretsList(ctx context.Context, args []string, stdout, stderr io.Writer, usage func()) error {
	fs := flag.NewFlagSet("zero secrets list", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = usage
	stack := fs.String("stack", os.Getenv(stackEnv), "the stack (default $"+stackEnv+")")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *stack == "" {
		return fmt.Errorf("which stack? pass --stack STACK or set %s", stackEnv)
	}
	cfg, err := awsconfig.Load(ctx, nil)
	if err != nil {
		return err
	}
	in := &ssm.GetParametersInput{WithDecryption: aws.Bool(false)} // metadata only: no value is decrypted
	for _, s := range secret.All() {
		in.Names = append(in.Names, secret.Parameter(*stack, s.Name))
	}
	out, err := ssm.NewFromConfig(cfg).GetParameters(ctx, in)
	if err != nil {
		return fmt.Errorf("list secrets of %s: %w", *stack, err)
	}
	w := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "SECRET\tSTATE\tVERSION\tCHANGED\tPARAMETER")
	for _, s := range secret.All() {
		p := secret.Parameter(*stack, s.Name)
		state, version, changed := "not set", "-", "-"
		if !s.Optional {
			state = "NOT SET (required)"
		}
		for _, got := range out.Parameters {
			if aws.ToString(got.Name) == p {
				state, version = "set", fmt.Sprint(got.Version)
				if string(got.Type) != "SecureString" {
					state = "set, NOT a SecureString"
				}
				if got.LastModifiedDate != nil {
					changed = got.LastModifiedDate.UTC().Format(time.RFC3339)
				}
			}
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", s.Name, state, version, changed, p)
	}
	return w.Flush()
}
