package devstack

import (
	"bufio"
	"context"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestZeroDevBannerAndAgent starts the local stack the way `make dev`
// does (the built zero binary running `zero dev`, here on the tests'
// emulator and free ports), reads everything it prints until it is
// ready, and checks the banner is short and tells the token, the control
// page and the next steps; then `zero agent --message hi` against it
// prints the reply.
func TestZeroDevBannerAndAgent(t *testing.T) {
	need(t, "AWS emulator", emuErr)
	root := repoRoot(t)
	bin := filepath.Join(t.TempDir(), "zero")
	if out, err := exec.Command("go", "build", "-o", bin, "..").CombinedOutput(); err != nil {
		t.Fatalf("build zero: %v\n%s", err, out)
	}
	emu, err := url.Parse(os.Getenv("AWS_ENDPOINT_URL"))
	if err != nil || emu.Host == "" {
		t.Fatalf("AWS_ENDPOINT_URL %q: %v", os.Getenv("AWS_ENDPOINT_URL"), err)
	}
	prefix := uniquePrefix(t, "dev")
	t.Cleanup(func() { os.RemoveAll(filepath.Join(root, "build", "dev", prefix)) })
	ctx, cancel := context.WithTimeout(context.Background(), 12*time.Minute)
	defer cancel()
	dev := exec.CommandContext(ctx, bin, "dev", "-root", root, "-addr", freeLocalAddr(t), "-emulator", emu.Host, "-prefix", prefix, "-poll-wait", "1s")
	home := t.TempDir() // no ~/.zero/zero.json: the local config
	dev.Env = append(os.Environ(), "HOME="+home, "ZERO_CONFIG=", "OPENAI_API_KEY=", "ZERO_MODEL=", "TELEGRAM_BOT_TOKEN=", "TELEGRAM_API_BASE_URL=")
	out, err := dev.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	dev.Stderr = dev.Stdout // one stream, in the order printed, as a terminal shows it
	if err := dev.Start(); err != nil {
		t.Fatal(err)
	}
	stopped := make(chan error, 1)
	t.Cleanup(func() {
		dev.Process.Signal(syscall.SIGINT)
		select {
		case <-stopped:
		case <-time.After(30 * time.Second):
			dev.Process.Kill()
		}
	})
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
		stopped <- dev.Wait()
	}()
	var printed []string
	for ready := false; !ready; {
		select {
		case line, ok := <-lines:
			if !ok {
				t.Fatalf("zero dev ended before it was ready:\n%s", strings.Join(printed, "\n"))
			}
			printed = append(printed, line)
			ready = line == "Ctrl-C stops everything."
		case <-ctx.Done():
			t.Fatalf("zero dev not ready in time:\n%s", strings.Join(printed, "\n"))
		}
	}
	go func() { // keep draining: a full pipe would block zero dev
		for range lines {
		}
	}()
	text := strings.Join(printed, "\n")
	t.Logf("zero dev printed %d lines until ready:\n%s", len(printed), text)
	if len(printed) > 25 {
		t.Errorf("zero dev printed %d lines until ready; want at most 25", len(printed))
	}
	for _, want := range []string{"ZERO is running locally (model zero/echo)", "control page", "template resources are not emulated locally",
		"1. bin/zero chat", "2. curl -sS -X POST", "/webhooks/telegram", "3. open http://"} {
		if !strings.Contains(text, want) {
			t.Errorf("zero dev's output lacks %q", want)
		}
	}
	if strings.Contains(text, "skip ") {
		t.Errorf("zero dev printed the skipped resources one by one")
	}
	m := regexp.MustCompile(`gateway\s+(\S+)/rpc\s+token (\S+)`).FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("no gateway URL and token in the banner")
	}
	agent := exec.Command(bin, "agent", "--message", "hi", "--timeout", "90s")
	agent.Env = append(os.Environ(), "ZERO_GATEWAY_URL="+m[1], "ZERO_GATEWAY_TOKEN="+m[2])
	reply, err := agent.Output()
	if err != nil || string(reply) != "echo: hi\n" {
		t.Fatalf("zero agent --message hi = %q, %v; want the reply printed", reply, err)
	}
}

// freeLocalAddr is a local TCP address nothing listens on.
func freeLocalAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}
