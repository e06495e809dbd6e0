package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/ssm"

	"github.com/zero-gateway/zero/shared/awsconfig"
	"github.com/zero-gateway/zero/shared/awstest"
	"github.com/zero-gateway/zero/shared/config"
	"github.com/zero-gateway/zero/shared/ssmparam"
)

const (
	validConfig = `{
  // a comment, as JSON5 allows
  channels: {telegram: {allowFrom: ["42"]}},
  notAKey: true,
}`
	// invalidConfig must fail naming session.dmScope.
	invalidConfig = `{session: {dmScope: "nope"}}`
)

// writeFile writes content to name in a fresh directory and returns its path.
func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// isolateConfig points ZERO_CONFIG and HOME at nothing, so no test reads
// the developer's own ~/.zero/zero.json.
func isolateConfig(t *testing.T) (home string) {
	t.Helper()
	home = t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv(configEnv, "")
	return home
}

func TestConfigCheck(t *testing.T) {
	valid := writeFile(t, "zero.json", validConfig)
	invalid := writeFile(t, "bad.json", invalidConfig)
	syntax := writeFile(t, "syntax.json", `{channels: `)
	shared := writeFile(t, "shared.json", `{channels: {telegram: {allowFrom: ["42", "43"]}}}`)
	tests := []struct {
		name       string
		args       []string
		env        string // ZERO_CONFIG
		wantErr    string
		wantStdout string
		wantStderr string
	}{
		{name: "valid file", args: []string{valid}, wantStdout: valid + ": valid (1 warnings)", wantStderr: "warning: " + valid + ": notAKey: unknown key"},
		{name: "several senders sharing the main session", args: []string{shared}, wantStdout: shared + ": valid (1 warnings)",
			wantStderr: `warning: ` + shared + `: session.dmScope: "main" while allowFrom admits 2 senders`},
		{name: "invalid names the key", args: []string{invalid}, wantErr: "session.dmScope"},
		{name: "invalid names the file", args: []string{invalid}, wantErr: invalid},
		{name: "syntax error", args: []string{syntax}, wantErr: "syntax"},
		{name: "missing file", args: []string{filepath.Join(t.TempDir(), "none.json")}, wantErr: "no such file"},
		{name: "two files", args: []string{valid, valid}, wantErr: "at most one FILE"},
		{name: "FILE defaults to ZERO_CONFIG", env: invalid, wantErr: "session.dmScope"},
		{name: "ZERO_CONFIG naming nothing", env: "/nonexistent/zero.json", wantErr: "ZERO_CONFIG=/nonexistent/zero.json"},
		{name: "no zero.json at all: the local config", wantStdout: devConfigNotice},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			isolateConfig(t)
			t.Setenv(configEnv, tt.env)
			var stdout, stderr bytes.Buffer
			err := run(context.Background(), append([]string{"config", "check"}, tt.args...), &stdout, &stderr)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v; want it to contain %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("err = %v", err)
			}
			if !strings.Contains(stdout.String(), tt.wantStdout) {
				t.Errorf("stdout = %q; want %q", stdout.String(), tt.wantStdout)
			}
			if !strings.Contains(stderr.String(), tt.wantStderr) {
				t.Errorf("stderr = %q; want %q", stderr.String(), tt.wantStderr)
			}
		})
	}
}

func TestConfigCheckDefaultFile(t *testing.T) {
	home := isolateConfig(t)
	p := filepath.Join(home, ".zero", "zero.json")
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(validConfig), 0o600); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), []string{"config", "check"}, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout.String(), p+": valid") {
		t.Errorf("stdout = %q; want ~/.zero/zero.json checked", stdout.String())
	}
}

