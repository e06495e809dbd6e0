// Package rie runs Lambda function bootstraps locally under the AWS Lambda
// Runtime Interface Emulator: Build compiles a bootstrap as deployed (for
// the host), FindRIE locates the emulator, and a Pool keeps a fixed number
// of RIE processes per function, one invocation per process at a time,
// restarting a process that dies. Only Linux is supported (process groups,
// Pdeathsig, /proc).
package rie

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// RIEEnv names the aws-lambda-rie binary to use, ahead of ./bin and PATH.
const RIEEnv = "ZERO_RIE"

// FindRIE locates the aws-lambda-rie binary: $ZERO_RIE, then
// <root>/bin/aws-lambda-rie, then PATH.
func FindRIE(root string) (string, error) {
	if p := os.Getenv(RIEEnv); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("%s=%s: %w", RIEEnv, p, err)
		}
		return p, nil
	}
	local := filepath.Join(root, "bin", "aws-lambda-rie")
	if st, err := os.Stat(local); err == nil && !st.IsDir() {
		return filepath.Abs(local)
	}
	p, err := exec.LookPath("aws-lambda-rie")
	if err != nil {
		return "", fmt.Errorf("aws-lambda-rie not found (set %s, run `make deps`, or put it on PATH): %w", RIEEnv, err)
	}
	return p, nil
}

// FunctionError is an error reported by the function or its runtime: a
// returned error, a panic, a crash (Runtime.ExitError) or a timeout
// (Sandbox.Timedout). Lambda reports these as a failed invocation.
type FunctionError struct {
	Function string `json:"-"`
	Type     string `json:"errorType"`
	Message  string `json:"errorMessage"`
	// Payload is the raw error document.
	Payload []byte `json:"-"`
}

func (e *FunctionError) Error() string {
	return fmt.Sprintf("function %s failed: %s: %s", e.Function, e.Type, e.Message)
}

// parseInvokeResult interprets an RIE answer. The RIE answers 200 both for
// results and for errors the function returned ({"errorMessage",
// "errorType"}), 200 with a plain text for timeouts, and 502 with an error
// document when the runtime crashed. Any other status is the RIE's own failure.
func parseInvokeResult(function string, status int, body []byte) ([]byte, error) {
	switch status {
	case http.StatusOK:
		if bytes.HasPrefix(body, []byte("Task timed out after")) {
			return nil, &FunctionError{Function: function, Type: "Sandbox.Timedout", Message: string(body), Payload: body}
		}
		if fe := errorDocument(function, body); fe != nil {
			return nil, fe
		}
		return body, nil
	case http.StatusBadGateway:
		if fe := errorDocument(function, body); fe != nil {
			return nil, fe
		}
		return nil, &FunctionError{Function: function, Type: "Runtime.Unknown", Message: string(body), Payload: body}
	default:
		return nil, fmt.Errorf("RIE answered %d: %s", status, bytes.TrimSpace(body))
	}
}

// errorDocument recognises the runtime's error shape: an object with
// errorType and errorMessage and nothing but stackTrace/cause besides.
func errorDocument(function string, body []byte) *FunctionError {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return nil
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(trimmed, &doc); err != nil {
		return nil
	}
	if _, ok := doc["errorType"]; !ok {
		return nil
	}
	if _, ok := doc["errorMessage"]; !ok {
		return nil
	}
	for k := range doc {
		switch k {
		case "errorType", "errorMessage", "stackTrace", "cause", "requestId":
		default:
			return nil
		}
	}
	fe := &FunctionError{Function: function, Payload: body}
	_ = json.Unmarshal(trimmed, fe)
	return fe
}

// Config describes the RIE processes of one function.
type Config struct {
	// Function names the function in messages and output prefixes
	// ("[Function#slot] ").
	Function string
	// Bootstrap is the absolute path of the function's bootstrap.
	Bootstrap string
	// RIE is the aws-lambda-rie binary (see FindRIE).
	RIE string
	// Size is the number of processes (at least 1).
	Size int
	// Env is the complete environment of each RIE process, which passes
	// it on to the runtime.
	Env []string
	// Timeout is the function timeout; the RIE enforces it.
	Timeout time.Duration
	// Output receives the function's and the RIE's output, line-prefixed
	// (nil: discarded).
	Output io.Writer
	// Verbose keeps the RIE's START/END/REPORT and info lines.
	Verbose bool
	// Logf receives restarts and failures (nil: discarded).
	Logf func(string, ...any)
}

// Pool runs Size RIE processes for one function. One RIE process handles
// one invocation at a time (concurrent invocations crash it), so every
// process is handed to a single caller at a time through the idle channel.
type Pool struct {
	cfg    Config
	idle   chan *proc
	procs  []*proc
	client *http.Client

	ctx    context.Context // cancelled by close: aborts in-flight calls
	cancel context.CancelFunc

	mu       sync.Mutex
	closed   bool
	inflight sync.WaitGroup
}

