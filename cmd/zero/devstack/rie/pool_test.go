package rie

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestParseInvokeResult(t *testing.T) {
	tests := []struct {
		name     string
		status   int
		body     string
		wantOut  string
		wantType string // FunctionError type
		wantErr  string // other error
	}{
		{name: "result", status: 200, body: `{"statusCode":200}`, wantOut: `{"statusCode":200}`},
		{name: "null result", status: 200, body: `null`, wantOut: `null`},
		{name: "returned error", status: 200, body: `{"errorMessage":"boom","errorType":"errorString"}`, wantType: "errorString"},
		{name: "result that merely has errorType", status: 200, body: `{"errorType":"x","errorMessage":"y","statusCode":200}`, wantOut: `{"errorType":"x","errorMessage":"y","statusCode":200}`},
		{name: "panic", status: 502, body: `{"errorMessage":"oh no","errorType":"string","stackTrace":[]}`, wantType: "string"},
		{name: "crash", status: 502, body: `{"errorType":"Runtime.ExitError","errorMessage":"exit status 3"}`, wantType: "Runtime.ExitError"},
		{name: "timeout", status: 200, body: `Task timed out after 3.00 seconds`, wantType: "Sandbox.Timedout"},
		{name: "RIE busy", status: 400, body: ``, wantErr: "RIE answered 400"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := parseInvokeResult("F", tt.status, []byte(tt.body))
			var fe *FunctionError
			switch {
			case tt.wantType != "":
				if !errors.As(err, &fe) {
					t.Fatalf("error = %v, want a FunctionError", err)
				}
				if diff := cmp.Diff([]string{tt.wantType, "F"}, []string{fe.Type, fe.Function}); diff != "" {
					t.Errorf("type, function mismatch (-want +got):\n%s", diff)
				}
			case tt.wantErr != "":
				if err == nil || errors.As(err, &fe) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want %q", err, tt.wantErr)
				}
			default:
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(tt.wantOut, string(out)); diff != "" {
					t.Errorf("out mismatch (-want +got):\n%s", diff)
				}
			}
		})
	}
}

// echoFunction returns its event; {"fail":true} returns an error.
const echoFunction = `package main

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/aws/aws-lambda-go/lambda"
)

func main() {
	lambda.Start(func(ctx context.Context, raw json.RawMessage) (json.RawMessage, error) {
		if string(raw) == ` + "`" + `{"fail":true}` + "`" + ` {
			return nil, errors.New("asked to fail")
		}
		return raw, nil
	})
}
`

// echoPool builds echoFunction and starts a pool of size processes.
func echoPool(t *testing.T, size int) *Pool {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", "..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	rie, err := FindRIE(root)
	if err != nil {
		t.Fatalf("aws-lambda-rie unavailable (run `make deps`): %v", err)
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "main.go")
	if err := os.WriteFile(src, []byte(echoFunction), 0o644); err != nil {
		t.Fatal(err)
	}
	bootstrap := filepath.Join(dir, "bootstrap")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := Build(ctx, root, src, bootstrap); err != nil {
		t.Fatal(err)
	}
	p, err := NewPool(ctx, Config{
		Function: "Echo", Bootstrap: bootstrap, RIE: rie, Size: size,
		Env: []string{"PATH=" + os.Getenv("PATH"), "AWS_REGION=us-east-1"}, Timeout: 10 * time.Second, Logf: t.Logf,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return p
}

func TestPool(t *testing.T) {
	p := echoPool(t, 2)
	ctx := context.Background()

	t.Run("killed RIE processes are restarted", func(t *testing.T) {
		for _, pr := range p.procs {
			_ = syscall.Kill(-pr.cmd.Process.Pid, syscall.SIGKILL)
			<-pr.exited
		}
		for i := 0; i < 2*len(p.procs); i++ {
			out, err := p.Invoke(ctx, []byte(`{"direct":true}`))
			if err != nil {
				t.Fatalf("invoke %d after kill: %v", i, err)
			}
			if diff := cmp.Diff(`{"direct":true}`, string(out)); diff != "" {
				t.Errorf("echo mismatch (-want +got):\n%s", diff)
			}
		}
	})

	t.Run("function errors are FunctionErrors", func(t *testing.T) {
		_, err := p.Invoke(ctx, []byte(`{"fail":true}`))
		var fe *FunctionError
		if !errors.As(err, &fe) {
			t.Fatalf("error = %v, want *FunctionError", err)
		}
		if diff := cmp.Diff([]string{"Echo", "asked to fail"}, []string{fe.Function, fe.Message}); diff != "" {
			t.Errorf("function, message mismatch (-want +got):\n%s", diff)
		}
	})

	t.Run("closed pool refuses", func(t *testing.T) {
		p.Close()
		if _, err := p.Invoke(ctx, []byte(`{}`)); err == nil || !strings.Contains(err.Error(), "pool closed") {
			t.Fatalf("Invoke after Close: %v, want stack closed", err)
		}
	})
}
