// Command runner is the Lambda that consumes the FIFO work queue and the
// sub-agent queue (two event source mappings, one per lane) and runs each
// inbound message as one turn of its session (shared/turn).
//
// Its secrets (the bot token, the OpenAI and Anthropic keys) are SSM
// SecureString parameters named by TELEGRAM_BOT_TOKEN_PARAMETER,
// OPENAI_API_KEY_PARAMETER and ANTHROPIC_API_KEY_PARAMETER: read with one
// call at cold start and again every ZERO_SECRETS_TTL, the clients holding
// them rebuilt when one changed.
package main

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"strconv"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/ssm"

	"github.com/zero-gateway/zero/functions/internal/ingress"
	"github.com/zero-gateway/zero/shared/anthropic"
	"github.com/zero-gateway/zero/shared/awsconfig"
	"github.com/zero-gateway/zero/shared/contextstore"
	"github.com/zero-gateway/zero/shared/discord"
	"github.com/zero-gateway/zero/shared/dynamo"
	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/ingest"
	"github.com/zero-gateway/zero/shared/lambdalog"
	"github.com/zero-gateway/zero/shared/memory"
	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/openai"
	"github.com/zero-gateway/zero/shared/s3store"
	"github.com/zero-gateway/zero/shared/secret"
	"github.com/zero-gateway/zero/shared/session"
	"github.com/zero-gateway/zero/shared/sqsqueue"
	"github.com/zero-gateway/zero/shared/ssmparam"
	"github.com/zero-gateway/zero/shared/telegram"
	"github.com/zero-gateway/zero/shared/tools/builtin"
	"github.com/zero-gateway/zero/shared/tools/web"
	"github.com/zero-gateway/zero/shared/transcript"
	"github.com/zero-gateway/zero/shared/turn"
	"github.com/zero-gateway/zero/shared/webchat"
	"github.com/zero-gateway/zero/shared/workspace"
)

// maxCollect is the most messages one runner call takes together: an SQS
// batch holds at most 10.
const maxCollect = 10

const systemPrompt = "You are ZERO, a personal assistant. Answer briefly and helpfully."

func main() {
	logger := lambdalog.Install(os.Stderr) // JSON lines with the request id; slog's default too
	calls := awsconfig.NewCounter()
	app, err := setup(context.Background(), logger, calls)
	if err != nil {
		// Failing init makes Lambda report the error and SQS redeliver the
		// batch later, so a bad config loses no message.
		logger.Error("runner init failed", "err", err)
		os.Exit(1)
	}
	lambda.Start(func(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
		// One invocation at a time per instance, so the counter is per batch.
		calls.Reset()
		resp := app.consumer.Consume(ctx, ev)
		logger.InfoContext(ctx, "batch done", "records", len(ev.Records), "failed", len(resp.BatchItemFailures),
			"aws_calls", calls.Total(), "aws_ops", calls.String())
		return resp, nil
	})
}

// app is the runner's wiring: the turn processor and the queue consumer
// that feeds it.
type app struct {
	proc     *turn.Processor
	consumer *sqsqueue.Consumer
}

func setup(ctx context.Context, logger *slog.Logger, calls *awsconfig.Counter) (*app, error) {
	env, err := requireEnv("ZERO_TABLE", "ZERO_BUCKET")
	if err != nil {
		return nil, err
	}
	consumer, err := consumerFromEnv(logger)
	if err != nil {
		return nil, err
	}
	ref, err := model.ParseRef(envOr("ZERO_MODEL", "zero/echo"))
	if err != nil {
		return nil, err
	}
	awsCfg, err := awsconfig.Load(ctx, calls)
	if err != nil {
		return nil, err
	}
	ssmClient := ssm.NewFromConfig(awsCfg)
	settings, err := ssmparam.SettingsFromEnv(ssmClient, logger)
	if err != nil {
		return nil, err
	}
	secrets, err := loadSecrets(ctx, ssmClient, logger)
	if err != nil {
		return nil, err
	}
	models, err := newModels(ctx, ref, secrets, bedrockruntime.NewFromConfig(awsCfg), logger)
	if err != nil {
		return nil, err
	}
	senders, err := newSenders(ctx, secrets, logger)
	if err != nil {
		return nil, err
	}
	store := dynamo.New(dynamodb.NewFromConfig(awsCfg), env["ZERO_TABLE"])
	proc := newProcessor(awsCfg, ssmClient, store, env["ZERO_BUCKET"], ref, models, senders, secrets, settings, logger)
	// A session's consecutive messages go together, so queue mode collect
	// can answer them as one turn; different sessions run concurrently.
	consumer.Handler, consumer.Failed = tallied(proc.HandleGroup), proc.Failed
	proc.CallsOf = awsconfig.TallyOf
	if err := wireQueues(awsCfg, store, proc, consumer, settings, logger); err != nil {
		return nil, err
	}
	return &app{proc: proc, consumer: consumer}, nil
}

