// Package config reads zero.json (JSON5): the seeds' session.*, agents.*,
// bindings, tools.* and channels.* keys with their defaults, validated on
// load. It is core: no AWS import; where the bytes come from is a Source.
package config

import (
	"errors"
	"strings"
	"sync"
	"time"

	// Lambda's minimal image has no zoneinfo; embed it so
	// session.timeZone works everywhere.
	_ "time/tzdata"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/session"
)

// Defaults the seeds fix, and ZERO's where they are silent.
const (
	DefaultAtHour              = 4
	DefaultMaxPingPongTurns    = 5
	DefaultArchiveAfterMinutes = 60
	DefaultTimeZone            = "UTC"
	DefaultQueueCap            = 20
	DefaultWebSearchResults    = 5
	DefaultWebFetchMaxChars    = 50_000
)

// Session tool visibility in a sandbox
// (agents.defaults.sandbox.sessionToolsVisibility).
const (
	VisibilitySpawned = "spawned" // default: only sessions the agent spawned
	VisibilityAll     = "all"
)

// Tool profiles (tools.profile, agents.list[].tools.profile,
// tools.byProvider.<key>.profile).
const (
	ProfileMinimal   = "minimal"
	ProfileCoding    = "coding"
	ProfileMessaging = "messaging"
	ProfileFull      = "full"
)

// Config is a parsed, validated zero.json. Treat it as read-only: a Cache
// hands the same *Config to concurrent callers. Its fields hold the
// defaults for every key the document omits; ids and names are trimmed and
// lower-cased.
type Config struct {
	Session  Session
	Agents   Agents
	Bindings []session.Binding // in file order; PeerKind "dm" is stored as "direct"
	Tools    Tools
	Channels map[string]Channel // by lower-cased channel name
	Messages Messages
	Models   Models   // models.*: prices
	Commands Commands // commands.*: the gateway tool

	warnings []string
}

// Session is session.*.
type Session struct {
	Scope          string                         // per-sender (default) | global
	DMScope        string                         // main (default) | per-peer | per-channel-peer | per-account-channel-peer
	MainKey        string                         // default "main"
	IdentityLinks  []session.IdentityLink         // in file order; peers "<provider>:<id>"
	Reset          session.ResetPolicy            // resolved, after the legacy idle-only mapping
	ResetByType    map[string]session.ResetPolicy // dm, group, thread; nil when unset
	ResetByChannel map[string]session.ResetPolicy // by channel; nil when unset
	ResetTriggers  []string                       // session.resetTriggers as written (trimmed, lower-cased); see Config.ResetTriggers
	NoResetNotice  bool                           // session.resetNotice: false; the notice is on by default
	SendPolicy     session.SendPolicy
	AgentToAgent   AgentToAgent
	// TimeZone is the IANA zone daily resets use: session.timeZone, else
	// agents.defaults.userTimezone, else "UTC". Location is it loaded.
	TimeZone string
	Location *time.Location
}

// AgentToAgent is session.agentToAgent.
type AgentToAgent struct {
	MaxPingPongTurns int // 0-5, default 5
}

// Agents is agents.*.
type Agents struct {
	Defaults AgentDefaults
	List     []Agent // in file order
}

// AgentDefaults is agents.defaults.
type AgentDefaults struct {
	Model ModelChoice
	// ImageModel is the image tool's model (agents.defaults.imageModel);
	// unset: the run's own model when it accepts images.
	ImageModel ModelChoice
	// Models is the model catalog (agents.defaults.models) in file order.
	Models       []CatalogModel
	UserTimezone string // as written; Session.TimeZone is the one in use
	// ContextTokens is the model's context window in tokens
	// (agents.defaults.contextTokens), shown by /status; 0: unknown.
	ContextTokens int
	// TimeoutSeconds bounds one agent run (agents.defaults.timeoutSeconds,
	// default DefaultTimeoutSeconds); the runner also stops in time for
	// its own Lambda deadline, whichever comes first.
	TimeoutSeconds int
	// Compaction is agents.defaults.compaction.
	Compaction Compaction
	Sandbox    Sandbox
	// BlockStreaming is agents.defaults.blockStreaming* (streaming.go).
	BlockStreaming BlockStreaming
	Subagents      SubagentDefaults
	Tools          ToolPolicy
}

// Queue modes (messages.queue.mode, byChannel, a session's /queue).
const (
	QueueCollect   = "collect"   // messages that waited for a busy session run as one turn
	QueueFollowup  = "followup"  // one turn each, in order
	QueueSteer     = "steer"     // ZERO: as collect (see docs/queues.md)
	QueueInterrupt = "interrupt" // a new message stops the running turn
)

