package config

import (
	"slices"

	"github.com/zero-gateway/zero/shared/session"
)

// Key is one row of the config table: a key ZERO reads from zero.json.
// The table drives decoding (kind, validation, where the value goes), the
// defaults (Default() is the decoding of an empty document) and
// config.schema.
type Key struct {
	// Path is the key's place: "session.reset.atHour". "<name>" stands
	// for any key of a map ("channels.<channel>.allowFrom"), "[]" for a
	// list's items ("agents.list[].id").
	Path     string
	Kind     Kind
	Default  any  // the value an absent key takes (string, int or bool); nil: none
	Required bool // inside a present object: must be given
	Help     string

	set   func(dst any, v Value)      // stores a scalar value into dst, the Go value of its object
	open  func(dst any, v Value) any  // the Go value an object's keys write to (nil: dst; returns nil: skip it)
	close func(dst, own any, v Value) // runs once an object's keys are read: checks, storing map entries
}

// Schema lists every key ZERO reads, in table order.
func Schema() []Key { return slices.Clone(table) }

// table is every key, in reading order: sections as below, keys of an
// object in the order listed. Unknown keys are warned about in document
// order once an object's keys are read.
var table = slices.Concat(
	[]Key{{Path: "$schema", Kind: ignoredKind, Help: "the JSON schema editors add; ignored"}},
	sessionKeys(), resetKeys(), sendPolicyKeys(), sessionTailKeys(),
	agentDefaultKeys(), blockStreamingKeys(), agentListKeys(),
	bindingKeys(), toolKeys(), channelKeys(), messageKeys(), modelsKeys(), commandKeys(),
)

func sessionKeys() []Key {
	return []Key{
		{Path: "session", Kind: objectKind, Help: "how chats map to sessions and when sessions reset",
			open: into(func(c *Config, _ Value) *Session { return &c.Session })},
		{Path: "session.scope", Kind: enumKind(session.ScopePerSender, session.ScopeGlobal), Default: session.ScopePerSender,
			Help: "global: every chat shares one session", set: on(func(s *Session, v Value) { s.Scope = v.Str() })},
		{Path: "session.dmScope", Kind: enumKind(session.ScopeMain, session.ScopePerPeer, session.ScopePerChannelPeer, session.ScopePerAccountChannelPeer),
			Default: session.ScopeMain, Help: "how direct chats map to session keys",
			set: on(func(s *Session, v Value) { s.DMScope = v.Str() })},
		{Path: "session.mainKey", Kind: mainKeyKind, Default: session.DefaultMainKey, Help: "the main session's key segment",
			set: on(func(s *Session, v Value) { s.MainKey = v.Str() })},
		{Path: "session.identityLinks", Kind: mapKind, Help: "peers that are one person under the per-* dmScopes, in file order"},
		{Path: "session.identityLinks.<canonical>", Kind: listOf(linkKind), Help: "the peers of one canonical name; the first link naming a peer wins",
			set: on(addIdentityLink)},
	}
}

// resetKeys are session.reset, resetByType, resetByChannel and the legacy
// session.idleMinutes. An override is a complete policy: what it omits
// takes the defaults, not session.reset's values.
func resetKeys() []Key {
	keys := []Key{{Path: "session.reset", Kind: objectKind, Help: "when a session starts over",
		open: into(func(s *Session, _ Value) *session.ResetPolicy { return &s.Reset }), close: after(requireIdle)}}
	keys = append(keys, resetPolicyKeys("session.reset")...)
	keys = append(keys, Key{Path: "session.resetByType", Kind: objectKind, Help: "session.reset per chat type"})
	for _, t := range []string{session.TypeDM, session.TypeGroup, session.TypeThread} {
		keys = append(keys, Key{Path: "session.resetByType." + t, Kind: objectKind, Help: "the reset policy of " + t + " chats",
			open: into(newResetPolicy), close: after(storeResetByType)})
		keys = append(keys, resetPolicyKeys("session.resetByType."+t)...)
	}
	keys = append(keys,
		Key{Path: "session.resetByChannel", Kind: mapKind, Help: "session.reset per channel; wins over resetByType"},
		Key{Path: "session.resetByChannel.<channel>", Kind: objectKind, Help: "the reset policy of one channel",
			open: into(newResetByChannel), close: after(storeResetByChannel)})
	keys = append(keys, resetPolicyKeys("session.resetByChannel.<channel>")...)
	return append(keys,
		Key{Path: "session.idleMinutes", Kind: minutesKind, Help: "legacy idle-only reset, used when neither session.reset nor resetByType is set",
			set: on(legacyIdleMinutes)},
		Key{Path: "session.resetTriggers", Kind: listOf(nameKind), Help: "commands that reset a session, besides /new and /reset",
			set: on(func(s *Session, v Value) { s.ResetTriggers = v.Strings() })},
		Key{Path: "session.resetNotice", Kind: boolKind, Default: true,
			Help: "the reply that starts a new session after a daily or idle reset says so in one line (ZERO addition)",
			set:  on(func(s *Session, v Value) { s.NoResetNotice = !v.Bool() })})
}

