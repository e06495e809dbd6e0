package devstack

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/zero-gateway/zero/shared/telegram/telegramtest"
)

// browserPath finds Chromium (installed by `make deps`).
func browserPath() (string, error) {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("no chromium, chromium-browser or google-chrome on PATH")
}

// browser starts headless Chromium; a missing browser fails the test
// (CI installs it with `make deps`).
func browser(t *testing.T) context.Context {
	t.Helper()
	path, err := browserPath()
	need(t, "Chromium", err)
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.NoSandbox,
		chromedp.WindowSize(1200, 900), chromedp.Flag("disable-dev-shm-usage", true))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(actx)
	ctx, cancelTimeout := context.WithTimeout(ctx, 4*time.Minute)
	t.Cleanup(func() { cancelTimeout(); cancelCtx(); cancelAlloc() })
	return ctx
}

// page drives the control page in one browser tab.
type page struct {
	t     *testing.T
	ctx   context.Context
	base  string // the front's URL
	shots string // where screenshots go
}

func (p *page) run(what string, steps ...chromedp.Action[chromedp.Void]) {
	p.t.Helper()
	if err := chromedp.Do(p.ctx, steps...); err != nil {
		p.t.Fatalf("%s: %v", what, err)
	}
}

// text is the innerText of the first element matching sel ("" if none).
func (p *page) text(sel string) string {
	p.t.Helper()
	q, _ := json.Marshal(sel)
	return eval[string](p, fmt.Sprintf(`(document.querySelector(%s)||{}).innerText||''`, q))
}

// eval evaluates a JavaScript expression in the page.
func eval[T any](p *page, expr string) T {
	p.t.Helper()
	v, err := chromedp.Run(p.ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		p.t.Fatalf("evaluate %s: %v", expr, err)
	}
	return v
}