// QueueModes lists the accepted modes.
var QueueModes = []string{QueueCollect, QueueFollowup, QueueSteer, QueueInterrupt}

// Queue overflow policies (messages.queue.drop).
const (
	DropOld       = "old"
	DropNew       = "new"
	DropSummarize = "summarize"
)

// Messages is messages.*.
type Messages struct {
	Queue Queue
}

// Queue is messages.queue: how messages that arrive while a session is
// busy are handled.
type Queue struct {
	Mode      string            // default QueueCollect
	ByChannel map[string]string // channel → mode; wins over Mode
	Cap       int               // most messages one collected turn takes (default 20)
	Drop      string            // beyond Cap: old, new or summarize (default summarize)
	// DebounceMs holds a collect turn's start until the chat has been
	// quiet this long (0: no wait); see turn's debounce.
	DebounceMs int
}

// QueueMode is the mode for a session on channel whose own choice (/queue,
// sessions.patch) is sessionMode ("" for none).
func (c *Config) QueueMode(channel, sessionMode string) string {
	if sessionMode != "" {
		return sessionMode
	}
	if m, ok := c.Messages.Queue.ByChannel[strings.ToLower(channel)]; ok {
		return m
	}
	if c.Messages.Queue.Mode != "" {
		return c.Messages.Queue.Mode
	}
	return QueueCollect
}

// Compaction tunes automatic compaction.
type Compaction struct {
	// ReserveTokens is the room kept free in the context window for the
	// next answer: a run whose context would exceed the window minus this
	// compacts first (agents.defaults.compaction.reserveTokens, default
	// DefaultReserveTokens).
	ReserveTokens int
}

// Agent-run defaults.
const (
	DefaultTimeoutSeconds = 600
	DefaultReserveTokens  = 20000
)

// ModelChoice is a model setting: "provider/model" or {primary, fallbacks}.
// A zero Primary means unset.
type ModelChoice struct {
	Primary   model.Ref
	Fallbacks []model.Ref
}

// IsSet reports whether a primary model is configured.
func (m ModelChoice) IsSet() bool { return m.Primary.Provider != "" }

// CatalogModel is one agents.defaults.models entry.
type CatalogModel struct {
	Ref   model.Ref
	Alias string // "" when none; matched case-insensitively
}

// Sandbox is agents.defaults.sandbox and agents.list[].sandbox.
type Sandbox struct {
	SessionToolsVisibility string // spawned (default) | all
}

// SubagentDefaults is agents.defaults.subagents.
type SubagentDefaults struct {
	// ArchiveAfterMinutes: sub-agent sessions are archived this long after
	// they finish; default 60, 0 never archives.
	ArchiveAfterMinutes int
}

// Agent is one agents.list[] entry.
type Agent struct {
	ID        string // normalised with session.NormalizeAgentID
	Default   bool
	Name      string
	Model     ModelChoice // unset: agents.defaults.model applies
	Tools     ToolPolicy
	Subagents Subagents
	// Sandbox is resolved: the agent's own setting, else agents.defaults.sandbox.
	Sandbox Sandbox
	// Sandboxed: the entry has a sandbox block (agents.list[].sandbox, even
	// {}), which makes every session of the agent sandboxed: its session
	// tools see only the sessions it spawned, unless
	// Sandbox.SessionToolsVisibility is "all". agents.defaults.sandbox
	// sandboxes nobody; it only gives the default visibility.
	Sandboxed bool
}

// Subagents is agents.list[].subagents.
type Subagents struct {
	// AllowAgents lists the agent ids sessions_spawn may target ("*": any).
	// nil means the seed's default: only the requesting agent.
	AllowAgents []string
}

// ToolPolicy is a tools block: the top of tools.*, agents.defaults.tools,
// agents.list[].tools and each byProvider entry. Tool names are trimmed and
// lower-cased (matching is case-insensitive); nil Allow or Deny means
// unset, an empty non-nil list means set to nothing.
type ToolPolicy struct {
	Profile string // minimal | coding | messaging | full; "" unset
	Allow   []string
	Deny    []string
	// ByProvider is keyed by lower-cased "provider" or "provider/model".
	// Its entries never have a ByProvider of their own.
	ByProvider map[string]ToolPolicy
}

// Tools is tools.*.
type Tools struct {
	ToolPolicy
	// Subagents is tools.subagents.tools: Allow and Deny only.
	Subagents ToolPolicy
	// AgentToAgent is tools.agentToAgent: whether sessions_send may reach
	// another agent's sessions.
	AgentToAgent ToolsAgentToAgent
	// Web is tools.web: whether web_search and web_fetch are offered.
	Web ToolsWeb
	// Message is tools.message: the message tool's reach.
	Message ToolsMessage
	// Sessions is tools.sessions: the session tools' reach.
	Sessions ToolsSessions
	// Exec is tools.exec: for now only applyPatch (ToolsExec).
	Exec ToolsExec
}