// resetPolicyKeys are the keys of one reset block.
func resetPolicyKeys(prefix string) []Key {
	return []Key{
		{Path: prefix + ".mode", Kind: enumKind(session.ResetDaily, session.ResetIdle, session.ResetOff), Default: session.ResetDaily,
			Help: "daily: at atHour; idle: after idleMinutes without a message; off: never",
			set:  on(func(p *session.ResetPolicy, v Value) { p.Mode = v.Str() })},
		{Path: prefix + ".atHour", Kind: intKind(0, 23, "an integer 0-23"), Default: DefaultAtHour, Help: "hour of the daily reset, in session.timeZone",
			set: on(func(p *session.ResetPolicy, v Value) { p.AtHour = v.Int() })},
		{Path: prefix + ".idleMinutes", Kind: minutesKind, Help: "idle window (required for mode idle; with daily, whichever comes first)",
			set: on(func(p *session.ResetPolicy, v Value) { p.IdleMinutes = v.Int() })},
	}
}

func sendPolicyKeys() []Key {
	rule := func(set func(*session.SendRule, Value)) func(any, Value) { return on(set) }
	return []Key{
		{Path: "session.sendPolicy", Kind: objectKind, Help: "who gets replies",
			open: into(func(s *Session, _ Value) *session.SendPolicy { return &s.SendPolicy })},
		{Path: "session.sendPolicy.rules", Kind: listKind, Help: "any matching deny wins"},
		{Path: "session.sendPolicy.rules[]", Kind: objectKind, Help: "one rule",
			open: into(func(p *session.SendPolicy, _ Value) *session.SendRule {
				p.Rules = append(p.Rules, session.SendRule{})
				return &p.Rules[len(p.Rules)-1]
			})},
		{Path: "session.sendPolicy.rules[].action", Kind: enumKind(session.SendAllow, session.SendDeny), Required: true, Help: "what a match does",
			set: rule(func(r *session.SendRule, v Value) { r.Action = v.Str() })},
		{Path: "session.sendPolicy.rules[].match", Kind: objectKind, Help: "what the rule matches; every field given must match"},
		{Path: "session.sendPolicy.rules[].match.channel", Kind: nameKind, Help: "the channel",
			set: rule(func(r *session.SendRule, v Value) { r.Match.Channel = v.Str() })},
		{Path: "session.sendPolicy.rules[].match.chatType", Kind: enumKind("direct", "dm", "group", "channel"), Help: "the chat type (dm: direct)",
			set: rule(func(r *session.SendRule, v Value) { r.Match.ChatType = peerKind(v.Str()) })},
		{Path: "session.sendPolicy.rules[].match.keyPrefix", Kind: nameKind, Help: "the start of the session key",
			set: rule(func(r *session.SendRule, v Value) { r.Match.KeyPrefix = v.Str() })},
		{Path: "session.sendPolicy.default", Kind: enumKind(session.SendAllow, session.SendDeny), Default: session.SendAllow, Help: "when no rule matches",
			set: on(func(p *session.SendPolicy, v Value) { p.Default = v.Str() })},
	}
}

