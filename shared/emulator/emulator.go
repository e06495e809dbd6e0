// Package emulator starts a local AWS-protocol server for tests and the dev
// stack: moto server by default, or an already-running LocalStack/moto named
// by ZERO_AWS_ENDPOINT. Nothing here is moto-specific except how moto is
// launched, so the same tests run against LocalStack.
//
// A launched moto authenticates and authorises every call (see Start): the
// tests and tools sign with the admin key it makes (Server.Admin, exported
// by Env), and the local stack gives each function a user of its own with
// its role's actions.
package emulator

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/zero-gateway/zero/shared/awsconfig"
)

// EndpointEnv names an already-running emulator to use instead of starting one.
const EndpointEnv = "ZERO_AWS_ENDPOINT"

// The admin key of an emulator that enforces IAM, for processes that did
// not start it (Env sets them; AdminFromEnv reads them). The values are
// credentials: never log them.
const (
	AdminKeyIDEnv  = "ZERO_EMULATOR_ADMIN_ACCESS_KEY_ID"
	AdminSecretEnv = "ZERO_EMULATOR_ADMIN_SECRET_ACCESS_KEY"
)

// Server is a running (or borrowed) emulator. Stop only stops what Start launched.
type Server struct {
	URL string
	// Admin is a key allowed every action, when the emulator enforces IAM
	// (a moto Start launched, or a borrowed one whose admin key is in
	// AdminKeyIDEnv/AdminSecretEnv); nil when it does not. Never log it.
	Admin *aws.Credentials
	cmd   *exec.Cmd
}

// AdminFromEnv returns the admin key named by AdminKeyIDEnv and
// AdminSecretEnv, if both are set.
func AdminFromEnv() (aws.Credentials, bool) {
	id, secret := os.Getenv(AdminKeyIDEnv), os.Getenv(AdminSecretEnv)
	if id == "" || secret == "" {
		return aws.Credentials{}, false
	}
	return aws.Credentials{AccessKeyID: id, SecretAccessKey: secret, Source: "emulator admin"}, true
}

// Start returns an emulator endpoint. With addr empty it picks a free port on
// 127.0.0.1; a borrowed endpoint (ZERO_AWS_ENDPOINT) is shared, so callers
// must namespace their resources by name.
//
// A moto it launches enforces IAM: Start creates the admin user (AdminUser,
// allowed "*" on "*") and its key while moto still admits unauthenticated
// calls, then sets moto's INITIAL_NO_AUTH_ACTION_COUNT to 0 (moto's
// /moto-api/reset-auth), so every later call must be signed by a key
// moto's IAM knows and its action must be allowed. A borrowed endpoint is
// used as it is: its Admin comes from AdminFromEnv, and without one the
// callers sign with dummy keys (LocalStack's default does not enforce IAM).
func Start(ctx context.Context, addr string) (*Server, error) {
	if url := os.Getenv(EndpointEnv); url != "" {
		if err := waitReady(ctx, url, 5*time.Second); err != nil {
			return nil, fmt.Errorf("emulator at %s (%s): %w", url, EndpointEnv, err)
		}
		s := &Server{URL: strings.TrimRight(url, "/")}
		if admin, ok := AdminFromEnv(); ok {
			s.Admin = &admin
		}
		return s, nil
	}
	if addr == "" {
		free, err := freeAddr()
		if err != nil {
			return nil, err
		}
		addr = free
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("emulator address %q: %w", addr, err)
	}
	python := os.Getenv("PYTHON")
	if python == "" {
		python = "python3"
	}
	cmd := exec.Command(python, "-c", motoLauncher, "-H", host, "-p", port)
	cmd.Stdout, cmd.Stderr = nil, nil
	// Own process group so Stop also ends moto's children and a test binary
	// killed by a signal does not keep ports busy longer than needed.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start moto server (is moto installed? `make deps`): %w", err)
	}
	s := &Server{URL: "http://" + addr, cmd: cmd}
	if err := waitReady(ctx, s.URL, 30*time.Second); err != nil {
		s.Stop()
		return nil, fmt.Errorf("moto server on %s: %w", addr, err)
	}
	if err := s.enforceIAM(ctx); err != nil {
		s.Stop()
		return nil, fmt.Errorf("moto server on %s: %w", addr, err)
	}
	return s, nil
}

