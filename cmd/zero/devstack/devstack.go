// Package devstack runs ZERO locally without Docker. It only wires the
// packages that do the jobs: template (translate template.yaml, evaluate
// parameters, Conditions, intrinsics and Outputs), provision (create the
// queues, tables, buckets and parameters on a local AWS emulator, moto or
// LocalStack), rie (build each function's bootstrap for the host and run
// it under a pool of Lambda Runtime Interface Emulator processes), front
// (the HTTP API routes as API Gateway payload format 2.0) and esm (the SQS
// event source mappings).
//
// `zero dev` uses it interactively; end-to-end tests use Start and Close.
// Only Linux is supported (process groups, Pdeathsig, the RIE itself).
package devstack

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/ssm"

	"github.com/zero-gateway/zero/cmd/zero/devstack/esm"
	"github.com/zero-gateway/zero/cmd/zero/devstack/front"
	"github.com/zero-gateway/zero/cmd/zero/devstack/provision"
	"github.com/zero-gateway/zero/cmd/zero/devstack/rie"
	"github.com/zero-gateway/zero/cmd/zero/devstack/template"
	"github.com/zero-gateway/zero/shared/awsconfig"
	"github.com/zero-gateway/zero/shared/emulator"
	"github.com/zero-gateway/zero/shared/ssmparam"
)

// Defaults used when Options leave a field empty.
const (
	DefaultPrefix       = "zero-dev"
	DefaultFrontAddr    = "127.0.0.1:3000"
	DefaultEmulatorAddr = "127.0.0.1:4566"
	DefaultPollWait     = 20 * time.Second
	// DefaultConfigTTL is how often the local functions re-read zero.json,
	// short so that edits apply within seconds (deployed: 30 s).
	DefaultConfigTTL = 2 * time.Second
	// DefaultSecretsTTL is how often the local functions re-read their
	// secrets (deployed: 5 minutes).
	DefaultSecretsTTL = time.Minute
	// DefaultIntegrationTimeout is API Gateway's HTTP API limit.
	DefaultIntegrationTimeout = 30 * time.Second
)

// Options configures Start. The zero value runs the repository in the
// current directory on 127.0.0.1:3000 against the emulator on 4566.
type Options struct {
	// Root is the repository root (template.yaml, infra/, functions/).
	// Default ".".
	Root string
	// Template is the CloudFormation JSON to provision from. Default
	// <Root>/build/template.json, translated from <Root>/template.yaml by
	// infra/sam2cfn.py when missing or older than template.yaml.
	Template string
	// Prefix is the stack name that prefixes every physical resource name
	// (zero-dev-workqueue.fifo, ...). Use a unique one per test run.
	// Default "zero-dev".
	Prefix string

	// Endpoint is the URL of a running emulator. Default: $ZERO_AWS_ENDPOINT,
	// else $AWS_ENDPOINT_URL, else whatever answers on EmulatorAddr, else a
	// moto server started on EmulatorAddr (stopped by Close).
	Endpoint string
	// EmulatorAddr is where to look for or start the emulator. Default
	// 127.0.0.1:4566.
	EmulatorAddr string
	// Region defaults to $AWS_REGION, else us-east-1.
	Region string

	// FrontAddr is the HTTP API listen address; 127.0.0.1:0 picks a free
	// port (see Stack.FrontURL). Default 127.0.0.1:3000.
	FrontAddr string
	// IntegrationTimeout bounds a routed invocation, answered with 503 as
	// API Gateway does. Default 30 s.
	IntegrationTimeout time.Duration

	// Params are template parameter values; the template's defaults fill
	// the rest.
	Params map[string]string
	// ExtraEnv ("K=V") is added last to every function's environment.
	ExtraEnv []string

	// Secrets are the secrets' values by name (secret.TelegramBotToken.Name,
	// ...). Start writes each into the SSM SecureString parameter the
	// functions' environment names (Spec.Env) before they start, and
	// deletes the parameters of the secrets not given. A required secret a
	// function reads must be given; every value must keep its secret's
	// rules (secret.Spec.Check).
	Secrets map[string]string
	// SecretsTTL is passed to the functions that read secrets as
	// ZERO_SECRETS_TTL: how long they keep them before reading them again.
	// Default 1 minute.
	SecretsTTL time.Duration

	// Config is the zero.json document Start writes into the config
	// parameter (the SSM parameter named by the functions'
	// ZERO_CONFIG_PARAMETER) once it is provisioned; nil keeps the
	// template's value. Start fails when Config is set and no function
	// reads a config parameter. Parse it first: Start does not validate it.
	Config []byte
	// ConfigTTL is passed to the functions that read the config parameter
	// as ZERO_CONFIG_TTL: how long they keep the config before checking
	// its version again. Default 2 s.
	ConfigTTL time.Duration

	// PollWait is the SQS long-poll wait of the event source mappings,
	// whole seconds from 1 to 20. Default 20 s.
	PollWait time.Duration
	// CronTick is how often the local Scheduler emulation looks for due
	// schedules in the template's schedule groups (see firing). Default
	// 1 s; Scheduler's own precision is a minute.
	CronTick time.Duration
	// PoolSizes sets the number of RIE processes per function logical id.
	// Default 8 for functions behind an event source mapping, 2 for
	// functions behind HTTP routes, else 1.
	PoolSizes map[string]int

	// Bootstraps maps a function logical id to a prebuilt bootstrap to run
	// instead of building the function's SourceDir.
	Bootstraps map[string]string
	// BuildDir holds built bootstraps. Default <Root>/build/dev/<Prefix>.
	BuildDir string
	// RIE is the aws-lambda-rie binary. Default: see rie.FindRIE.
	RIE string

	// Output receives the functions' output, one "[Function#n] " prefixed
	// line at a time. Default os.Stderr.
	Output io.Writer
	// Verbose keeps the RIE's own per-invocation log lines.
	Verbose bool
	// Logf receives progress and error messages. Default: discard.
	Logf func(format string, args ...any)
}