// delayersOf maps each queue's name to the queue, for
// sqsqueue.Consumer.Delayers.
func delayersOf(queues []*sqsqueue.Queue) map[string]sqsqueue.Delayer {
	out := make(map[string]sqsqueue.Delayer, len(queues))
	for _, q := range queues {
		out[q.Name()] = q
	}
	return out
}

// loadSecrets reads the runner's secrets once, at cold start (one
// GetParameters): a missing bot token stops here, named. The Discord bot
// token is read only where the deployment names its parameter.
func loadSecrets(ctx context.Context, client *ssm.Client, logger *slog.Logger) (*ssmparam.Secrets, error) {
	specs := []secret.Spec{secret.TelegramBotToken, secret.OpenAIAPIKey, secret.AnthropicAPIKey}
	if os.Getenv(secret.DiscordBotToken.Env) != "" {
		specs = append(specs, secret.DiscordBotToken)
	}
	if braveKeyConfigured() { // web_search's key (web.go)
		specs = append(specs, secret.BraveAPIKey)
	}
	secrets, err := ssmparam.SecretsFromEnv(client, logger, specs...)
	if err != nil {
		return nil, err
	}
	if err := secrets.Load(ctx); err != nil {
		return nil, err
	}
	return secrets, nil
}

// newSenders builds the channels' reply senders, each holding the token
// in force (rebuilt when a re-read finds it rotated): Telegram always,
// Discord where DISCORD_APPLICATION_ID is set (its bot token optional).
func newSenders(ctx context.Context, secrets *ssmparam.Secrets, logger *slog.Logger) (map[string]turn.Sender, error) {
	httpClient := &http.Client{Timeout: 60 * time.Second}
	tgBase := envOr("TELEGRAM_API_BASE_URL", "https://api.telegram.org")
	tg := &telegramSender{client: secret.Derive(secrets, secret.TelegramBotToken, func(token string) (*telegram.Client, error) {
		return telegram.NewClient(tgBase, token, httpClient), nil
	})}
	if _, err := tg.client.Get(ctx); err != nil {
		return nil, err
	}
	// WebChat's replies stay in the transcript; the control page reads them.
	senders := map[string]turn.Sender{"telegram": tg, webchat.Channel: webchat.Sender{}}
	if appID := os.Getenv("DISCORD_APPLICATION_ID"); appID != "" {
		var tokens secret.Getter = noSecret{}
		if os.Getenv(secret.DiscordBotToken.Env) != "" {
			tokens = secret.OrEmpty(secrets)
		}
		senders[discord.Channel] = newDiscordSender(tokens, appID, httpClient)
		logger.Info("discord replies on", "application_id", appID)
	}
	return senders, nil
}

// consumerFromEnv reads the queue consumer's settings; a bad value is an
// error naming its variable.
func consumerFromEnv(logger *slog.Logger) (*sqsqueue.Consumer, error) {
	var n [5]int
	for i, v := range []struct {
		name     string
		def, min int
	}{
		{"ZERO_GROUP_CONCURRENCY", sqsqueue.DefaultConcurrency, 1},
		{"ZERO_MIN_BUDGET_SECONDS", 120, 0},
		{"ZERO_MAX_RECEIVE_COUNT", 5, 0},
		{"ZERO_RETRY_BASE_SECONDS", 5, 0},
		{"ZERO_RETRY_MAX_SECONDS", 300, 0},
	} {
		var err error
		if n[i], err = intEnv(v.name, v.def, v.min); err != nil {
			return nil, err
		}
	}
	return &sqsqueue.Consumer{
		Concurrency: n[0], MaxRun: maxCollect, MinBudget: time.Duration(n[1]) * time.Second, MaxReceives: n[2],
		Backoff: sqsqueue.Backoff{Base: time.Duration(n[3]) * time.Second, Max: time.Duration(n[4]) * time.Second},
		Log:     logger,
	}, nil
}

// intEnv reads an integer variable, def when unset.
func intEnv(name string, def, minimum int) (int, error) {
	raw := os.Getenv(name)
	if raw == "" {
		return def, nil
	}
	v, err := strconv.Atoi(raw)
	if err != nil || v < minimum {
		return 0, fmt.Errorf("environment variable %s: %q is not a whole number >= %d", name, raw, minimum)
	}
	return v, nil
}