// sessionTailKeys are read after the send policy (so are their warnings).
func sessionTailKeys() []Key {
	return []Key{
		{Path: "session.agentToAgent", Kind: objectKind, Help: "agent-to-agent sends"},
		{Path: "session.agentToAgent.maxPingPongTurns", Kind: intKind(0, 5, "an integer 0-5"), Default: DefaultMaxPingPongTurns,
			Help: "reply-back turns between agents", set: on(func(s *Session, v Value) { s.AgentToAgent.MaxPingPongTurns = v.Int() })},
		{Path: "session.timeZone", Kind: zoneKind, Default: DefaultTimeZone,
			Help: "zone of the daily reset; unset: agents.defaults.userTimezone, else UTC",
			set:  on(func(s *Session, v Value) { s.TimeZone, s.Location = v.Zone() })},
		{Path: "session.store", Kind: ignoredKind, Help: "ignored: sessions live in DynamoDB",
			set: on(func(_ *Session, v Value) { v.Warnf("ignored: ZERO keeps sessions in DynamoDB") })},
	}
}

func agentDefaultKeys() []Key {
	d := func(set func(*AgentDefaults, Value)) func(any, Value) { return on(set) }
	keys := []Key{
		{Path: "agents", Kind: objectKind, Help: "the agents and their defaults", open: into(func(c *Config, _ Value) *Agents { return &c.Agents })},
		{Path: "agents.defaults", Kind: objectKind, Help: "what every agent uses unless it says otherwise",
			open: into(func(a *Agents, _ Value) *AgentDefaults { return &a.Defaults })},
		{Path: "agents.defaults.model", Kind: modelKind, Help: "the default model", open: into(func(d *AgentDefaults, _ Value) *ModelChoice { return &d.Model }),
			set: on(setPrimary)},
	}
	keys = append(keys, modelKeys("agents.defaults.model")...)
	keys = append(keys, Key{Path: "agents.defaults.imageModel", Kind: modelKind, Help: "the image tool's model (unset: the run's model when it accepts images)",
		open: into(func(d *AgentDefaults, _ Value) *ModelChoice { return &d.ImageModel }), set: on(setPrimary)})
	keys = append(keys, modelKeys("agents.defaults.imageModel")...)
	keys = append(keys, []Key{
		{Path: "agents.defaults.models", Kind: mapKind, Help: "the model catalog, in file order (/new <alias>, sessions.patch model)"},
		{Path: "agents.defaults.models.<provider/model>", Kind: objectKind, Help: "one catalog model", open: into(addCatalogModel), close: after(checkAlias)},
		{Path: "agents.defaults.models.<provider/model>.alias", Kind: stringKind, Help: "its alias, matched case-insensitively",
			set: on(func(m *CatalogModel, v Value) { m.Alias = v.Str() })},
		{Path: "agents.defaults.userTimezone", Kind: zoneKind, Help: "the user's zone", set: d(func(d *AgentDefaults, v Value) { d.UserTimezone, _ = v.Zone() })},
		{Path: "agents.defaults.maxConcurrent", Kind: intKind(1, 1000, "a whole number 1-1000"), Help: "accepted, not applied: see the stack parameter MainLaneMaxConcurrency",
			set: d(func(_ *AgentDefaults, v Value) {
				v.Warnf("not applied at run time: the main lane's cap is the stack parameter MainLaneMaxConcurrency (the work queue's event source MaximumConcurrency)")
			})},
		{Path: "agents.defaults.timeoutSeconds", Kind: intKind(1, 86400, "a whole number of seconds 1-86400"), Default: DefaultTimeoutSeconds,
			Help: "bound of one agent run", set: d(func(d *AgentDefaults, v Value) { d.TimeoutSeconds = v.Int() })},
		{Path: "agents.defaults.compaction", Kind: objectKind, Help: "automatic compaction"},
		{Path: "agents.defaults.compaction.reserveTokens", Kind: intKind(0, 100_000_000, "a whole number of tokens >= 0"), Default: DefaultReserveTokens,
			Help: "room kept free in the context window", set: d(func(d *AgentDefaults, v Value) { d.Compaction.ReserveTokens = v.Int() })},
		{Path: "agents.defaults.contextTokens", Kind: intKind(1, 100_000_000, "a whole number of tokens >= 1"),
			Help: "the model's context window (enables compaction)", set: d(func(d *AgentDefaults, v Value) { d.ContextTokens = v.Int() })},
		{Path: "agents.defaults.sandbox", Kind: objectKind, Help: "the sandbox", open: into(func(d *AgentDefaults, _ Value) *Sandbox { return &d.Sandbox })},
		{Path: "agents.defaults.sandbox.sessionToolsVisibility", Kind: enumKind(VisibilitySpawned, VisibilityAll), Default: VisibilitySpawned,
			Help: "sessions the session tools see in a sandbox", set: on(setVisibility)},
		{Path: "agents.defaults.subagents", Kind: objectKind, Help: "sub-agents"},
		{Path: "agents.defaults.subagents.archiveAfterMinutes", Kind: minutesKind, Default: DefaultArchiveAfterMinutes,
			Help: "archive finished sub-agent sessions after (0: never)", set: d(func(d *AgentDefaults, v Value) { d.Subagents.ArchiveAfterMinutes = v.Int() })},
		{Path: "agents.defaults.tools", Kind: objectKind, Help: "the agents' default tool policy",
			open: into(func(d *AgentDefaults, _ Value) *ToolPolicy { return &d.Tools })},
	}...)
	return append(keys, toolPolicyKeys("agents.defaults.tools", self, true)...)
}

