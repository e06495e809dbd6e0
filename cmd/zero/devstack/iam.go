package devstack

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"

	"github.com/zero-gateway/zero/cmd/zero/devstack/awscalls"
	"github.com/zero-gateway/zero/cmd/zero/devstack/iampolicy"
	"github.com/zero-gateway/zero/cmd/zero/devstack/provision"
	"github.com/zero-gateway/zero/shared/emulator"
)

// IAM in the local stack, in two halves:
//
//   - the emulator enforces each function's actions: on an emulator that
//     enforces IAM (a moto emulator.Start launched, or one whose admin key
//     is in the environment, emulator.AdminFromEnv) every function signs
//     with the key of its own IAM user, which has its role's actions
//     (provision.Options.Users, iampolicy.ForEmulator). On any other
//     endpoint (LocalStack, which does not enforce IAM by default) no
//     users are made and the functions sign with dummy keys;
//   - the recorder checks resources and conditions, on any endpoint: each
//     function reaches the emulator through its own listener of an
//     awscalls.Recorder, which records every call's action, resource and
//     context; CheckIAM evaluates them against the function's policy from
//     the template, and each call its policy does not allow is logged as
//     it happens.

// adminCredentials is the key the stack itself signs with: the admin key
// of the emulator it started, or the one named in the environment for an
// emulator it found; nil when the emulator does not enforce IAM.
func (s *Stack) adminCredentials() *aws.Credentials {
	if s.emu != nil {
		return s.emu.Admin
	}
	if admin, ok := emulator.AdminFromEnv(); ok {
		return &admin
	}
	return nil
}

// recorder is the running recording proxy: one listener per function.
type recorder struct {
	rec       *awscalls.Recorder
	endpoints map[string]string // function logical id -> proxy URL
	servers   []*http.Server
	logged    sync.Map // violation text -> true: each is logged once
}

// startRecorder starts a recording listener per function in front of the
// emulator, before the functions start (their AWS_ENDPOINT_URL is it).
func (s *Stack) startRecorder() error {
	r := &recorder{endpoints: map[string]string{}}
	rec, err := awscalls.New(s.EndpointURL, s.Resources.AccountID, s.logViolation)
	if err != nil {
		return err
	}
	r.rec = rec
	s.iam = r
	for _, id := range sortedKeys(s.Resources.Functions) {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return fmt.Errorf("AWS call recorder for %s: %w", id, err)
		}
		srv := &http.Server{Handler: rec.Handler(id), ReadHeaderTimeout: 10 * time.Second}
		r.servers = append(r.servers, srv)
		r.endpoints[id] = "http://" + l.Addr().String()
		go func() {
			if err := srv.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
				s.logf("AWS call recorder for %s: %v", id, err)
			}
		}()
	}
	return nil
}

// logViolation logs, once, a call its function's policy does not allow:
// on AWS it would fail with AccessDenied.
func (s *Stack) logViolation(c iampolicy.Call) {
	vs := iampolicy.Check(s.Policies(), []iampolicy.Call{c})
	if len(vs) == 0 {
		return
	}
	if _, dup := s.iam.logged.LoadOrStore(vs[0].String(), true); !dup {
		s.logf("IAM: AccessDenied on AWS: %s", vs[0])
	}
}

// awsEnv sets the variables that point fn's SDK at its recording
// listener and sign with its own key (dummy keys without one). The keys
// are secrets: the environment is never logged.
func (s *Stack) awsEnv(fn provision.Function, vals map[string]string) {
	vals["AWS_ENDPOINT_URL"] = s.EndpointURL
	if s.iam != nil {
		vals["AWS_ENDPOINT_URL"] = s.iam.endpoints[fn.LogicalID]
	}
	vals["AWS_ACCESS_KEY_ID"], vals["AWS_SECRET_ACCESS_KEY"] = "test", "test"
	if fn.Credentials != nil {
		vals["AWS_ACCESS_KEY_ID"], vals["AWS_SECRET_ACCESS_KEY"] = fn.Credentials.AccessKeyID, fn.Credentials.SecretAccessKey
	}
}

// functionAWSConfig is the stack's SDK config as function id would
// call: through its recording listener, with its own key (when it has
// one). The event source mappings poll with it, as Lambda polls with the
// function's role.
func (s *Stack) functionAWSConfig(id string) aws.Config {
	cfg := s.AWSConfig.Copy()
	if s.iam != nil {
		cfg.BaseEndpoint = aws.String(s.iam.endpoints[id])
	}
	if c := s.Resources.Functions[id].Credentials; c != nil {
		cfg.Credentials = credentials.NewStaticCredentialsProvider(c.AccessKeyID, c.SecretAccessKey, "")
	}
	return cfg
}

// AdminEnvFile is written by Start when it launched an emulator that
// enforces IAM: the shell variables (AWS_ENDPOINT_URL, the admin key, and
// emulator.AdminKeyIDEnv/AdminSecretEnv) that let a tool such as `zero
// dlq` or the AWS CLI call it: `set -a; . <file>; set +a`. Mode 0600;
// the key is never printed.
const AdminEnvFile = "aws.env"

// writeAdminEnv writes AdminEnvFile into the build directory and returns
// its path, "" when the stack did not start the emulator.
func (s *Stack) writeAdminEnv() (string, error) {
	if s.emu == nil || s.emu.Admin == nil {
		return "", nil
	}
	if err := os.MkdirAll(s.opts.BuildDir, 0o755); err != nil {
		return "", err
	}
	var b strings.Builder
	for _, kv := range s.emu.Env() {
		k, v, _ := strings.Cut(kv, "=")
		fmt.Fprintf(&b, "%s=%q\n", k, v)
	}
	path := filepath.Join(s.opts.BuildDir, AdminEnvFile)
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		return "", fmt.Errorf("write the emulator's admin key: %w", err)
	}
	return path, nil
}

// stopRecorder closes the recording listeners.
func (s *Stack) stopRecorder() {
	if s.iam == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	for _, srv := range s.iam.servers {
		if err := srv.Shutdown(ctx); err != nil {
			_ = srv.Close()
		}
	}
}

// Policies are the functions' IAM policies from the template (their
// roles' inline policies with local ARNs), by logical id.
func (s *Stack) Policies() map[string]iampolicy.Policy {
	out := map[string]iampolicy.Policy{}
	for id, fn := range s.Resources.Functions {
		out[id] = fn.Policy
	}
	return out
}

// AWSCalls are the distinct AWS calls the functions made so far, as IAM
// sees them (see awscalls).
func (s *Stack) AWSCalls() []iampolicy.Call {
	if s.iam == nil {
		return nil
	}
	return s.iam.rec.Calls()
}

// CheckIAM evaluates every call the functions made against their
// policies: nil when all are allowed, else an error naming each function,
// operation and resource that would be refused on AWS.
func (s *Stack) CheckIAM() error {
	return iampolicy.Err(iampolicy.Check(s.Policies(), s.AWSCalls()))
}

// iamUsers is provision's Options.Users: the emulator's IAM signed with
// the admin key, or nil when the emulator does not enforce IAM.
func (s *Stack) iamUsers(admin *aws.Credentials) *emulator.IAM {
	if admin == nil {
		return nil
	}
	return &emulator.IAM{Endpoint: s.EndpointURL, Region: s.opts.Region, Credentials: *admin}
}