// proc is one slot of the pool and the RIE process currently in it.
type proc struct {
	slot   int
	addr   string
	cmd    *exec.Cmd
	exited chan struct{}
}

// NewPool starts cfg.Size RIE processes and waits until each listens; ctx
// bounds the start only. On error the processes started are stopped.
func NewPool(ctx context.Context, cfg Config) (*Pool, error) {
	if cfg.Size < 1 {
		cfg.Size = 1
	}
	if cfg.Logf == nil {
		cfg.Logf = func(string, ...any) {}
	}
	pctx, cancel := context.WithCancel(context.Background())
	p := &Pool{
		cfg:    cfg,
		idle:   make(chan *proc, cfg.Size),
		client: &http.Client{},
		ctx:    pctx,
		cancel: cancel,
	}
	for i := 0; i < cfg.Size; i++ {
		pr := &proc{slot: i}
		if err := p.start(ctx, pr); err != nil {
			p.Close()
			return nil, err
		}
		p.procs = append(p.procs, pr)
		p.idle <- pr
	}
	return p, nil
}

// start launches an RIE process in pr's slot on fresh ports.
func (p *Pool) start(ctx context.Context, pr *proc) error {
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		addr, err := freeAddr()
		if err != nil {
			return err
		}
		apiAddr, err := freeAddr()
		if err != nil {
			return err
		}
		logLevel := "error"
		if p.cfg.Verbose {
			logLevel = "info"
		}
		cmd := exec.Command(p.cfg.RIE,
			"--log-level", logLevel,
			"--runtime-interface-emulator-address", addr,
			"--runtime-api-address", apiAddr,
			p.cfg.Bootstrap)
		cmd.Dir = filepath.Dir(p.cfg.Bootstrap)
		cmd.Env = p.cfg.Env
		w := newLineWriter(p.cfg.Output, fmt.Sprintf("[%s#%d] ", p.cfg.Function, pr.slot), p.cfg.Verbose)
		cmd.Stdout, cmd.Stderr = w, w
		// Own process group, killed with us (Pdeathsig) if we die first.
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
		// The runtime (a grandchild) shares the output pipe; do not wait
		// for it forever once the RIE itself has exited.
		cmd.WaitDelay = 2 * time.Second
		if err := cmd.Start(); err != nil {
			return fmt.Errorf("start %s for %s: %w", p.cfg.RIE, p.cfg.Function, err)
		}
		exited := make(chan struct{})
		go func() {
			_ = cmd.Wait()
			w.Flush()
			close(exited)
		}()
		pr.addr, pr.cmd, pr.exited = addr, cmd, exited
		if lastErr = waitListening(ctx, addr, exited, 10*time.Second); lastErr == nil {
			return nil
		}
		p.stopProc(pr)
	}
	return fmt.Errorf("RIE for %s did not start: %w", p.cfg.Function, lastErr)
}