func agentListKeys() []Key {
	a := func(set func(*Agent, Value)) func(any, Value) { return on(set) }
	keys := []Key{
		{Path: "agents.list", Kind: listKind, Help: "the agents; the one marked default (else the first) is the default", close: after(resolveAllowAgents)},
		{Path: "agents.list[]", Kind: objectKind, Help: "one agent", open: into(addAgent), close: after(checkAgent)},
		{Path: "agents.list[].id", Kind: nameKind, Required: true, Help: "the agent id ([a-z0-9_-])", set: a(setAgentID)},
		{Path: "agents.list[].default", Kind: boolKind, Help: "the default agent (one at most)", set: a(func(ag *Agent, v Value) { ag.Default = v.Bool() })},
		{Path: "agents.list[].name", Kind: stringKind, Help: "display name", set: a(func(ag *Agent, v Value) { ag.Name = v.Str() })},
		{Path: "agents.list[].model", Kind: modelKind, Help: "the agent's model (unset: agents.defaults.model)",
			open: into(func(ag *Agent, _ Value) *ModelChoice { return &ag.Model }), set: on(setPrimary)},
	}
	keys = append(keys, modelKeys("agents.list[].model")...)
	keys = append(keys, Key{Path: "agents.list[].tools", Kind: objectKind, Help: "the agent's tool policy",
		open: into(func(ag *Agent, _ Value) *ToolPolicy { return &ag.Tools })})
	keys = append(keys, toolPolicyKeys("agents.list[].tools", self, true)...)
	return append(keys,
		Key{Path: "agents.list[].subagents", Kind: objectKind, Help: "sub-agents"},
		Key{Path: "agents.list[].subagents.allowAgents", Kind: listOf(nameKind), Help: `agent ids sessions_spawn may target ("*": any); unset: only this agent`,
			set: a(func(ag *Agent, v Value) { ag.Subagents.AllowAgents = v.Strings() })},
		Key{Path: "agents.list[].sandbox", Kind: objectKind, Help: "the sandbox (unset: agents.defaults.sandbox)",
			open: into(func(ag *Agent, v Value) *Sandbox { ag.Sandboxed = v.Given(); return &ag.Sandbox })},
		Key{Path: "agents.list[].sandbox.sessionToolsVisibility", Kind: enumKind(VisibilitySpawned, VisibilityAll),
			Help: "sessions the session tools see in a sandbox (unset: agents.defaults')", set: on(setVisibility)})
}

