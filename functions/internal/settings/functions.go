package settings

import (
	"fmt"
	"strings"
	"time"

	"github.com/zero-gateway/zero/shared/model"
)

// The parts several functions share.

// Config is zero.json's SSM parameter and how often a warm function reads
// it again: every function has it.
type Config struct {
	// Parameter is the SSM parameter holding zero.json.
	Parameter string `env:"ZERO_CONFIG_PARAMETER,required"`
	// TTL is how often the config is read again: edits apply within it
	// (ssmparam.DefaultTTL; `zero dev` sets it short; 0: every use).
	TTL time.Duration `env:"ZERO_CONFIG_TTL,default=30s"`
}

// Secrets is how long a warm function keeps its secrets before reading
// them again: a rotation reaches every instance within it
// (ssmparam.DefaultSecretsTTL; `zero dev` sets it short).
type Secrets struct {
	TTL time.Duration `env:"ZERO_SECRETS_TTL,default=5m,min=1ns"`
}

// Schedules name where cron jobs' EventBridge Scheduler schedules go
// (the stack's group, the Cron function, the role Scheduler invokes it
// as); without all three, jobs are stored but never fire.
type Schedules struct {
	Group     string `env:"ZERO_CRON_GROUP"`
	TargetARN string `env:"ZERO_CRON_TARGET_ARN"`
	RoleARN   string `env:"ZERO_CRON_ROLE_ARN"`
}

// Complete reports whether all three are set.
func (s Schedules) Complete() bool { return s.Group != "" && s.TargetARN != "" && s.RoleARN != "" }

// Endpoints are the AWS SDK's own endpoint overrides (the local stack,
// tests). The SDK reads them itself; a function reads them only to
// address S3 by path, as emulators want.
type Endpoints struct {
	AWS string `env:"AWS_ENDPOINT_URL"`
	S3  string `env:"AWS_ENDPOINT_URL_S3"`
}

// S3PathStyle reports whether S3 is addressed by path (an emulator) rather
// than by virtual host.
func (e Endpoints) S3PathStyle() bool { return e.AWS != "" || e.S3 != "" }

// The functions.

// TelegramWebhook is the settings of functions/telegram-webhook.
type TelegramWebhook struct {
	// BotID is the bot's numeric id (the bot token's part before ':'), for
	// the dedup ids: the webhook never sees the token.
	BotID string `env:"TELEGRAM_BOT_ID,required"`
	// WebhookSecretParameter holds setWebhook's secret_token.
	WebhookSecretParameter string `env:"TELEGRAM_WEBHOOK_SECRET_PARAMETER,required" secret:"telegram-webhook-secret"`
	Queue                  string `env:"ZERO_QUEUE_URL,required"`
	// Table is where a /stop is marked the moment it arrives; "": /stop
	// waits its turn in the queue.
	Table   string `env:"ZERO_TABLE"`
	Config  Config
	Secrets Secrets
}

// Validate implements Validator.
func (s TelegramWebhook) Validate() error {
	if err := checkTags(s); err != nil {
		return err
	}
	if strings.Trim(s.BotID, "0123456789") != "" {
		return fmt.Errorf("environment variable TELEGRAM_BOT_ID: want the bot's numeric id (the bot token's part before ':')")
	}
	return nil
}

// DiscordInteractions is the settings of functions/discord-interactions.
// It reads no secret: the public key is public.
type DiscordInteractions struct {
	// PublicKey is the application's Ed25519 public key, hex; missing or
	// malformed, every request is refused with 401.
	PublicKey string `env:"DISCORD_PUBLIC_KEY"`
	// ApplicationID is logged; the interactions carry it.
	ApplicationID string `env:"DISCORD_APPLICATION_ID"`
	Queue         string `env:"ZERO_QUEUE_URL,required"`
	// Table: as TelegramWebhook's.
	Table  string `env:"ZERO_TABLE"`
	Config Config
}

// Validate implements Validator.
func (s DiscordInteractions) Validate() error { return checkTags(s) }

// Hooks is the settings of functions/hooks. No table: a hook's message is
// never a /stop.
type Hooks struct {
	// TokenParameter holds the hooks' bearer token; a parameter not set:
	// every hook is refused.
	TokenParameter string `env:"ZERO_HOOKS_TOKEN_PARAMETER,required" secret:"hooks-token"`
	Queue          string `env:"ZERO_QUEUE_URL,required"`
	// SubagentQueue is the sub-agent lane; "": those messages go to Queue.
	SubagentQueue string `env:"ZERO_SUBAGENT_QUEUE_URL"`
	Config        Config
	Secrets       Secrets
}

// Validate implements Validator.
func (s Hooks) Validate() error { return checkTags(s) }

// Cron is the settings of functions/cron.
type Cron struct {
	// Table holds the jobs, their run records and the runs.
	Table  string `env:"ZERO_TABLE,required"`
	Queue  string `env:"ZERO_QUEUE_URL,required"`
	Config Config
}

// Validate implements Validator.
func (s Cron) Validate() error { return checkTags(s) }