// newModels builds a client for every provider this deployment can reach:
// the built-in echo model always, Bedrock when ZERO_BEDROCK_MODELS names
// models (any other Bedrock model gets a clean notice), OpenAI-compatible and
// Anthropic when their key (or a local base URL) is set at cold start. ZERO_MODEL, the default, must be among them; a
// session or agent naming a missing provider gets a clean notice. A key
// rotated later reaches its client within the secrets' TTL; a provider
// whose key is first set later is on from the next cold start.
func newModels(ctx context.Context, def model.Ref, secrets secret.Getter, br *bedrockruntime.Client, logger *slog.Logger) (map[string]model.Client, error) {
	models := map[string]model.Client{model.EchoProvider: model.Echo{}}
	// Bedrock needs no key: the role allows the models ZERO_BEDROCK_MODELS
	// names, and the runner refuses any other with a clean notice.
	if err := addBedrock(models, def, br, logger); err != nil {
		return nil, err
	}
	keys := secret.OrEmpty(secrets)
	oaBase := envOr("OPENAI_BASE_URL", "https://api.openai.com/v1")
	oaHTTP := &http.Client{Timeout: 90 * time.Second}
	oa := secret.Derive(keys, secret.OpenAIAPIKey, func(key string) (model.Client, error) {
		return openai.New(openai.Config{APIKey: key, BaseURL: oaBase, HTTPClient: oaHTTP})
	})
	anBase := envOr("ANTHROPIC_BASE_URL", anthropic.DefaultBaseURL)
	anHTTP := &http.Client{Timeout: 300 * time.Second}
	an := secret.Derive(keys, secret.AnthropicAPIKey, func(key string) (model.Client, error) {
		return anthropic.New(anthropic.Config{APIKey: key, BaseURL: anBase, HTTPClient: anHTTP, MaxRetries: 2})
	})
	for _, p := range []struct {
		name string
		c    *secret.Derived[model.Client]
	}{{"openai", oa}, {"anthropic", an}} {
		_, err := p.c.Get(ctx)
		switch {
		case err == nil:
			models[p.name] = rotatingModel{p.c}
		case def.Provider == p.name:
			return nil, err
		default:
			logger.Info(p.name+" provider not configured", "reason", err.Error())
		}
	}
	if _, ok := models[def.Provider]; !ok {
		return nil, fmt.Errorf("ZERO_MODEL: unknown provider %q in %s (known: zero, openai, anthropic, bedrock)", def.Provider, def)
	}
	if def.Provider == model.EchoProvider && def.Name != "echo" {
		return nil, fmt.Errorf("ZERO_MODEL: the built-in provider has only zero/echo, not %s", def)
	}
	return models, nil
}

// rotatingModel calls the provider's client built from the key in force.
type rotatingModel struct{ c *secret.Derived[model.Client] }

func (m rotatingModel) Complete(ctx context.Context, req model.Request) (model.Response, error) {
	c, err := m.c.Get(ctx)
	if err != nil {
		return model.Response{}, err
	}
	return c.Complete(ctx, req)
}

// telegramSender posts with the client built from the bot token in force.
type telegramSender struct {
	client *secret.Derived[*telegram.Client]
}

// Render needs no token: the rendering of any client will do.
func (s *telegramSender) Render(text string) []string {
	c, err := s.client.Get(context.Background())
	if err != nil {
		c = telegram.NewClient("", "", nil)
	}
	return c.Render(text)
}

func (s *telegramSender) Post(ctx context.Context, to session.DeliveryContext, message string) error {
	c, err := s.client.Get(ctx)
	if err != nil {
		return err
	}
	return c.Post(ctx, to, message)
}

// discordSender answers Discord interactions with the client built from
// the bot token in force; without a bot token (it is optional) only the
// interaction webhooks work, for 15 minutes after each interaction.
type discordSender struct {
	client *secret.Derived[*discord.Client]
}

func newDiscordSender(tokens secret.Getter, appID string, httpClient *http.Client) *discordSender {
	base := envOr("DISCORD_API_BASE_URL", discord.DefaultBaseURL)
	cdn := os.Getenv("DISCORD_CDN_BASE_URL") // "": attachments come from their own CDN URL
	return &discordSender{client: secret.Derive(tokens, secret.DiscordBotToken, func(token string) (*discord.Client, error) {
		return discord.NewClient(discord.ClientConfig{BaseURL: base, CDNBaseURL: cdn, ApplicationID: appID, BotToken: token, HTTPClient: httpClient}), nil
	})}
}

// noSecret is a getter whose every secret is unset ("").
type noSecret struct{}

func (noSecret) Get(context.Context, secret.Spec) (string, error) { return "", nil }

func (s *discordSender) current(ctx context.Context) (*discord.Client, error) {
	return s.client.Get(ctx)
}

// Render needs no token.
func (s *discordSender) Render(text string) []string {
	return discord.NewClient(discord.ClientConfig{}).Render(text)
}