// Stack is a running local stack.
type Stack struct {
	// FrontURL is the base URL of the HTTP API, e.g. http://127.0.0.1:3000.
	FrontURL string
	// EndpointURL is the AWS emulator's URL.
	EndpointURL string
	// EmulatorStarted tells whether Start launched the emulator (and Close
	// stops it) rather than using one that was running.
	EmulatorStarted bool
	// AWSConfig points at the emulator with dummy credentials; S3 clients
	// built from it need UsePathStyle.
	AWSConfig aws.Config
	// Resources is what was provisioned and read from the template,
	// with its evaluated Conditions, skipped resources and Outputs.
	Resources *provision.Resources
	// FunctionEnv is each function's full environment under the RIE, by
	// logical id. It may hold secrets: never log values.
	FunctionEnv map[string][]string

	opts      Options
	logf      func(string, ...any)
	emu       *emulator.Server
	pools     map[string]*rie.Pool
	listener  net.Listener
	server    *http.Server
	esms      map[string]*esm.Mapping
	iam       *recorder
	pollStop  context.CancelFunc
	pollers   sync.WaitGroup
	firing    *firingLoop
	closeOnce sync.Once
}

// Start provisions and starts the local stack. On error everything started
// so far is stopped again. ctx bounds startup only; Close ends the stack.
func Start(ctx context.Context, opts Options) (st *Stack, err error) {
	opts, err = withDefaults(opts)
	if err != nil {
		return nil, err
	}
	s := &Stack{opts: opts, logf: opts.Logf, pools: map[string]*rie.Pool{}, esms: map[string]*esm.Mapping{}}
	defer func() {
		if err != nil {
			s.Close()
		}
	}()
	rieBin := opts.RIE
	if rieBin == "" {
		if rieBin, err = rie.FindRIE(opts.Root); err != nil {
			return nil, err
		}
	}
	// Claim the front's address first: a busy port fails before any work.
	if s.listener, err = net.Listen("tcp", opts.FrontAddr); err != nil {
		return nil, fmt.Errorf("HTTP API front on %s: %w", opts.FrontAddr, err)
	}
	if err := s.provision(ctx); err != nil {
		return nil, err
	}
	bootstraps, err := s.buildAll(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.startPools(ctx, rieBin, bootstraps); err != nil {
		return nil, err
	}
	s.startFront()
	s.startPollers()
	s.startFiring()
	return s, nil
}

// provision loads the template (translating template.yaml when needed),
// starts or finds the emulator, provisions the template on it and writes
// Options.Config into the config parameter.
func (s *Stack) provision(ctx context.Context) error {
	path := s.opts.Template
	if path == "" {
		path = filepath.Join(s.opts.Root, "build", "template.json")
		if err := template.EnsureTranslated(ctx, s.opts.Root, "template.yaml", path, s.logf); err != nil {
			return err
		}
	}
	tmpl, err := template.Load(path)
	if err != nil {
		return err
	}
	if err := s.startEmulator(ctx); err != nil {
		return err
	}
	cfg, err := awsconfig.Load(ctx, nil)
	if err != nil {
		return err
	}
	cfg.Region = s.opts.Region
	cfg.BaseEndpoint = aws.String(s.EndpointURL)
	// Never sign with real credentials: the emulator's admin key where it
	// enforces IAM, else dummy keys (the emulator accepts any).
	cfg.Credentials = credentials.NewStaticCredentialsProvider("test", "test", "")
	admin := s.adminCredentials()
	if admin != nil {
		cfg.Credentials = credentials.NewStaticCredentialsProvider(admin.AccessKeyID, admin.SecretAccessKey, "")
	}
	s.AWSConfig = cfg
	s.Resources, err = provision.Provision(ctx, cfg, tmpl, provision.Options{StackName: s.opts.Prefix, Params: s.opts.Params, Logf: s.logf, Users: s.iamUsers(admin)})
	if err != nil {
		return err
	}
	if err := s.startRecorder(); err != nil {
		return err
	}
	if path, err := s.writeAdminEnv(); err != nil {
		return err
	} else if path != "" {
		s.logf("the emulator enforces IAM: each function signs as its own user; for tools, `set -a; . %s; set +a` (its admin key)", path)
	}
	if err := s.writeSecrets(ctx); err != nil {
		return err
	}
	if s.opts.Config != nil {
		version, err := s.PutConfig(ctx, s.opts.Config)
		if err != nil {
			return err
		}
		s.logf("config written to parameter %s (version %s)", s.Resources.ConfigParameter, version)
	}
	return nil
}

func withDefaults(o Options) (Options, error) {
	if o.Root == "" {
		o.Root = "."
	}
	root, err := filepath.Abs(o.Root)
	if err != nil {
		return o, fmt.Errorf("repository root: %w", err)
	}
	o.Root = root
	if o.Prefix == "" {
		o.Prefix = DefaultPrefix
	}
	if !provision.StackNamePattern.MatchString(o.Prefix) {
		return o, fmt.Errorf("prefix %q: want lower-case letters, digits and '-', starting with a letter, at most 40 characters", o.Prefix)
	}
	if o.EmulatorAddr == "" {
		o.EmulatorAddr = DefaultEmulatorAddr
	}
	if o.Region == "" {
		o.Region = envOr("AWS_REGION", envOr("AWS_DEFAULT_REGION", "us-east-1"))
	}
	if o.FrontAddr == "" {
		o.FrontAddr = DefaultFrontAddr
	}
	if o.IntegrationTimeout <= 0 {
		o.IntegrationTimeout = DefaultIntegrationTimeout
	}
	if o.PollWait <= 0 {
		o.PollWait = DefaultPollWait
	}
	if o.ConfigTTL <= 0 {
		o.ConfigTTL = DefaultConfigTTL
	}
	if o.SecretsTTL <= 0 {
		o.SecretsTTL = DefaultSecretsTTL
	}
	o.PollWait = min(max(o.PollWait.Round(time.Second), time.Second), 20*time.Second)
	if o.BuildDir == "" {
		o.BuildDir = filepath.Join(o.Root, "build", "dev", o.Prefix)
	}
	if o.Output == nil {
		o.Output = os.Stderr
	}
	if o.Logf == nil {
		o.Logf = func(string, ...any) {}
	}
	return o, nil
}

// startEmulator picks the emulator endpoint, starting moto if none answers.
func (s *Stack) startEmulator(ctx context.Context) error {
	url := s.opts.Endpoint
	if url == "" {
		url = os.Getenv(emulator.EndpointEnv)
	}
	if url == "" {
		url = os.Getenv("AWS_ENDPOINT_URL")
	}
	if url != "" {
		if !answers(ctx, url) {
			return fmt.Errorf("AWS emulator at %s does not answer", url)
		}
		s.EndpointURL = strings.TrimRight(url, "/")
		return nil
	}
	url = "http://" + s.opts.EmulatorAddr
	if answers(ctx, url) {
		s.logf("using the AWS emulator already running at %s", url)
		s.EndpointURL = url
		return nil
	}
	s.logf("starting moto on %s", s.opts.EmulatorAddr)
	emu, err := emulator.Start(ctx, s.opts.EmulatorAddr)
	if err != nil {
		return err
	}
	s.emu, s.EndpointURL, s.EmulatorStarted = emu, emu.URL, true
	return nil
}

// answers tells whether anything answers HTTP at url.
func answers(ctx context.Context, url string) bool {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(url, "/")+"/", nil)
	if err != nil {
		return false
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return true
}

// startFront serves the HTTP API on the claimed listener.
func (s *Stack) startFront() {
	l := s.listener
	s.FrontURL = "http://" + l.Addr().String()
	f := &front.Front{
		Routes:    s.Resources.Routes,
		Invoke:    s.invoke,
		AccountID: s.Resources.AccountID,
		APIID:     "local",
		Timeout:   s.opts.IntegrationTimeout,
		Logf:      s.logf,
	}
	s.server = &http.Server{Handler: f, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := s.server.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.logf("HTTP API front: %v", err)
		}
	}()
	for _, r := range front.RouteList(s.Resources.Routes) {
		s.logf("route %s", r)
	}
}