// AdminUser is the IAM user whose key Start gives the tests and tools.
const AdminUser = "zero-admin"

// adminPolicy allows everything: the admin stands for the operator and the
// test harness, never for a function.
const adminPolicy = `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"*","Resource":"*"}]}`

// enforceIAM creates the admin user and key on a fresh moto (which admits
// any call until told otherwise), then turns authentication on.
func (s *Server) enforceIAM(ctx context.Context) error {
	boot := &IAM{Endpoint: s.URL, Credentials: aws.Credentials{AccessKeyID: "test", SecretAccessKey: "test"}}
	admin, err := boot.PutUser(ctx, AdminUser, "admin", []byte(adminPolicy))
	if err != nil {
		return fmt.Errorf("create the admin user: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.URL+"/moto-api/reset-auth", strings.NewReader("0"))
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("turn IAM on: %w", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("turn IAM on: /moto-api/reset-auth answered %s", resp.Status)
	}
	s.Admin = &admin
	return nil
}

// motoLauncher (moto_launcher.py) runs moto's server with patches that
// give moto the guarantees ZERO relies on, measured and read in moto
// 5.2.1. Nothing here changes the API: the same tests pass against
// LocalStack or AWS.
//
//   - DynamoDB: moto serves requests on many threads and applies
//     conditional writes and transactions without a lock, so two
//     concurrent writes conditioned on the same version could both succeed
//     (about once in ten races). DynamoDB makes them atomic and ZERO's
//     version checks rely on it, so every backend operation is serialised.
//   - DynamoDB transactions: moto deep-copied every table a transaction
//     touches, once per item, as its rollback state; with the lock above
//     every call waited for it (a one-item transaction fell from ~350/s
//     to 2/s at 1,500 items). The patch checks all conditions first, then
//     writes, saving only the written items for a rollback
//     (TestTransactionCostIndependentOfTableSize, TestTransactionAllOrNothing).
//   - SQS costs that grew with queue depth: moto built the whole attribute
//     map (three scans of the queue, one clock read per message) several
//     times per SendMessage and once per message a ReceiveMessage returns,
//     walked the whole queue on every receive, deduplication check, delete
//     and visibility change. Receive (ten messages) took 13 ms at depth
//     10, 130 ms at 200 and 500 ms at 800, send 3 ms to 68 ms, so the
//     local stack slowed down as its backlog grew. The patches read
//     settings directly and keep an index per FIFO queue (messages by
//     group in send order, in-flight messages by group, deduplication
//     ids, receipt handles): about 4 ms and 3 ms at any depth
//     (TestFIFOCostIndependentOfDepth).
//   - FIFO order: a receive serves a group only while none of its
//     messages is in flight and then from its oldest message on. moto
//     decided which groups were busy once per call and without a lock, so
//     concurrent receives could hand out a message while an earlier one of
//     its group was in flight; and in-flight messages of one group whose
//     visibility ended together came back newest first. The runner gives a
//     group's failed records one backoff, and the event source emulator
//     receives concurrently, so both would break a session's order.
//     Receive, delete and visibility changes hold the queue's lock.
//   - Long polls wait to be notified (send, delete, visibility change) or
//     until the next in-flight message's timeout ends; moto spun on the
//     CPU while only busy groups had visible messages.
//   - SequenceNumber increases (per process, so per group as on SQS);
//     moto drew 20 random digits.
//   - IAM (Start turns it on): moto checked a request's signature against
//     the query string as its HTTP server had decoded it, so a signed
//     query value holding a reserved character (ListObjectsV2's
//     prefix=a%2Fb) never matched; the query is re-encoded as SigV4
//     canonicalises it before the check.
//   - EventBridge Scheduler: UpdateSchedule kept the create's
//     ActionAfterCompletion; it replaces it like every other field, so a
//     job that changes between one-shot and recurring gets the right one
//     (crontest.TestSchedules, run by shared/scheduler).
//
// Deduplication (moto's rule: only against messages still in the queue),
// redrive to the dead-letter queue after maxReceiveCount receives, receive
// counts and message attributes are as moto has them. Standard queues keep
// moto's code apart from the cheaper attribute reads. The SQS patches are
// applied on moto 5 only; another version runs unpatched with a warning.
//
//go:embed moto_launcher.py
var motoLauncher string

// Stop ends a launched emulator; it is safe to call more than once.
func (s *Server) Stop() {
	if s == nil || s.cmd == nil || s.cmd.Process == nil {
		return
	}
	_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(3 * time.Second):
		_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
		<-done
	}
	s.cmd = nil
}

// Env returns the environment variables that point the AWS SDK at the
// emulator, signing with the admin key (and naming it in AdminKeyIDEnv and
// AdminSecretEnv for tools that give others their own keys), or with dummy
// credentials when the emulator does not enforce IAM. The values hold
// credentials: never log them.
func (s *Server) Env() []string {
	id, secret := "test", "test"
	if s.Admin != nil {
		id, secret = s.Admin.AccessKeyID, s.Admin.SecretAccessKey
	}
	env := []string{
		"AWS_ENDPOINT_URL=" + s.URL,
		"AWS_REGION=us-east-1",
		"AWS_DEFAULT_REGION=us-east-1",
		"AWS_ACCESS_KEY_ID=" + id,
		"AWS_SECRET_ACCESS_KEY=" + secret,
	}
	if s.Admin != nil {
		env = append(env, AdminKeyIDEnv+"="+id, AdminSecretEnv+"="+secret)
	}
	return env
}

// Setenv points this process's AWS SDK at the emulator (see Env); tests
// call it in TestMain before building clients.
func (s *Server) Setenv() {
	for _, kv := range s.Env() {
		k, v, _ := strings.Cut(kv, "=")
		os.Setenv(k, v)
	}
}

func waitReady(ctx context.Context, url string, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	client := &http.Client{Timeout: time.Second}
	for {
		// Any HTTP answer means the server is up: moto answers /moto-api/,
		// LocalStack /_localstack/health; both answer something on "/".
		resp, err := client.Get(strings.TrimRight(url, "/") + "/")
		if err == nil {
			resp.Body.Close()
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("not ready after %s: %w", limit, err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", errors.New("no free port on 127.0.0.1")
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// RunTests is a TestMain body for packages whose tests talk to AWS: it
// starts (or borrows) an emulator, points the SDK at it, builds the SDK
// config (counting calls into counter when it is non-nil), calls setup,
// runs the tests and stops the emulator. The process signs with the
// emulator's admin key (see Start and Env), so on moto every test's calls
// are authenticated. Use: os.Exit(emulator.RunTests(m, counter, setup)).
func RunTests(m *testing.M, counter *awsconfig.Counter, setup func(ctx context.Context, cfg aws.Config) (cleanup func(), err error)) int {
	ctx := context.Background()
	srv, err := Start(ctx, "")
	if err != nil {
		fmt.Fprintln(os.Stderr, "these tests need the AWS emulator (make deps):", err)
		return 1
	}
	defer srv.Stop()
	srv.Setenv()
	cfg, err := awsconfig.Load(ctx, counter)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if setup != nil {
		cleanup, err := setup(ctx, cfg)
		if err != nil {
			fmt.Fprintln(os.Stderr, "test setup:", err)
			return 1
		}
		if cleanup != nil {
			defer cleanup()
		}
	}
	return m.Run()
}