func (s *discordSender) Post(ctx context.Context, to session.DeliveryContext, message string) error {
	c, err := s.current(ctx)
	if err != nil {
		return err
	}
	return c.Post(ctx, to, message)
}

func (s *discordSender) PostPart(ctx context.Context, to session.DeliveryContext, part int, message string) error {
	c, err := s.current(ctx)
	if err != nil {
		return err
	}
	return c.PostPart(ctx, to, part, message)
}

func requireEnv(names ...string) (map[string]string, error) {
	out := make(map[string]string, len(names))
	for _, n := range names {
		v := os.Getenv(n)
		if v == "" {
			return nil, fmt.Errorf("environment variable %s is required", n)
		}
		out[n] = v
	}
	return out, nil
}

func envOr(name, fallback string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return fallback
}

// tallied gives each session's run of messages its own AWS call tally
// (awsconfig.WithTally), so a turn prices its own calls (a sub-agent's
// announce) while other sessions of the batch run beside it.
func tallied(h sqsqueue.GroupHandler) sqsqueue.GroupHandler {
	return func(ctx context.Context, msgs []inbound.Message, attempts []int) (int, error) {
		return h(awsconfig.WithTally(ctx), msgs, attempts)
	}
}

// newProcessor builds the turn processor over the table and the bucket,
// with every tool's backend (the queues come later: wireQueues).
func newProcessor(awsCfg aws.Config, ssmClient *ssm.Client, store *dynamo.Store, bucketName string, ref model.Ref, models map[string]model.Client,
	senders map[string]turn.Sender, secrets *ssmparam.Secrets, settings turn.Settings, logger *slog.Logger) *turn.Processor {
	local := os.Getenv("AWS_ENDPOINT_URL") != "" || os.Getenv("AWS_ENDPOINT_URL_S3") != ""
	s3Client := s3.NewFromConfig(awsCfg, func(o *s3.Options) { o.UsePathStyle = local })
	bucket := s3store.New(s3Client, bucketName)
	return &turn.Processor{
		Store:      store,
		Runs:       store.Runs(),
		Transcript: transcript.NewLog(bucket),
		Contexts:   contextstore.New(bucket), // long contexts' base objects under contexts/
		Workspace:  workspace.NewLoader(bucket, workspace.DefaultTTL, logger),
		Tools: builtin.Deps{
			Memory:     memory.NewIndex(bucket),
			Files:      bucket, // read, write, edit, apply_patch; conditional PutObject/DeleteObject
			WebFetch:   web.CachedFetcher(newWebFetcher(), store.WebCache(), logger),
			WebSearch:  web.CachedSearcher(newWebSearcher(secrets), store.WebCache(), logger),
			ImageFetch: newWebFetcher(),                    // the image tool's URLs, under web_fetch's SSRF guard
			Cron:       cronService(awsCfg, store, logger), // the cron tool (automation.go)
			ConfigDoc:  configDoc(ssmClient),               // the gateway tool, when commands.restart enables it
		},
		Models:       models,
		DefaultModel: ref,
		Senders:      senders,
		Messengers:   messengersOf(senders),  // the message tool
		Attachments:  attachmentsOf(senders), // photos sent to the bot (Telegram getFile)
		Settings:     settings,
		System:       systemPrompt,
		Log:          logger,
		Now:          time.Now,
	}
}

// wireQueues gives the processor and the consumer the work queues (when
// ZERO_QUEUE_URL is set): the delays of failed records, the ingest door
// for sessions_send and sessions_spawn, and the outbox's deliveries.
func wireQueues(awsCfg aws.Config, store *dynamo.Store, proc *turn.Processor, consumer *sqsqueue.Consumer, settings ingest.Settings, logger *slog.Logger) error {
	if os.Getenv("ZERO_QUEUE_URL") == "" {
		logger.Warn("ZERO_QUEUE_URL is not set: a failed message waits for the queue's visibility timeout instead of a backoff, sessions_send is not offered, and announces are dropped (no outbox)")
		return nil
	}
	// The lanes: the work queue, and the sub-agent queue where
	// ZERO_SUBAGENT_QUEUE_URL names it (docs/queues.md).
	lanes, queues, err := ingress.Lanes(sqs.NewFromConfig(awsCfg))
	if err != nil {
		return err
	}
	queue := queues[0]
	// A failed record is delayed on the queue it came from.
	consumer.Delayer, consumer.Delayers = queue, delayersOf(queues)
	// sessions_send and sessions_spawn queue for other sessions through
	// the ingest door, a sub-agent's session on the sub-agent lane.
	proc.Door = ingest.NewDoor(ingest.Deps{Settings: settings, Queue: lanes, Stops: store})
	// Announces are kept in the outbox and delivered from their own
	// KindDeliver messages on this queue.
	proc.Outbox, proc.Work = store.Outbox(), queue
	return nil
}