// modelKeys are the object form of a model setting.
func modelKeys(prefix string) []Key {
	return []Key{
		{Path: prefix + ".primary", Kind: refKind, Help: "the model", set: on(setPrimary)},
		{Path: prefix + ".fallbacks", Kind: listOf(refKind), Help: "models to try when it fails, in order",
			set: on(func(m *ModelChoice, v Value) { m.Fallbacks = v.Refs() })},
	}
}

func bindingKeys() []Key {
	b := func(set func(*session.Binding, Value)) func(any, Value) { return on(set) }
	return []Key{
		{Path: "bindings", Kind: listKind, Help: "route messages to agents, most specific match first"},
		{Path: "bindings[]", Kind: objectKind, Help: "one binding", open: into(addBinding), close: after(checkBinding)},
		{Path: "bindings[].agentId", Kind: nameKind, Required: true, Help: "the agent (an agents.list id)",
			set: b(func(bd *session.Binding, v Value) { bd.AgentID = v.Str() })},
		{Path: "bindings[].match", Kind: objectKind, Help: "what the binding matches"},
		{Path: "bindings[].match.channel", Kind: nameKind, Help: "the channel", set: b(func(bd *session.Binding, v Value) { bd.Match.Channel = v.Str() })},
		{Path: "bindings[].match.accountId", Kind: idKind, Help: `the channel account ("*": any)`,
			set: b(func(bd *session.Binding, v Value) { bd.Match.AccountID = v.Str() })},
		{Path: "bindings[].match.guildId", Kind: idKind, Help: "the guild", set: b(func(bd *session.Binding, v Value) { bd.Match.GuildID = v.Str() })},
		{Path: "bindings[].match.peer", Kind: peerIDKind, Help: "the peer: an id, or {kind, id}",
			set: b(func(bd *session.Binding, v Value) { bd.Match.PeerID = v.Str() })},
		{Path: "bindings[].match.peer.kind", Kind: enumKind("dm", "direct", "group", "channel"), Help: "the peer's chat type (dm: direct)",
			set: b(func(bd *session.Binding, v Value) { bd.Match.PeerKind = peerKind(v.Str()) })},
		{Path: "bindings[].match.peer.id", Kind: idKind, Required: true, Help: "the peer id",
			set: b(func(bd *session.Binding, v Value) { bd.Match.PeerID = v.Str() })},
	}
}

func toolKeys() []Key {
	keys := []Key{{Path: "tools", Kind: objectKind, Help: "the tool policy", open: into(func(c *Config, _ Value) *Tools { return &c.Tools })}}
	keys = append(keys, toolPolicyKeys("tools", func(t *Tools) *ToolPolicy { return &t.ToolPolicy }, true)...)
	keys = append(keys,
		Key{Path: "tools.subagents", Kind: objectKind, Help: "sub-agents"},
		Key{Path: "tools.subagents.tools", Kind: objectKind, Help: "the tools of sub-agents",
			open: into(func(t *Tools, _ Value) *ToolPolicy { return &t.Subagents })},
		Key{Path: "tools.subagents.tools.allow", Kind: listOf(nameKind), Help: "tools allowed",
			set: on(func(t *ToolPolicy, v Value) { t.Allow = v.Strings() })},
		Key{Path: "tools.subagents.tools.deny", Kind: listOf(nameKind), Help: "tools denied",
			set: on(func(t *ToolPolicy, v Value) { t.Deny = v.Strings() })},
		Key{Path: "tools.agentToAgent", Kind: objectKind, Help: "sessions_send between agents",
			open: into(func(t *Tools, _ Value) *ToolsAgentToAgent { return &t.AgentToAgent })},
		Key{Path: "tools.agentToAgent.enabled", Kind: boolKind, Help: "allow sends to another agent's sessions (default false)",
			set: on(func(a *ToolsAgentToAgent, v Value) { a.Enabled = v.Bool() })},
		Key{Path: "tools.agentToAgent.allow", Kind: listOf(nameKind), Help: `agent ids ("*" wildcards) both sides of a cross-agent send must match; empty: any`,
			set: on(func(a *ToolsAgentToAgent, v Value) { a.Allow = v.Strings() })})
	keys = append(keys, toolMessageKeys()...)
	keys = append(keys, toolSessionsKeys()...)
	keys = append(keys, toolExecKeys()...)
	return append(keys, toolWebKeys()...)
}

