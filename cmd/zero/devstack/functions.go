package devstack

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/zero-gateway/zero/cmd/zero/devstack/provision"
	"github.com/zero-gateway/zero/cmd/zero/devstack/rie"
	"github.com/zero-gateway/zero/shared/secret"
	"github.com/zero-gateway/zero/shared/ssmparam"
)

// buildAll builds every function without a prebuilt bootstrap, in parallel.
func (s *Stack) buildAll(ctx context.Context) (map[string]string, error) {
	out := map[string]string{}
	var (
		mu   sync.Mutex
		wg   sync.WaitGroup
		errs []error
	)
	for _, id := range sortedKeys(s.Resources.Functions) {
		if p, ok := s.opts.Bootstraps[id]; ok {
			abs, err := filepath.Abs(p)
			if err != nil {
				return nil, fmt.Errorf("bootstrap of %s: %w", id, err)
			}
			out[id] = abs
			continue
		}
		fn := s.Resources.Functions[id]
		dst := filepath.Join(s.opts.BuildDir, id, "bootstrap")
		out[id] = dst
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.logf("building %s from %s (the first build takes a while)", id, fn.SourceDir)
			if err := rie.Build(ctx, s.opts.Root, fn.SourceDir, dst); err != nil {
				mu.Lock()
				errs = append(errs, fmt.Errorf("function %s: %w", id, err))
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	for id := range s.opts.Bootstraps {
		if _, ok := s.Resources.Functions[id]; !ok {
			return nil, fmt.Errorf("bootstrap given for %s, which is not a function of the template", id)
		}
	}
	return out, nil
}

// passthroughEnv are host variables a function may need to reach the
// outside (certificates, proxies) or to behave (time zone, locale).
var passthroughEnv = []string{
	"PATH", "HOME", "TMPDIR", "TZ", "LANG",
	"SSL_CERT_FILE", "SSL_CERT_DIR",
	"HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "no_proxy",
}

// functionEnv is the environment of fn's RIE processes (which pass it on
// to the runtime): a few host variables, then its recording listener in
// front of the emulator and its own IAM user's key (see awsEnv), the template's variables (plus ZERO_CONFIG_TTL where
// ZERO_CONFIG_PARAMETER is set and ZERO_SECRETS_TTL where a secret's
// parameter is), Lambda's reserved variables, and
// ExtraEnv last. Nothing else leaks from the host (no
// AWS_PROFILE, no real credentials).
func (s *Stack) functionEnv(fn provision.Function, bootstrap string) []string {
	vals := map[string]string{}
	for _, k := range passthroughEnv {
		if v, ok := os.LookupEnv(k); ok {
			vals[k] = v
		}
	}
	s.awsEnv(fn, vals)
	for k, v := range fn.Env {
		vals[k] = v
	}
	if _, ok := fn.Env[provision.ConfigParameterEnv]; ok {
		vals[provision.ConfigTTLEnv] = s.opts.ConfigTTL.String()
	}
	for _, spec := range secret.All() {
		if _, ok := fn.Env[spec.Env]; ok {
			vals[ssmparam.SecretsTTLEnv] = s.opts.SecretsTTL.String()
		}
	}
	for k, v := range map[string]string{
		"AWS_REGION":                      s.opts.Region,
		"AWS_DEFAULT_REGION":              s.opts.Region,
		"AWS_LAMBDA_FUNCTION_NAME":        fn.Name,
		"AWS_LAMBDA_FUNCTION_VERSION":     "$LATEST",
		"AWS_LAMBDA_FUNCTION_MEMORY_SIZE": strconv.Itoa(fn.MemorySize),
		"AWS_LAMBDA_FUNCTION_TIMEOUT":     strconv.Itoa(int(fn.Timeout / time.Second)),
		"AWS_LAMBDA_LOG_GROUP_NAME":       "/aws/lambda/" + fn.Name,
		"AWS_LAMBDA_LOG_STREAM_NAME":      "local",
		"AWS_EXECUTION_ENV":               "AWS_Lambda_provided.al2023",
		"LAMBDA_TASK_ROOT":                filepath.Dir(bootstrap),
		"_HANDLER":                        "bootstrap",
	} {
		vals[k] = v
	}
	for _, kv := range s.opts.ExtraEnv {
		if k, v, ok := strings.Cut(kv, "="); ok {
			vals[k] = v
		}
	}
	delete(vals, "AWS_LAMBDA_MAX_CONCURRENCY") // switches the RIE to another mode
	env := make([]string, 0, len(vals))
	for _, k := range sortedKeys(vals) {
		env = append(env, k+"="+vals[k])
	}
	return env
}

// maxLocalPool bounds the RIE processes of one function: each is a real
// process, and the machine has few cores.
const maxLocalPool = 20

// poolSize is Options.PoolSizes[id], else, for a function behind event
// source mappings, the sum over its mappings of each one's
// MaximumConcurrency (8 without one; each at most maxLocalPool), 2 behind
// HTTP routes, 1 otherwise. The sum keeps the lanes apart as in Lambda: a
// mapping never runs more pollers than its cap (startPollers), so one
// lane's full load never leaves another waiting for a process.
func (s *Stack) poolSize(id string) int {
	if n, ok := s.opts.PoolSizes[id]; ok && n > 0 {
		return n
	}
	n := 0
	for _, es := range s.Resources.EventSources {
		if es.Function == id {
			// Lambda scales a FIFO mapping's invocations up to its
			// MaximumConcurrency as message groups arrive, and a burst of
			// sessions arrives as many small batches (FIFO mappings have
			// no batching window): one process per invocation, so a burst
			// runs at once here too.
			n += mappingPool(es)
		}
	}
	if n > 0 {
		return n
	}
	for _, r := range s.Resources.Routes {
		if r.Function == id {
			return 2
		}
	}
	return 1
}

// mappingPool is the processes one event source mapping needs locally:
// its MaximumConcurrency, at most maxLocalPool; 8 without one.
func mappingPool(es provision.EventSource) int {
	if es.MaximumConcurrency > 0 {
		return min(es.MaximumConcurrency, maxLocalPool)
	}
	return 8
}

// startPools starts each function's RIE pool.
func (s *Stack) startPools(ctx context.Context, rieBin string, bootstraps map[string]string) error {
	s.FunctionEnv = map[string][]string{}
	for _, id := range sortedKeys(s.Resources.Functions) {
		fn := s.Resources.Functions[id]
		env := s.functionEnv(fn, bootstraps[id])
		s.FunctionEnv[id] = env
		p, err := rie.NewPool(ctx, rie.Config{
			Function:  id,
			Bootstrap: bootstraps[id],
			RIE:       rieBin,
			Size:      s.poolSize(id),
			Env:       env,
			Timeout:   fn.Timeout,
			Output:    s.opts.Output,
			Verbose:   s.opts.Verbose,
			Logf:      s.logf,
		})
		if err != nil {
			return err
		}
		s.pools[id] = p
		s.logf("function %s: %d RIE process(es)", id, p.Size())
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