// Gateway is the settings of functions/gateway.
type Gateway struct {
	// TokenParameter holds the bearer token; a parameter not set: every
	// call is refused.
	TokenParameter string `env:"ZERO_GATEWAY_TOKEN_PARAMETER,required" secret:"gateway-token"`
	Table          string `env:"ZERO_TABLE,required"`
	Bucket         string `env:"ZERO_BUCKET,required"`
	Queue          string `env:"ZERO_QUEUE_URL,required"`
	SubagentQueue  string `env:"ZERO_SUBAGENT_QUEUE_URL"`
	// DLQ and SubagentDLQ are the dead-letter queues whose depth status
	// reports (each optional).
	DLQ         string `env:"ZERO_DLQ_URL"`
	SubagentDLQ string `env:"ZERO_SUBAGENT_DLQ_URL"`
	Config      Config
	Secrets     Secrets
	Schedules   Schedules
	Endpoints   Endpoints
}

// Validate implements Validator.
func (s Gateway) Validate() error { return checkTags(s) }

// Runner is the settings of functions/runner.
type Runner struct {
	Table  string `env:"ZERO_TABLE,required"`
	Bucket string `env:"ZERO_BUCKET,required"`
	// Queue is the work queue; "": a failed message waits for the
	// visibility timeout, sessions_send is off and announces are dropped.
	Queue         string `env:"ZERO_QUEUE_URL"`
	SubagentQueue string `env:"ZERO_SUBAGENT_QUEUE_URL"`
	// Model is the default provider/model (DefaultModel).
	Model string `env:"ZERO_MODEL,default=zero/echo"`
	// BedrockModels are the Bedrock models the role may invoke (the
	// stack's BedrockModels); none: Bedrock is off.
	BedrockModels []string `env:"ZERO_BEDROCK_MODELS"`
	// ConfigWrites lets the gateway tool write zero.json.
	ConfigWrites bool `env:"ZERO_CONFIG_WRITES"`
	Consumer     Consumer
	Telegram     Telegram
	Discord      Discord
	OpenAI       OpenAI
	Anthropic    Anthropic
	Brave        Brave
	Config       Config
	Secrets      Secrets
	Schedules    Schedules
	Endpoints    Endpoints
}

// Validate implements Validator.
func (s Runner) Validate() error {
	if err := checkTags(s); err != nil {
		return err
	}
	_, err := s.DefaultModel()
	return err
}

// DefaultModel is Model parsed; the error names ZERO_MODEL.
func (s Runner) DefaultModel() (model.Ref, error) { return model.ParseRef(s.Model) }

// Consumer is how the runner takes its queue's batches.
type Consumer struct {
	// GroupConcurrency is how many sessions of a batch run at once
	// (sqsqueue.DefaultConcurrency).
	GroupConcurrency int `env:"ZERO_GROUP_CONCURRENCY,default=10,min=1"`
	// MinBudgetSeconds is the least time left for a turn to start.
	MinBudgetSeconds int `env:"ZERO_MIN_BUDGET_SECONDS,default=120"`
	// MaxReceiveCount is the queue's redrive count: the last receive
	// before the DLQ tells the user.
	MaxReceiveCount int `env:"ZERO_MAX_RECEIVE_COUNT,default=5"`
	// RetryBaseSeconds and RetryMaxSeconds bound a failed message's
	// backoff.
	RetryBaseSeconds int `env:"ZERO_RETRY_BASE_SECONDS,default=5"`
	RetryMaxSeconds  int `env:"ZERO_RETRY_MAX_SECONDS,default=300"`
}

// Telegram is the runner's Bot API client.
type Telegram struct {
	BotTokenParameter string `env:"TELEGRAM_BOT_TOKEN_PARAMETER,required" secret:"telegram-bot-token"`
	// APIBaseURL: "" is telegram.DefaultBaseURL.
	APIBaseURL string `env:"TELEGRAM_API_BASE_URL"`
}

// Discord is the runner's Discord client: replies on when ApplicationID is
// set; the bot token (optional) posts once an interaction's 15 minutes
// are over.
type Discord struct {
	ApplicationID     string `env:"DISCORD_APPLICATION_ID"`
	BotTokenParameter string `env:"DISCORD_BOT_TOKEN_PARAMETER" secret:"discord-bot-token"`
	// APIBaseURL: "" is discord.DefaultBaseURL.
	APIBaseURL string `env:"DISCORD_API_BASE_URL"`
	// CDNBaseURL: "" fetches attachments from their own CDN URL (a fake's
	// in tests).
	CDNBaseURL string `env:"DISCORD_CDN_BASE_URL"`
}

// OpenAI is the OpenAI-compatible provider.
type OpenAI struct {
	KeyParameter string `env:"OPENAI_API_KEY_PARAMETER,required" secret:"openai-api-key"`
	// BaseURL: "" is openai.DefaultBaseURL.
	BaseURL string `env:"OPENAI_BASE_URL"`
}

// Anthropic is the Anthropic provider.
type Anthropic struct {
	KeyParameter string `env:"ANTHROPIC_API_KEY_PARAMETER,required" secret:"anthropic-api-key"`
	// BaseURL: "" is anthropic.DefaultBaseURL.
	BaseURL string `env:"ANTHROPIC_BASE_URL"`
}

// Brave is web_search's Brave Search client; no key parameter: web_search
// answers that it is not configured.
type Brave struct {
	KeyParameter string `env:"BRAVE_API_KEY_PARAMETER" secret:"brave-api-key"`
	// BaseURL: "" is brave.DefaultBaseURL.
	BaseURL string `env:"BRAVE_API_BASE_URL"`
}