// toolSessionsKeys are tools.sessions: how far the session tools of a run
// that is not the owner's may see.
func toolSessionsKeys() []Key {
	return []Key{
		{Path: "tools.sessions", Kind: objectKind, Help: "the session tools", open: into(func(t *Tools, _ Value) *ToolsSessions { return &t.Sessions })},
		{Path: "tools.sessions.visibility", Kind: enumKind(SessionsVisibilitySelf, SessionsVisibilityTree, SessionsVisibilityAgent, SessionsVisibilityAll), Default: SessionsVisibilitySelf,
			Help: "the sessions a run asked by a sender who is not an owner may list, read and send to: self (default), tree (its own and the sub-agents it spawned), agent (its agent's) or all; the owner's runs see every session",
			set:  on(func(s *ToolsSessions, v Value) { s.Visibility = v.Str() })},
	}
}

// toolMessageKeys are tools.message: the message tool's reach.
func toolMessageKeys() []Key {
	return []Key{
		{Path: "tools.message", Kind: objectKind, Help: "the message tool", open: into(func(t *Tools, _ Value) *ToolsMessage { return &t.Message })},
		{Path: "tools.message.crossContext", Kind: boolKind, Default: false,
			Help: "let a chat session's message tool act in other chats (default false: only its own chat)",
			set:  on(func(m *ToolsMessage, v Value) { m.CrossContext = v.Bool() })},
	}
}

// toolWebKeys are tools.web: web_search and web_fetch.
func toolWebKeys() []Key {
	return []Key{
		{Path: "tools.web", Kind: objectKind, Help: "the web tools", open: into(func(t *Tools, _ Value) *ToolsWeb { return &t.Web })},
		{Path: "tools.web.search", Kind: objectKind, Help: "web_search (Brave Search; needs the brave-api-key secret)",
			open: into(func(w *ToolsWeb, _ Value) *ToolsWebSearch { return &w.Search })},
		{Path: "tools.web.search.enabled", Kind: boolKind, Default: false, Help: "offer web_search (default false)",
			set: on(func(s *ToolsWebSearch, v Value) { s.Enabled = v.Bool() })},
		{Path: "tools.web.search.maxResults", Kind: intKind(1, 10, "an integer 1-10"), Default: DefaultWebSearchResults,
			Help: "results of a web_search call that sets no count", set: on(func(s *ToolsWebSearch, v Value) { s.MaxResults = v.Int() })},
		{Path: "tools.web.fetch", Kind: objectKind, Help: "web_fetch (SSRF-guarded, 2 MB and 15 s per fetch)",
			open: into(func(w *ToolsWeb, _ Value) *ToolsWebFetch { return &w.Fetch })},
		{Path: "tools.web.fetch.enabled", Kind: boolKind, Default: true, Help: "offer web_fetch (default true)",
			set: on(func(f *ToolsWebFetch, v Value) { f.Enabled = v.Bool() })},
		{Path: "tools.web.fetch.maxChars", Kind: intKind(100, 200_000, "an integer 100-200000"), Default: DefaultWebFetchMaxChars,
			Help: "characters a web_fetch call returns when it sets no maxChars", set: on(func(f *ToolsWebFetch, v Value) { f.MaxChars = v.Int() })},
	}
}

