package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/ssm"

	"github.com/zero-gateway/zero/shared/awsconfig"
	"github.com/zero-gateway/zero/shared/config"
	"github.com/zero-gateway/zero/shared/ssmparam"
)

// configEnv names the zero.json that `zero dev` runs with and that
// `zero config` checks or pushes when no FILE is given.
const configEnv = "ZERO_CONFIG"

// devConfigNotice is what `zero dev` says when it runs with config.DevJSON.
const devConfigNotice = "no zero.json: using a local config that admits everyone on every channel — do not deploy it"

// configLocation is where zero.json is: path is $ZERO_CONFIG, else
// ~/.zero/zero.json; exists tells whether that file is there. A set
// ZERO_CONFIG must name an existing file; a missing default file means
// "no zero.json" (path stays set, so it can be watched for).
type configLocation struct {
	path   string
	exists bool
}

// findConfig resolves the zero.json location from the environment.
func findConfig(getenv func(string) string) (configLocation, error) {
	if p := getenv(configEnv); p != "" {
		if _, err := os.Stat(p); err != nil {
			return configLocation{}, fmt.Errorf("%s=%s: %w", configEnv, p, err)
		}
		return configLocation{path: p, exists: true}, nil
	}
	home := getenv("HOME")
	if home == "" {
		return configLocation{}, nil // nowhere to look: no zero.json
	}
	p := filepath.Join(home, ".zero", "zero.json")
	switch _, err := os.Stat(p); {
	case err == nil:
		return configLocation{path: p, exists: true}, nil
	case errors.Is(err, fs.ErrNotExist):
		return configLocation{path: p}, nil
	default:
		return configLocation{}, fmt.Errorf("config %s: %w", p, err)
	}
}

// readConfig reads and validates the zero.json at path. The error names
// the file and, for an invalid document, the offending key.
func readConfig(path string) ([]byte, *config.Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("read config: %w", err)
	}
	cfg, err := config.Parse(data)
	if err != nil {
		return nil, nil, fmt.Errorf("config %s: %w", path, err)
	}
	return data, cfg, nil
}

// storable is data as it is written to SSM, which refuses an empty value:
// an empty (or blank) document means the defaults, and so does "{}".
func storable(data []byte) []byte {
	if len(bytes.TrimSpace(data)) == 0 {
		return []byte("{}")
	}
	return data
}