// waitText waits until sel's text contains want.
func (p *page) waitText(sel, want string, timeout time.Duration) string {
	p.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		got := p.text(sel)
		if strings.Contains(got, want) {
			return got
		}
		if time.Now().After(deadline) {
			p.shot("failed")
			alerts := eval[string](p, `Array.from(document.querySelectorAll('[role=alert]'), (e) => e.innerText).join(' | ')`)
			p.t.Fatalf("%s: %q never appeared; text is %q (alerts: %q)", sel, want, got, alerts)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// open loads the page at a route (a fresh load: the token survives in
// the tab's sessionStorage) and checks no URL carries the token.
func (p *page) open(route string) {
	p.t.Helper()
	p.run("open "+route, chromedp.Navigate(p.base+"/"+route))
	loc, err := chromedp.Run(p.ctx, chromedp.Location())
	if err != nil {
		p.t.Fatalf("location: %v", err)
	}
	if strings.Contains(loc, e2eGatewayToken) {
		p.t.Fatalf("the token is in the URL %s", loc)
	}
}

// shot writes a full-page screenshot as a test artefact.
func (p *page) shot(name string) {
	p.t.Helper()
	png, err := chromedp.Run(p.ctx, chromedp.FullScreenshot(100))
	if err != nil {
		p.t.Logf("screenshot %s: %v", name, err)
		return
	}
	file := filepath.Join(p.shots, name+".png")
	if err := os.WriteFile(file, png, 0o644); err != nil {
		p.t.Logf("screenshot %s: %v", name, err)
		return
	}
	p.t.Logf("screenshot: %s", file)
}

// TestControlPage drives the control page in headless Chromium against
// the local stack: sign-in, sessions, a transcript with a tool call,
// WebChat, a run's events, cron, config errors and status. Screenshots of
// each page go to build/webui-screenshots.
func TestControlPage(t *testing.T) {
	ctx := browser(t)
	logs := &capture{}
	st := webuiStack(t, logs)
	t.Cleanup(func() {
		if !strings.Contains(logs.String(), "turn done") {
			t.Errorf("the functions' logs were not captured; the token check saw nothing")
		}
		if strings.Contains(logs.String(), e2eGatewayToken) {
			t.Errorf("the gateway token is in the functions' logs")
		}
	})
	shots := filepath.Join(repoRoot(t), "build", "webui-screenshots")
	if err := os.MkdirAll(shots, 0o755); err != nil {
		t.Fatal(err)
	}
	p := &page{t: t, ctx: ctx, base: st.FrontURL, shots: shots}

	// A Telegram chat whose turn calls a tool (sessions_send to a session
	// that does not exist): the sessions list and the transcript show it.
	chatSay(t, st, 9101, 777001, `send {"sessionKey":"agent:main:nobody","message":"hi","timeoutSeconds":0}`)
	telegramKey := waitSession(t, st, "telegram")
	// Two more turns, then /compact: a compaction marker in the transcript.
	chatSay(t, st, 9102, 777001, "one more")
	chatSay(t, st, 9103, 777001, "and another")
	chatSay(t, st, 9104, 777001, "/compact")

	t.Run("headers", func(t *testing.T) { checkPageHeaders(t, st.FrontURL) })
	t.Run("sign in", func(t *testing.T) {
		p.open("")
		p.run("wrong token", chromedp.WaitVisible(chromedp.ID("token")),
			chromedp.SendKeys(chromedp.ID("token"), "wrong-token-wrong-token-wrong-token"), chromedp.Click(chromedp.ID("signin")))
		p.waitText("#signin-error", "Wrong token", 10*time.Second)
		p.shot("signin-refused")
		p.run("right token", chromedp.SetValue(chromedp.ID("token"), e2eGatewayToken), chromedp.Click(chromedp.ID("signin")))
		p.waitText("#sessions", telegramKey, 20*time.Second)
	})
	t.Run("sessions", func(t *testing.T) {
		p.open("#/sessions")
		got := p.waitText("#sessions", telegramKey, 20*time.Second)
		if !strings.Contains(got, "telegram") {
			t.Fatalf("sessions list %q; want the Telegram session's channel", got)
		}
		p.shot("sessions")
		p.run("phone size", chromedp.EmulateViewport(390, 844))
		p.shot("sessions-phone")
		p.run("desktop size", chromedp.EmulateViewport(1200, 900))
	})
	t.Run("transcript renders the tool call and the compaction", func(t *testing.T) {
		for deadline := time.Now().Add(60 * time.Second); ; {
			p.open("#/transcript/" + url.PathEscape(telegramKey))
			p.waitText("#messages", "Turn", 10*time.Second)
			if strings.Contains(p.text("#messages"), "Compaction") {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("no compaction marker in %q", p.text("#messages"))
			}
			time.Sleep(time.Second)
		}
		p.waitText("#messages", "Tool call: sessions_send", 20*time.Second)
		p.waitText("#messages", "Tool result: sessions_send", 5*time.Second)
		p.waitText("#messages", "tool said:", 5*time.Second)
		p.shot("transcript")
	})
	var runID string
	t.Run("webchat", func(t *testing.T) {
		p.open("#/chat")
		msg := "hello <script>window.pwned=1</script> **bold**"
		p.run("send", chromedp.WaitVisible(chromedp.ID("chat-input")), chromedp.SendKeys(chromedp.ID("chat-input"), msg),
			chromedp.Click(chromedp.ID("chat-send")))
		p.waitText("#chat-state", ": ok", 60*time.Second)
		log := p.waitText("#chat-log", "reply to: hello <script>window.pwned=1</script>", 10*time.Second)
		scripts := eval[int](p, `document.querySelectorAll('#chat-log script').length`)
		strongs := eval[int](p, `document.querySelectorAll('#chat-log strong').length`)
		pwned := eval[bool](p, `window.pwned === 1`)
		runID = eval[string](p, `JSON.parse(sessionStorage.getItem('zero.runs'))[0].runId`)
		if scripts != 0 || pwned {
			t.Fatalf("model output ran as markup: %d script elements, pwned %v; log %q", scripts, pwned, log)
		}
		if strongs == 0 {
			t.Fatalf("no Markdown bold rendered in %q", log)
		}
		if steps := p.text("#chat-steps"); !strings.Contains(steps, "lifecycle") {
			t.Fatalf("run steps %q; want the lifecycle events", steps)
		}
		p.shot("webchat")
		// A real channel: the session records WebChat as its channel.
		_, out := rpc(t, st, e2eGatewayToken, "sessions.list", map[string]any{})
		if rows := fmt.Sprint(result(t, out)["sessions"]); !strings.Contains(rows, "channel:webchat") {
			t.Fatalf("sessions %s; want the main session on channel webchat", rows)
		}
	})
	t.Run("runs", func(t *testing.T) {
		if runID == "" {
			t.Fatal("no run from WebChat to follow (the webchat step failed)")
		}
		// The session's runs (sessions.runs) list WebChat's run with its
		// status; its link opens the live view.
		p.open("#/runs//main")
		p.waitText("#session-runs", runID, 20*time.Second)
		p.waitText("#session-runs", "ok", 5*time.Second)
		p.run("open run", chromedp.Click(chromedp.Search(`//*[@id="session-runs"]//a[text()="`+runID+`"]`)))
		p.waitText("#steps", "lifecycle · end", 20*time.Second)
		p.shot("runs")
	})
	t.Run("cron", func(t *testing.T) {
		p.open("#/cron")
		p.addJob("webui job", "every", "")
		p.run("run now", chromedp.Click(chromedp.Search(jobButton("webui job", "Run now"))))
		p.waitText("#cron-out", "queued", 20*time.Second)
		p.waitHistory("webui job", "reply to: cron says hi")
		// A one-shot job a few seconds ahead: the local stack's scheduler
		// fires it and its run appears in its history.
		p.addJob("webui at job", "at", time.Now().Add(6*time.Second).Format("2006-01-02T15:04:05"))
		p.waitHistory("webui at job", "reply to: cron says hi")
		p.shot("cron")
	})
	t.Run("config shows the error at its key", func(t *testing.T) {
		p.open("#/config")
		p.run("bad config", chromedp.WaitVisible(chromedp.ID("config-raw")),
			chromedp.SetValue(chromedp.ID("config-raw"), `{session: {dmScope: "sideways"}}`), chromedp.Click(chromedp.ID("config-save")))
		p.waitText("#config-out", "dmScope", 20*time.Second)
		p.waitText("tr.hit", "session.dmScope", 5*time.Second) // the error's key, highlighted in the key table
		p.shot("config")
	})
	t.Run("status", func(t *testing.T) {
		p.open("#/status")
		p.waitText("#status", "reachable", 20*time.Second)
		p.waitText("#status", "work: 0 waiting", 10*time.Second) // the DLQs' depth
		p.waitText("#status", "subagent: 0 waiting", 5*time.Second)
		p.shot("status")
	})
}

// addJob adds a cron job through the page's form: kind "every" keeps the
// form's default hour, kind "at" fires at the local time at.
func (p *page) addJob(name, kind, at string) {
	p.t.Helper()
	steps := []chromedp.Action[chromedp.Void]{chromedp.WaitVisible(chromedp.ID("cron-name")),
		chromedp.SetValue(chromedp.ID("cron-name"), name), chromedp.SetValue(chromedp.ID("cron-kind"), kind),
		chromedp.SetValue(chromedp.ID("cron-message"), "cron says hi")}
	if at != "" {
		steps = append(steps, chromedp.WaitVisible(chromedp.ID("cron-at")), chromedp.SetValue(chromedp.ID("cron-at"), at))
	}
	steps = append(steps, chromedp.Click(chromedp.ID("cron-save")))
	// The form re-renders as its kind changes: a node found a moment
	// before may be gone when its value is set ("could not set value on
	// node"). Filling it again is harmless; the page is only slow.
	var err error
	for try := 0; try < 3; try++ {
		if err = chromedp.Do(p.ctx, steps...); err == nil {
			break
		}
		time.Sleep(300 * time.Millisecond)
	}
	if err != nil {
		p.t.Fatalf("add %s: %v", name, err)
	}
	p.waitText("#cron-jobs", name, 20*time.Second)
}

// jobButton is the XPath of a button in a cron job's row.
func jobButton(job, label string) string {
	return fmt.Sprintf(`//table[@id="cron-jobs"]//tr[.//strong[text()=%q]]//button[text()=%q]`, job, label)
}

// waitHistory shows a job's history until it contains want.
func (p *page) waitHistory(job, want string) {
	p.t.Helper()
	deadline := time.Now().Add(45 * time.Second)
	for {
		p.run("history of "+job, chromedp.Click(chromedp.Search(jobButton(job, "History"))))
		time.Sleep(500 * time.Millisecond)
		got := p.text("#cron-history")
		if strings.Contains(got, "History of "+job) && strings.Contains(got, want) {
			return
		}
		if time.Now().After(deadline) {
			p.shot("failed")
			p.t.Fatalf("history of %s never showed %q: %q", job, want, got)
		}
		time.Sleep(time.Second)
	}
}

// capture keeps the functions' output, to check what they log.
type capture struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (c *capture) Write(b []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.buf.Write(b)
}

func (c *capture) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.buf.String()
}

// webuiStack is the a2a tests' stack (a scripted model that calls tools)
// with the functions' output kept in logs.
func webuiStack(t *testing.T, logs *capture) *Stack {
	need(t, "AWS emulator", emuErr)
	needRIE(t)
	tg := telegramtest.New(t, e2eToken)
	m := newA2AModel(t, 0)
	return startStack(t, withOutput(modelStackOptions(t, "webui", tg.URL, m.URL, a2aConfig), logs))
}

// waitSession waits for a session on channel and returns its key.
func waitSession(t *testing.T, st *Stack, channel string) string {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		_, out := rpc(t, st, e2eGatewayToken, "sessions.list", map[string]any{})
		rows, _ := result(t, out)["sessions"].([]any)
		for _, r := range rows {
			row := r.(map[string]any)
			if row["channel"] == channel && row["totalTokens"] != nil {
				if key, _ := row["key"].(string); key != "" {
					return key
				}
			}
		}
		time.Sleep(500 * time.Millisecond)
	}
	t.Fatalf("no %s session appeared", channel)
	return ""
}

// checkPageHeaders checks the page's headers through the front (so the
// template's GET routes reach the gateway).
func checkPageHeaders(t *testing.T, base string) {
	tests := []struct {
		name, path string
		wantStatus int
		wantCache  string
	}{
		{name: "index", path: "/", wantStatus: 200, wantCache: "no-cache"},
		{name: "unknown asset", path: "/assets/0/app.js", wantStatus: 404, wantCache: "no-store"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp, err := http.Get(base + tc.path)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tc.wantStatus || resp.Header.Get("Cache-Control") != tc.wantCache {
				t.Fatalf("GET %s: %d, Cache-Control %q; want %d, %q", tc.path, resp.StatusCode, resp.Header.Get("Cache-Control"), tc.wantStatus, tc.wantCache)
			}
			if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "frame-ancestors 'none'") {
				t.Fatalf("GET %s: CSP %q", tc.path, csp)
			}
		})
	}
}