// toolPolicyKeys are the keys of a tools block under prefix; policy finds
// the block in the Go value of prefix. byProvider adds per-provider
// blocks (which have none of their own).
func toolPolicyKeys[T any](prefix string, policy func(*T) *ToolPolicy, byProvider bool) []Key {
	keys := []Key{
		{Path: prefix + ".profile", Kind: enumKind(ProfileMinimal, ProfileCoding, ProfileMessaging, ProfileFull), Help: "base tool set",
			set: on(func(t *T, v Value) { policy(t).Profile = v.Str() })},
		{Path: prefix + ".allow", Kind: listOf(nameKind), Help: "tools or group:* allowed (* wildcards)",
			set: on(func(t *T, v Value) { policy(t).Allow = v.Strings() })},
		{Path: prefix + ".deny", Kind: listOf(nameKind), Help: "tools denied; deny always wins",
			set: on(func(t *T, v Value) { policy(t).Deny = v.Strings() })},
	}
	if !byProvider {
		return keys
	}
	keys = append(keys,
		Key{Path: prefix + ".byProvider", Kind: mapKind, Help: "the tool policy per provider or provider/model"},
		Key{Path: prefix + ".byProvider.<provider>", Kind: objectKind, Help: "the tool policy of one provider or provider/model",
			open:  into(func(t *T, v Value) *ToolPolicy { return newProviderPolicy(policy(t), v) }),
			close: after(func(t *T, own *ToolPolicy, v Value) { storeProviderPolicy(policy(t), own, v) })})
	return append(keys, toolPolicyKeys(prefix+".byProvider.<provider>", self, false)...)
}

func channelKeys() []Key {
	return []Key{
		{Path: "channels", Kind: mapKind, Help: "per channel: who may talk to the assistant"},
		{Path: "channels.<channel>", Kind: objectKind, Help: "one channel", open: into(newChannel), close: after(storeChannel)},
		{Path: "channels.<channel>.allowFrom", Kind: listOf(idKind), Help: `peer or chat ids (or "*") whose messages start turns; empty: nobody`,
			set: on(func(ch *Channel, v Value) { ch.AllowFrom = v.Strings() })},
		{Path: "channels.<channel>.owners", Kind: listOf(idKind), Help: `peer ids (or "*") allowed owner-only commands`,
			set: on(func(ch *Channel, v Value) { ch.Owners = v.Strings() })},
		{Path: "channels.<channel>.botUsername", Kind: stringKind, Help: `the bot's username ("@" optional): in a group, "/cmd@name" is a command only for this name; unset, no addressed group command is`,
			set: on(func(ch *Channel, v Value) { ch.BotUsername = v.Str() })},
	}
}

func messageKeys() []Key {
	q := func(set func(*Queue, Value)) func(any, Value) { return on(set) }
	return []Key{
		{Path: "messages", Kind: objectKind, Help: "messages"},
		{Path: "messages.queue", Kind: objectKind, Help: "messages that arrive while a session is busy",
			open: into(func(c *Config, _ Value) *Queue { return &c.Messages.Queue })},
		{Path: "messages.queue.mode", Kind: enumKind(QueueModes...), Default: QueueCollect, Help: "what happens to them",
			set: q(func(qu *Queue, v Value) { qu.Mode = v.Str() })},
		{Path: "messages.queue.byChannel", Kind: mapKind, Help: "the mode per channel; wins over mode"},
		{Path: "messages.queue.byChannel.<channel>", Kind: enumKind(QueueModes...), Help: "the mode of one channel",
			set: q(func(qu *Queue, v Value) { qu.ByChannel[normalize(v.Key())] = v.Str() })},
		{Path: "messages.queue.cap", Kind: intKind(1, 90, "a whole number 1-90"), Default: DefaultQueueCap, Help: "most messages one collected turn takes",
			set: q(func(qu *Queue, v Value) { qu.Cap = v.Int() })},
		{Path: "messages.queue.drop", Kind: enumKind(DropOld, DropNew, DropSummarize), Default: DropSummarize, Help: "beyond cap: which to drop",
			set: q(func(qu *Queue, v Value) { qu.Drop = v.Str() })},
		{Path: "messages.queue.debounceMs", Kind: intKind(0, 600_000, "a whole number of milliseconds"),
			Help: "collect: a turn starts once the chat has been quiet this long (whole seconds on SQS; docs/queues.md)",
			set:  q(func(qu *Queue, v Value) { qu.DebounceMs = v.Int() })},
	}
}

func self(t *ToolPolicy) *ToolPolicy { return t }