// parseArgs parses flags wherever they are among args, so that
// "push FILE --parameter NAME" works as well as "push --parameter NAME FILE",
// and returns the other arguments.
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	var rest []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return rest, nil
		}
		rest = append(rest, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

// configFileArg is the FILE argument of `zero config check|push`, or the
// zero.json found like `zero dev` finds it ("" when there is none).
func configFileArg(fs *flag.FlagSet, args []string) (string, error) {
	switch len(args) {
	case 0:
		loc, err := findConfig(os.Getenv)
		if err != nil {
			return "", err
		}
		if !loc.exists {
			return "", nil
		}
		return loc.path, nil
	case 1:
		return args[0], nil
	}
	fs.Usage()
	return "", fmt.Errorf("%s takes at most one FILE, got %q", fs.Name(), args)
}

func runConfig(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return dispatch(ctx, "config", args, stdout, stderr, []string{
		"usage: zero config check [FILE]",
		"       zero config push --parameter NAME [FILE]",
		"",
		"check validates zero.json (JSON5) and lists its warnings; it fails naming the",
		"offending key. push validates it, then writes it to the deployed stack's SSM",
		"parameter (/zero/<stack>/config) with the default AWS configuration; the functions",
		"apply it within their config TTL, without a redeploy.",
		"",
		"FILE defaults to $" + configEnv + ", else ~/.zero/zero.json.",
	}, map[string]subcommand{
		"check": func(_ context.Context, args []string, stdout, stderr io.Writer) error {
			return runConfigCheck(args, stdout, stderr)
		},
		"push": runConfigPush,
	})
}

func runConfigCheck(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("zero config check", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: zero config check [FILE]")
		fmt.Fprintln(stderr)
		fmt.Fprintf(stderr, "Validates zero.json and lists its warnings. FILE defaults to $%s, else ~/.zero/zero.json.\n", configEnv)
	}
	files, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	path, err := configFileArg(fs, files)
	if err != nil {
		return err
	}
	if path == "" {
		// What zero dev would run with; checking it keeps DevJSON honest.
		if _, err := config.Parse([]byte(config.DevJSON)); err != nil {
			return fmt.Errorf("the built-in local config: %w", err)
		}
		fmt.Fprintf(stdout, "%s (ZERO_CONFIG is unset and ~/.zero/zero.json does not exist)\n", devConfigNotice)
		return nil
	}
	_, cfg, err := readConfig(path)
	if err != nil {
		return err
	}
	printWarnings(stderr, path, cfg)
	fmt.Fprintf(stdout, "%s: valid (%d warnings)\n", path, len(cfg.Warnings()))
	return nil
}

func runConfigPush(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("zero config push", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: zero config push --parameter NAME [FILE]")
		fmt.Fprintln(stderr)
		fmt.Fprintln(stderr, "Validates zero.json, then writes it to the SSM parameter NAME (the stack's")
		fmt.Fprintln(stderr, "/zero/<stack>/config) with the default AWS configuration (AWS_PROFILE, AWS_REGION, ...).")
		fmt.Fprintf(stderr, "FILE defaults to $%s, else ~/.zero/zero.json.\n\n", configEnv)
		fs.PrintDefaults()
	}
	name := fs.String("parameter", "", "SSM parameter name, e.g. /zero/<stack>/config (required)")
	files, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if *name == "" {
		fs.Usage()
		return errors.New("config push: --parameter is required")
	}
	path, err := configFileArg(fs, files)
	if err != nil {
		return err
	}
	if path == "" {
		// Never fall back to DevJSON here: it admits everyone.
		return fmt.Errorf("no zero.json to push: give FILE, set %s or create ~/.zero/zero.json", configEnv)
	}
	data, cfg, err := readConfig(path)
	if err != nil {
		return err
	}
	printWarnings(stderr, path, cfg)
	awsCfg, err := awsconfig.Load(ctx, nil)
	if err != nil {
		return err
	}
	version, err := ssmparam.New(ssm.NewFromConfig(awsCfg), *name).Put(ctx, storable(data))
	if err != nil {
		return fmt.Errorf("push %s: %w", path, err)
	}
	fmt.Fprintf(stdout, "pushed %s to %s: version %s (the functions apply it within their config TTL)\n", path, *name, version)
	return nil
}

func printWarnings(w io.Writer, path string, cfg *config.Config) {
	for _, warning := range cfg.Warnings() {
		fmt.Fprintf(w, "warning: %s: %s\n", path, warning)
	}
}

// devConfig is the zero.json `zero dev` starts with.
type devConfig struct {
	loc  configLocation
	data []byte
	cfg  *config.Config
	// stamp is the file's state before it was read: the watcher's start.
	stamp fileStamp
}

// loadDevConfig finds and validates the config of `zero dev`: the file
// findConfig names, else config.DevJSON. An invalid file is an error.
func loadDevConfig(getenv func(string) string) (devConfig, error) {
	loc, err := findConfig(getenv)
	if err != nil {
		return devConfig{}, err
	}
	if !loc.exists {
		cfg, err := config.Parse([]byte(config.DevJSON))
		if err != nil {
			return devConfig{}, fmt.Errorf("the built-in local config: %w", err)
		}
		return devConfig{loc: loc, data: []byte(config.DevJSON), cfg: cfg}, nil
	}
	stamp := stampOf(loc.path)
	data, cfg, err := readConfig(loc.path)
	if err != nil {
		return devConfig{}, err
	}
	return devConfig{loc: loc, data: data, cfg: cfg, stamp: stamp}, nil
}

// fileStamp is what the watcher compares to notice an edit.
type fileStamp struct {
	exists  bool
	modTime time.Time
	size    int64
}

func stampOf(path string) fileStamp {
	fi, err := os.Stat(path)
	if err != nil {
		return fileStamp{}
	}
	return fileStamp{exists: true, modTime: fi.ModTime(), size: fi.Size()}
}

// configWatcher polls zero.json and applies valid edits to the running
// stack. Polling (mtime and size) rather than inotify: it needs nothing
// and sees editors that replace the file by renaming.
type configWatcher struct {
	path string
	// apply writes a validated document to the stack and returns the new
	// parameter version.
	apply func(ctx context.Context, data []byte) (version string, err error)
	logf  func(format string, args ...any)
	last  fileStamp
}

// newConfigWatcher watches path; applied is the state of the file that
// the stack already runs with (the zero fileStamp when it did not exist).
func newConfigWatcher(path string, applied fileStamp, apply func(context.Context, []byte) (string, error), logf func(string, ...any)) *configWatcher {
	return &configWatcher{path: path, apply: apply, logf: logf, last: applied}
}

// run polls every interval until ctx ends.
func (w *configWatcher) run(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			w.check(ctx)
		}
	}
}

// check looks at the file once. A changed, valid file is applied; an
// invalid one is reported once and the stack keeps the last good config;
// a removed file also keeps it. A failed write is retried on the next check.
func (w *configWatcher) check(ctx context.Context) {
	now := stampOf(w.path)
	if now == w.last {
		return
	}
	if !now.exists {
		w.last = now
		w.logf("config %s was removed; still using the last one loaded", w.path)
		return
	}
	data, cfg, err := readConfig(w.path)
	if err != nil {
		w.last = now // report a bad edit once, not on every poll
		w.logf("%v; still using the previous config", err)
		return
	}
	for _, warning := range cfg.Warnings() {
		w.logf("config warning: %s", warning)
	}
	version, err := w.apply(ctx, storable(data))
	if err != nil {
		w.logf("config %s: %v; will retry", w.path, err)
		return
	}
	w.last = now
	w.logf("config reloaded from %s (parameter version %s)", w.path, version)
}
