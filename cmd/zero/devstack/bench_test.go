package devstack

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/ssm"

	"github.com/zero-gateway/zero/cmd/zero/devstack/rie"
	"github.com/zero-gateway/zero/shared/awsconfig"
	"github.com/zero-gateway/zero/shared/secret"
	"github.com/zero-gateway/zero/shared/ssmparam"
)

// coldInitCases are the functions of template.yaml with an environment that
// passes their init checks and a payload that makes no AWS call.
var coldInitCases = []struct {
	function, pkg string
	env           []string
	payload       string
}{
	{"TelegramWebhook", "./functions/telegram-webhook",
		[]string{"TELEGRAM_WEBHOOK_SECRET_PARAMETER=/zero/bench/secrets/telegram-webhook-secret", "TELEGRAM_BOT_ID=1", "ZERO_QUEUE_URL=http://127.0.0.1:1/q.fifo", "ZERO_CONFIG_PARAMETER=/zero/bench/config"},
		`{"version":"2.0","routeKey":"POST /webhooks/telegram","rawPath":"/webhooks/telegram","headers":{},"requestContext":{"http":{"method":"POST","path":"/webhooks/telegram"}},"body":"{}"}`},
	{"Runner", "./functions/runner",
		[]string{"ZERO_TABLE=t", "ZERO_BUCKET=b", "TELEGRAM_BOT_TOKEN_PARAMETER=/zero/bench/secrets/telegram-bot-token",
			"OPENAI_API_KEY_PARAMETER=/zero/bench/secrets/openai-api-key", "ANTHROPIC_API_KEY_PARAMETER=/zero/bench/secrets/anthropic-api-key",
			"ZERO_CONFIG_PARAMETER=/zero/bench/config"},
		`{"Records":[]}`},
}

// BenchmarkColdInit reports each function's binary size (host build and
// the deployed linux/arm64 build) and its cold start under the RIE: from
// starting the process to the first response. Run by `make bench`.
func BenchmarkColdInit(b *testing.B) {
	root, err := filepath.Abs(filepath.Join("..", "..", ".."))
	if err != nil {
		b.Fatal(err)
	}
	rieBin, err := rie.FindRIE(root)
	if err != nil {
		b.Fatalf("aws-lambda-rie unavailable (run `make deps`): %v", err)
	}
	dir := b.TempDir()
	ctx := context.Background()
	// The functions read their secrets at init (one GetParameters), so
	// the cold start includes that call to the package's emulator.
	if emuErr != nil {
		b.Fatalf("AWS emulator unavailable (run `make deps`): %v", emuErr)
	}
	awsCfg, err := awsconfig.Load(ctx, nil)
	if err != nil {
		b.Fatal(err)
	}
	for name, v := range map[string]string{"telegram-webhook-secret": "bench_secret_0123456789abcdefghijklm", "telegram-bot-token": "1:bench"} {
		if _, err := ssmparam.PutSecret(ctx, ssm.NewFromConfig(awsCfg), secret.Parameter("bench", name), v, ""); err != nil {
			b.Fatal(err)
		}
	}
	for _, tc := range coldInitCases {
		// Built once, outside b.Run, which calls its function once per round.
		bootstrap := filepath.Join(dir, tc.function, "bootstrap")
		if err := rie.Build(ctx, root, tc.pkg, bootstrap); err != nil {
			b.Fatal(err)
		}
		arm := filepath.Join(dir, tc.function, "bootstrap-arm64")
		cmd := exec.Command("go", "build", "-tags", "lambda.norpc", "-trimpath", "-ldflags=-s -w", "-o", arm, tc.pkg)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH=arm64")
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("arm64 build: %v\n%s", err, out)
		}
		hostSize, armSize := fileSize(b, bootstrap), fileSize(b, arm)
		b.Run(tc.function, func(b *testing.B) {
			// The emulator checks every call's credentials: sign with the
			// key the package's emulator exported (its admin key).
			env := append([]string{"PATH=" + os.Getenv("PATH"), "AWS_REGION=us-east-1",
				"AWS_ACCESS_KEY_ID=" + os.Getenv("AWS_ACCESS_KEY_ID"), "AWS_SECRET_ACCESS_KEY=" + os.Getenv("AWS_SECRET_ACCESS_KEY"),
				"AWS_ENDPOINT_URL=" + os.Getenv("AWS_ENDPOINT_URL")}, tc.env...)
			var total time.Duration
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				start := time.Now()
				p, err := rie.NewPool(ctx, rie.Config{Function: tc.function, Bootstrap: bootstrap, RIE: rieBin, Size: 1, Env: env, Timeout: 30 * time.Second, Output: io.Discard, Logf: b.Logf})
				if err != nil {
					b.Fatal(err)
				}
				if _, err := p.Invoke(ctx, []byte(tc.payload)); err != nil {
					p.Close()
					b.Fatalf("first invoke: %v", err)
				}
				total += time.Since(start)
				p.Close()
			}
			b.StopTimer()
			b.ReportMetric(float64(total.Milliseconds())/float64(b.N), "cold-ms/op")
			b.ReportMetric(float64(hostSize)/(1<<20), "host-MiB")
			b.ReportMetric(float64(armSize)/(1<<20), "arm64-MiB")
		})
	}
}

func fileSize(b *testing.B, path string) int64 {
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	return st.Size()
}