// ToolsMessage is tools.message. CrossContext lets a run bound to a chat
// session act in other chats with the message tool (default false: only
// its own chat).
type ToolsMessage struct {
	CrossContext bool
}

// ToolsSessions is tools.sessions. Visibility (self, the default; tree:
// its own session and the sub-agent sessions it spawned, recursively;
// agent: its agent's sessions; all) is which sessions an admitted
// sender's run may list, read and send to with the session tools: the
// owner's runs see every session, untrusted ones only their own.
type ToolsSessions struct {
	Visibility string
}

// tools.sessions.visibility values.
const (
	SessionsVisibilitySelf  = "self"
	SessionsVisibilityTree  = "tree"
	SessionsVisibilityAgent = "agent"
	SessionsVisibilityAll   = "all"
)

// ToolsWeb is tools.web. web_fetch is on unless Fetch.Enabled is false;
// web_search is off unless Search.Enabled is true (it needs the
// brave-api-key secret).
type ToolsWeb struct {
	Search ToolsWebSearch
	Fetch  ToolsWebFetch
}

// ToolsWebSearch is tools.web.search. MaxResults (1-10, default
// DefaultWebSearchResults) is the count of a call that gives none.
type ToolsWebSearch struct {
	Enabled    bool
	MaxResults int
}

// ToolsWebFetch is tools.web.fetch. MaxChars (default
// DefaultWebFetchMaxChars) is the maxChars of a call that gives none.
type ToolsWebFetch struct {
	Enabled  bool
	MaxChars int
}

// ToolsAgentToAgent is tools.agentToAgent. A send between two agents needs
// Enabled, and both agents must match Allow (agent ids, "*" wildcards;
// empty: any agent). Sends within one agent need neither.
type ToolsAgentToAgent struct {
	Enabled bool
	Allow   []string
}

// Channel is channels.<name>. Ids are bare (no "<channel>:" prefix),
// trimmed and lower-cased; "*" means anyone.
type Channel struct {
	AllowFrom []string // who may start turns; empty: nobody
	Owners    []string // who may run owner-only commands; empty: nobody
	// BotUsername is the bot's username on the channel, without "@"
	// (Telegram: the one @BotFather gave it): a group command addressed
	// "/cmd@name" is the bot's only when name is this one (any case).
	// "": no addressed group command is.
	BotUsername string
}

// Parse reads a JSON5 document, applies the defaults and validates it.
// An invalid document is a fault.Invalid error whose message names the
// offending key path, e.g. `session.reset.atHour: must be an integer 0-23,
// got 25` (a syntax error names its line:column instead). Unknown keys are
// not errors (upstream configs carry many ZERO does not read); they are
// listed by Warnings. An empty document is Default().
func Parse(data []byte) (*Config, error) {
	root, err := parseJSON5(data)
	if err != nil {
		var se *SyntaxError
		if errors.As(err, &se) {
			return nil, fault.New(fault.Invalid, "JSON5 syntax error at %s", se)
		}
		return nil, fault.Wrap(fault.Invalid, err, "JSON5")
	}
	c, warnings, err := decode(root, nil)
	if err != nil {
		return nil, err
	}
	c.warnings = warnings
	return c, nil
}

// Default is the configuration of an empty document: every key at its
// table default. It admits nobody on any channel.
func Default() *Config {
	c := *defaults()
	// Defaults are scalars: the empty maps are the only shared memory.
	c.Channels = map[string]Channel{}
	c.Messages.Queue.ByChannel = map[string]string{}
	return &c
}

// defaults decodes the empty document once.
var defaults = sync.OnceValue(func() *Config {
	c, _, err := decode(nil, nil)
	if err != nil {
		panic("config: the table's defaults do not validate: " + err.Error())
	}
	return c
})

// DevJSON is the configuration `zero dev` runs with when the user has no
// zero.json: everyone may talk to the assistant and run owner commands.
const DevJSON = `{
  // zero dev: no ZERO_CONFIG and no ~/.zero/zero.json, so this local-only
  // config admits everyone. Never deploy it.
  channels: {
    telegram: { allowFrom: ["*"], owners: ["*"] },
    discord: { allowFrom: ["*"], owners: ["*"] },
  },
}`

// Warnings lists unknown and ignored keys by path ("session.foo: unknown
// key, ignored"): top-level keys first, then section by section.
func (c *Config) Warnings() []string { return c.warnings }