// startPollers starts each enabled event source mapping's pollers: one per
// RIE process of its function, at most its MaximumConcurrency.
func (s *Stack) startPollers() {
	ctx, cancel := context.WithCancel(context.Background())
	s.pollStop = cancel
	for _, es := range s.Resources.EventSources {
		if !es.Enabled {
			s.logf("event source %s disabled in the template", es.LogicalID)
			continue
		}
		// Lambda polls with the function's role: so does the emulation.
		client := sqs.NewFromConfig(s.functionAWSConfig(es.Function))
		m := esm.New(es, client, s.invoke, s.opts.Region, s.opts.PollWait, s.logf)
		s.esms[es.LogicalID] = m
		n := s.pools[es.Function].Size()
		if es.MaximumConcurrency > 0 {
			n = min(n, es.MaximumConcurrency)
		}
		for i := 0; i < n; i++ {
			s.pollers.Add(1)
			go func() { defer s.pollers.Done(); m.Poll(ctx) }()
		}
		s.logf("event source %s: %s -> %s (batch %d, %d pollers)", es.LogicalID, es.QueueURL, es.Function, es.BatchSize, n)
	}
}

func (s *Stack) invoke(ctx context.Context, function string, payload []byte) ([]byte, error) {
	p, ok := s.pools[function]
	if !ok {
		return nil, fmt.Errorf("no function %s in the stack", function)
	}
	return p.Invoke(ctx, payload)
}