func waitListening(ctx context.Context, addr string, exited <-chan struct{}, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for {
		conn, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
		if err == nil {
			conn.Close()
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("not listening on %s after %s", addr, limit)
		}
		select {
		case <-exited:
			return fmt.Errorf("exited before listening on %s", addr)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// Size is the number of RIE processes.
func (p *Pool) Size() int { return p.cfg.Size }

// Invoke runs one invocation on an idle process and returns the function's
// response. A failure the function reports (error, panic, crash, timeout)
// is a *FunctionError; anything else is the pool's own failure. If ctx
// ends first the caller gets ctx's error, but the process stays busy until
// the function finishes (or times out), as a Lambda execution environment
// would.
func (p *Pool) Invoke(ctx context.Context, payload []byte) ([]byte, error) {
	var pr *proc
	select {
	case pr = <-p.idle:
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-p.ctx.Done():
		return nil, fmt.Errorf("invoke %s: pool closed", p.cfg.Function)
	}
	type result struct {
		out []byte
		err error
	}
	ch := make(chan result, 1)
	// Add only while open, so that close's Wait sees every invocation.
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		p.idle <- pr
		return nil, fmt.Errorf("invoke %s: pool closed", p.cfg.Function)
	}
	p.inflight.Add(1)
	p.mu.Unlock()
	go func() {
		defer p.inflight.Done()
		out, err := p.call(pr, payload)
		p.release(pr)
		ch <- result{out, err}
	}()
	select {
	case r := <-ch:
		return r.out, r.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// call sends payload to pr. On a transport or RIE failure the process is
// stopped, to be restarted by release.
func (p *Pool) call(pr *proc, payload []byte) ([]byte, error) {
	select {
	case <-pr.exited:
		if err := p.restart(pr); err != nil {
			return nil, err
		}
	default:
	}
	// The RIE enforces the function timeout; the margin covers init.
	ctx, cancel := context.WithTimeout(p.ctx, p.cfg.Timeout+15*time.Second)
	defer cancel()
	url := "http://" + pr.addr + "/2015-03-31/functions/function/invocations"
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(payload))
	if err != nil {
		return nil, fmt.Errorf("invoke %s: %w", p.cfg.Function, err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := p.client.Do(req)
	if err != nil {
		p.stopProc(pr)
		return nil, fmt.Errorf("invoke %s: RIE process: %w", p.cfg.Function, err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		p.stopProc(pr)
		return nil, fmt.Errorf("invoke %s: read RIE answer: %w", p.cfg.Function, err)
	}
	out, err := parseInvokeResult(p.cfg.Function, resp.StatusCode, body)
	var fe *FunctionError
	if err != nil && !errors.As(err, &fe) {
		p.stopProc(pr)
		return nil, fmt.Errorf("invoke %s: %w", p.cfg.Function, err)
	}
	return out, err
}

// release returns pr to the idle set, restarting its process if it died.
func (p *Pool) release(pr *proc) {
	select {
	case <-pr.exited:
		p.mu.Lock()
		closed := p.closed
		p.mu.Unlock()
		if !closed {
			if err := p.restart(pr); err != nil {
				p.cfg.Logf("%s: %v (will retry on next invocation)", p.cfg.Function, err)
			}
		}
	default:
	}
	p.idle <- pr
}

func (p *Pool) restart(pr *proc) error {
	p.mu.Lock()
	closed := p.closed
	p.mu.Unlock()
	if closed {
		return fmt.Errorf("invoke %s: pool closed", p.cfg.Function)
	}
	p.cfg.Logf("%s: restarting RIE process #%d", p.cfg.Function, pr.slot)
	return p.start(p.ctx, pr)
}

// stopProc ends pr's RIE process and its runtime. SIGTERM lets the RIE
// kill the runtime (which runs in its own process group); after a grace
// period everything left is killed.
func (p *Pool) stopProc(pr *proc) {
	if pr.cmd == nil || pr.cmd.Process == nil {
		return
	}
	pid := pr.cmd.Process.Pid
	select {
	case <-pr.exited:
		return
	default:
	}
	children := childPIDs(pid)
	_ = syscall.Kill(-pid, syscall.SIGTERM)
	select {
	case <-pr.exited:
		return
	case <-time.After(3 * time.Second):
	}
	_ = syscall.Kill(-pid, syscall.SIGKILL)
	for _, c := range children {
		_ = syscall.Kill(-c, syscall.SIGKILL)
	}
	<-pr.exited
}

// Close stops every process; in-flight invocations fail. It is safe to
// call more than once.
func (p *Pool) Close() {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return
	}
	p.closed = true
	p.mu.Unlock()
	p.cancel()
	p.inflight.Wait()
	var wg sync.WaitGroup
	for _, pr := range p.procs {
		wg.Add(1)
		go func() { defer wg.Done(); p.stopProc(pr) }()
	}
	wg.Wait()
}

// childPIDs lists the direct children of pid (Linux /proc).
func childPIDs(pid int) []int {
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	var out []int
	for _, t := range tasks {
		data, err := os.ReadFile(t)
		if err != nil {
			continue
		}
		for _, f := range strings.Fields(string(data)) {
			if n, err := strconv.Atoi(f); err == nil {
				out = append(out, n)
			}
		}
	}
	return out
}

func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("find a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// lineWriter prefixes each line written to it and drops the RIE's
// per-invocation START/END/REPORT lines unless verbose.
type lineWriter struct {
	mu      sync.Mutex
	out     io.Writer
	prefix  string
	verbose bool
	buf     []byte
}

func newLineWriter(out io.Writer, prefix string, verbose bool) *lineWriter {
	if out == nil {
		out = io.Discard
	}
	return &lineWriter{out: out, prefix: prefix, verbose: verbose}
}

func (w *lineWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, b...)
	for {
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			break
		}
		w.emit(w.buf[:i])
		w.buf = w.buf[i+1:]
	}
	return len(b), nil
}

// Flush writes a trailing partial line.
func (w *lineWriter) Flush() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.buf) > 0 {
		w.emit(w.buf)
		w.buf = nil
	}
}

func (w *lineWriter) emit(line []byte) {
	if !w.verbose {
		for _, p := range []string{"START RequestId:", "END RequestId:", "REPORT RequestId:"} {
			if bytes.HasPrefix(line, []byte(p)) {
				return
			}
		}
	}
	_, _ = fmt.Fprintf(w.out, "%s%s\n", w.prefix, bytes.TrimRight(line, "\r"))
}
