package rie

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// Build compiles the Go package pkg (e.g. ./functions/runner, relative to
// root) into out (a file named bootstrap) for the host's OS and
// architecture, with the deployment's flags: CGO off, -tags lambda.norpc,
// -trimpath, -ldflags=-s -w. Deployed functions are built the same way for linux/arm64
// (infra/build.mk).
func Build(ctx context.Context, root, pkg, out string) error {
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return fmt.Errorf("build %s: %w", pkg, err)
	}
	cmd := exec.CommandContext(ctx, "go", "build", "-tags", "lambda.norpc", "-trimpath", "-ldflags=-s -w", "-o", out, pkg)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+runtime.GOOS, "GOARCH="+runtime.GOARCH)
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build %s: %w\n%s", pkg, err, strings.TrimSpace(string(b)))
	}
	return nil
}