func TestConfigPush(t *testing.T) {
	isolateConfig(t)
	ctx := context.Background()
	awsCfg, err := awsconfig.Load(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	client := ssm.NewFromConfig(awsCfg)
	name := "/zero/" + awstest.Name("test-push-") + "/config"
	t.Cleanup(func() { client.DeleteParameter(context.Background(), &ssm.DeleteParameterInput{Name: &name}) })
	param := ssmparam.New(client, name)

	push := func(args ...string) (string, error) {
		var stdout, stderr bytes.Buffer
		err := run(ctx, append([]string{"config", "push"}, args...), &stdout, &stderr)
		return stdout.String(), err
	}
	valid := writeFile(t, "zero.json", validConfig)
	out, err := push("--parameter", name, valid)
	if err != nil {
		t.Fatalf("push: %v", err)
	}
	_, v1, err := param.Fetch(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "version "+v1) || !strings.Contains(out, name) {
		t.Errorf("push printed %q; want the parameter and its version %s", out, v1)
	}

	// An edit goes in as a new version; the functions notice the version.
	edited := writeFile(t, "zero.json", `{channels: {telegram: {allowFrom: ["43"]}}}`)
	if _, err := push(edited, "-parameter", name); err != nil { // flags may follow FILE
		t.Fatalf("second push: %v", err)
	}
	data, v2, err := param.Fetch(ctx)
	if err != nil || v2 == v1 || !strings.Contains(string(data), `"43"`) {
		t.Fatalf("after the second push: %q version %q (was %q), %v", data, v2, v1, err)
	}

	// An invalid file is refused before anything is written.
	if _, err := push("--parameter", name, writeFile(t, "bad.json", invalidConfig)); err == nil || !strings.Contains(err.Error(), "session.dmScope") {
		t.Fatalf("push of an invalid file: %v; want an error naming session.dmScope", err)
	}
	// An empty file is the defaults; SSM cannot store "", so "{}" is written.
	if _, err := push("--parameter", name, writeFile(t, "empty.json", "\n")); err != nil {
		t.Fatalf("push of an empty file: %v", err)
	}
	if data, _, err := param.Fetch(ctx); err != nil || string(data) != "{}" {
		t.Fatalf("after pushing an empty file the parameter holds %q, %v; want {}", data, err)
	}

	for _, tt := range []struct {
		name    string
		args    []string
		wantErr string
	}{
		{"no --parameter", []string{valid}, "--parameter is required"},
		{"no zero.json anywhere", []string{"--parameter", name}, "no zero.json to push"},
		{"two files", []string{"--parameter", name, valid, valid}, "at most one FILE"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := push(tt.args...); err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("err = %v; want %q", err, tt.wantErr)
			}
		})
	}
}

func TestConfigUsage(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), []string{"config"}, &stdout, &stderr); !errors.Is(err, flag.ErrHelp) {
		t.Errorf("zero config: err = %v; want flag.ErrHelp", err)
	}
	if err := run(context.Background(), []string{"config", "nope"}, &stdout, &stderr); err == nil || !strings.Contains(err.Error(), `unknown config command "nope"`) {
		t.Errorf("zero config nope: err = %v", err)
	}
	if !strings.Contains(stderr.String(), "zero config push --parameter NAME [FILE]") {
		t.Errorf("usage = %q", stderr.String())
	}
}