// PutConfig replaces the document in the config parameter (see
// Options.Config) and returns the parameter's new version. The functions
// see it within ConfigTTL. It does not validate data.
func (s *Stack) PutConfig(ctx context.Context, data []byte) (version string, err error) {
	name := s.Resources.ConfigParameter
	if name == "" {
		return "", fmt.Errorf("write config: no function of the template reads a config parameter (%s)", provision.ConfigParameterEnv)
	}
	version, err = ssmparam.New(ssm.NewFromConfig(s.AWSConfig), name).Put(ctx, data)
	if err != nil {
		return "", fmt.Errorf("write config: %w", err)
	}
	return version, nil
}

// Invoke runs the function with logical id function on payload, as a
// synchronous Lambda invoke does, and returns its response. A failure the
// function reports (error, panic, crash, timeout) is a *rie.FunctionError.
func (s *Stack) Invoke(ctx context.Context, function string, payload []byte) ([]byte, error) {
	return s.invoke(ctx, function, payload)
}

// Stats returns the counters of the event source mapping with the given
// logical id (e.g. "RunnerWork").
func (s *Stack) Stats(eventSource string) (esm.Stats, bool) {
	m, ok := s.esms[eventSource]
	if !ok {
		return esm.Stats{}, false
	}
	return m.Stats(), true
}

// Outputs are the template's Outputs, resolved against what runs locally
// (see provision.Resources.Outputs).
func (s *Stack) Outputs() []template.OutputValue {
	return s.Resources.Outputs
}

// Close stops the stack: the front, the queue pollers (each waits for its
// open ReceiveMessage call, at most PollWait, and hands back what it
// returns), the RIE processes (in-flight invocations are abandoned and their
// SQS batches handed back), and the emulator if Start launched it. It is
// safe to call more than once and always returns nil (it is an io.Closer).
func (s *Stack) Close() error {
	s.closeOnce.Do(func() {
		if s.pollStop != nil {
			s.pollStop()
		}
		s.stopFiring()
		if s.server != nil {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			if err := s.server.Shutdown(ctx); err != nil {
				_ = s.server.Close()
			}
			cancel()
		} else if s.listener != nil {
			_ = s.listener.Close()
		}
		var wg sync.WaitGroup
		for _, p := range s.pools {
			wg.Add(1)
			go func() { defer wg.Done(); p.Close() }()
		}
		wg.Wait()
		s.pollers.Wait()
		s.stopRecorder()
		if s.emu != nil {
			s.emu.Stop()
		}
	})
	return nil
}

// Describe lists what the stack runs, for humans. It prints no secrets
// (function environments by name only).
func (s *Stack) Describe() string {
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	r := s.Resources
	fmt.Fprintf(w, "AWS emulator\t%s\n", s.EndpointURL)
	fmt.Fprintf(w, "HTTP API\t%s\n", s.FrontURL)
	for _, rt := range r.Routes {
		path := rt.Path
		if path == "$default" {
			path = "/"
		}
		fmt.Fprintf(w, "route %s\t%s%s -> %s\n", rt.RouteKey(), s.FrontURL, path, rt.Function)
	}
	for _, id := range sortedKeys(r.Queues) {
		fmt.Fprintf(w, "queue %s\t%s\n", id, r.Queues[id].URL)
	}
	for _, id := range sortedKeys(r.Tables) {
		fmt.Fprintf(w, "table %s\t%s\n", id, r.Tables[id].Name)
	}
	for _, id := range sortedKeys(r.Buckets) {
		fmt.Fprintf(w, "bucket %s\t%s\n", id, r.Buckets[id].Name)
	}
	for _, id := range sortedKeys(r.SSMParameters) {
		fmt.Fprintf(w, "parameter %s\t%s\n", id, r.SSMParameters[id].Name)
	}
	for _, id := range sortedKeys(r.Functions) {
		fn := r.Functions[id]
		fmt.Fprintf(w, "function %s\t%s: %d RIE process(es), timeout %s, env %s\n",
			id, fn.SourceDir, s.pools[id].Size(), fn.Timeout, strings.Join(sortedKeys(fn.Env), " "))
	}
	for _, es := range r.EventSources {
		fmt.Fprintf(w, "trigger %s\t%s -> %s (batch %d, ReportBatchItemFailures %t)\n",
			es.LogicalID, es.Queue, es.Function, es.BatchSize, es.ReportBatchItemFailures)
	}
	for _, o := range r.Outputs {
		if o.Unavailable != "" {
			fmt.Fprintf(w, "output %s\t(not available locally: %s)\n", o.Name, o.Unavailable)
		} else {
			fmt.Fprintf(w, "output %s\t%s\n", o.Name, o.Value)
		}
	}
	_ = w.Flush()
	return b.String()
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}