func TestLoadDevConfig(t *testing.T) {
	t.Run("no zero.json: the local config that admits everyone", func(t *testing.T) {
		home := isolateConfig(t)
		c, err := loadDevConfig(os.Getenv)
		if err != nil {
			t.Fatal(err)
		}
		if c.loc.exists || string(c.data) != config.DevJSON {
			t.Fatalf("got %+v; want config.DevJSON", c.loc)
		}
		// "Every channel" means every channel with senders: a Discord
		// slash command tried as a new user would must not be refused.
		for _, channel := range []string{"telegram", "discord"} {
			if !c.cfg.Admits(channel, "12345") || !c.cfg.IsOwner(channel, "12345") {
				t.Errorf("the local config does not admit a %s sender as the owner", channel)
			}
		}
		lines := strings.Join(describeDevConfig(c), "\n")
		if !strings.Contains(lines, devConfigNotice) || !strings.Contains(lines, filepath.Join(home, ".zero", "zero.json")) {
			t.Errorf("zero dev says %q; want the notice and where to put zero.json", lines)
		}
	})
	t.Run("ZERO_CONFIG", func(t *testing.T) {
		isolateConfig(t)
		p := writeFile(t, "mine.json5", validConfig)
		t.Setenv(configEnv, p)
		c, err := loadDevConfig(os.Getenv)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Join(describeDevConfig(c), "\n")
		if !strings.Contains(lines, "config: "+p) || !strings.Contains(lines, "config warning: notAKey") {
			t.Errorf("zero dev says %q; want the path and the warning", lines)
		}
		if c.stamp == (fileStamp{}) {
			t.Error("no stamp taken for the watcher")
		}
	})
	t.Run("invalid file stops zero dev", func(t *testing.T) {
		isolateConfig(t)
		t.Setenv(configEnv, writeFile(t, "zero.json", invalidConfig))
		if _, err := loadDevConfig(os.Getenv); err == nil || !strings.Contains(err.Error(), "session.dmScope") {
			t.Fatalf("err = %v; want one naming session.dmScope", err)
		}
	})
}

func TestConfigWatcher(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "zero.json")
	var (
		applied  []string
		logs     []string
		failNext bool
	)
	apply := func(_ context.Context, data []byte) (string, error) {
		if failNext {
			failNext = false
			return "", errors.New("emulator down")
		}
		applied = append(applied, string(data))
		return "7", nil
	}
	logf := func(format string, args ...any) { logs = append(logs, fmt.Sprintf(format, args...)) }
	// Started with no file (zero dev runs the local config).
	w := newConfigWatcher(path, fileStamp{}, apply, logf)
	ctx := context.Background()
	lastLog := func() string {
		if len(logs) == 0 {
			return ""
		}
		return logs[len(logs)-1]
	}

	w.check(ctx)
	if len(applied) != 0 || len(logs) != 0 {
		t.Fatalf("nothing changed, yet applied %q, logged %q", applied, logs)
	}

	write := func(content string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(validConfig) // the file appears
	w.check(ctx)
	if len(applied) != 1 || applied[0] != validConfig || !strings.Contains(lastLog(), "config reloaded") {
		t.Fatalf("a new valid file: applied %q, last log %q", applied, lastLog())
	}
	if !strings.Contains(strings.Join(logs, "\n"), "config warning: notAKey") {
		t.Errorf("warnings not shown: %q", logs)
	}

	write(invalidConfig)
	w.check(ctx)
	if len(applied) != 1 || !strings.Contains(lastLog(), "session.dmScope") || !strings.Contains(lastLog(), "still using the previous config") {
		t.Fatalf("an invalid edit: applied %q, last log %q", applied, lastLog())
	}
	n := len(logs)
	w.check(ctx)
	if len(logs) != n {
		t.Fatalf("an unchanged invalid file is reported again: %q", logs[n:])
	}

	failNext = true
	write(`{channels: {telegram: {allowFrom: ["1"]}}}`)
	w.check(ctx)
	if len(applied) != 1 || !strings.Contains(lastLog(), "will retry") {
		t.Fatalf("a failed write: applied %q, last log %q", applied, lastLog())
	}
	w.check(ctx)
	if len(applied) != 2 || !strings.Contains(lastLog(), "config reloaded") {
		t.Fatalf("the retry: applied %q, last log %q", applied, lastLog())
	}

	write("") // an empty file is the defaults, stored as {}
	w.check(ctx)
	if len(applied) != 3 || applied[2] != "{}" {
		t.Fatalf("an empty file: applied %q", applied)
	}

	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	w.check(ctx)
	if len(applied) != 3 || !strings.Contains(lastLog(), "removed") {
		t.Fatalf("a removed file: applied %q, last log %q", applied, lastLog())
	}
}
