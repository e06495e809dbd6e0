package config

import (
	"strings"
	"time"

	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/session"
)

// decode reads the whole document into a Config, validating as it goes.
func decode(r *reader, root *node) *Config {
	c := Default()
	if root.kind != objectNode {
		r.failf("zero.json", "the document must be an object, got %s", root.describe())
		return c
	}
	top := r.object(root, "")
	top.field("$schema") // editors add it; not worth a warning
	sessionNode, _ := top.field("session")
	agentsNode, _ := top.field("agents")
	bindingsNode, bindingsPath := top.field("bindings")
	toolsNode, _ := top.field("tools")
	channelsNode, _ := top.field("channels")
	messagesNode, _ := top.field("messages")
	top.close() // top-level unknown keys first, then section by section

	s := r.object(sessionNode, "session")
	// The zone can come from agents.defaults.userTimezone, so it is
	// resolved once both blocks are read.
	tzNode, tzPath := s.field("timeZone")
	decodeSession(r, s, &c.Session)
	decodeAgents(r, r.object(agentsNode, "agents"), &c.Agents)
	c.Session.TimeZone, c.Session.Location = timeZone(r, tzNode, tzPath, c.Agents.Defaults.UserTimezone)

	c.Bindings = decodeBindings(r, bindingsNode, bindingsPath, c.Agents.List)
	c.Tools = decodeTools(r, r.object(toolsNode, "tools"))
	c.Channels = decodeChannels(r, r.object(channelsNode, "channels"))
	decodeMessages(r, r.object(messagesNode, "messages"), &c.Messages)
	return c
}

// --- messages.* ---

func decodeMessages(r *reader, o *object, out *Messages) {
	if n, p := o.field("queue"); n != nil {
		q := r.object(n, p)
		if n, p := q.field("mode"); n != nil {
			out.Queue.Mode = r.enum(n, p, QueueModes...)
		}
		if n, p := q.field("byChannel"); n != nil {
			bc := r.object(n, p)
			for _, m := range bc.entries() {
				out.Queue.ByChannel[strings.ToLower(strings.TrimSpace(m.key))] = r.enum(m.val, child(bc.path, m.key), QueueModes...)
			}
		}
		if n, p := q.field("cap"); n != nil {
			out.Queue.Cap = r.integer(n, p, 1, 90, "a whole number 1-90")
		}
		if n, p := q.field("drop"); n != nil {
			out.Queue.Drop = r.enum(n, p, DropOld, DropNew, DropSummarize)
		}
		if n, p := q.field("debounceMs"); n != nil {
			r.integer(n, p, 0, 600_000, "a whole number of milliseconds")
			r.warnf(p, "accepted but not applied: the queue's own batching decides what waits together (see README)")
		}
		q.close()
	}
	o.close()
}

// --- session.* ---

func decodeSession(r *reader, s *object, out *Session) {
	if n, p := s.field("scope"); n != nil {
		out.Scope = r.enum(n, p, session.ScopePerSender, session.ScopeGlobal)
	}
	if n, p := s.field("dmScope"); n != nil {
		out.DMScope = r.enum(n, p, session.ScopeMain, session.ScopePerPeer, session.ScopePerChannelPeer, session.ScopePerAccountChannelPeer)
	}
	if n, p := s.field("mainKey"); n != nil {
		key := r.name(n, p)
		if strings.ContainsAny(key, ": \t") {
			// The main key is one segment of "agent:<id>:<mainKey>".
			r.failf(p, "must not contain ':' or spaces, got %q", key)
		}
		if key != "" {
			out.MainKey = key
		}
	}
	if n, p := s.field("identityLinks"); n != nil {
		out.IdentityLinks = identityLinks(r, r.object(n, p))
	}

	resetNode, resetPath := s.field("reset")
	reset := readReset(r, resetNode, resetPath)
	out.Reset = reset.resolve(r)
	byTypeNode, byTypePath := s.field("resetByType")
	byType := r.object(byTypeNode, byTypePath)
	for _, t := range []string{session.TypeDM, session.TypeGroup, session.TypeThread} {
		if n, p := byType.field(t); n != nil {
			if out.ResetByType == nil {
				out.ResetByType = map[string]session.ResetPolicy{}
			}
			out.ResetByType[t] = readReset(r, n, p).resolve(r)
		}
	}
	byType.close()
	if n, p := s.field("resetByChannel"); n != nil {
		for _, m := range r.object(n, p).entries() {
			mp := child(p, m.key)
			channel := strings.ToLower(strings.TrimSpace(m.key))
			if channel == "" {
				r.failf(mp, "empty channel name")
				continue
			}
			if out.ResetByChannel == nil {
				out.ResetByChannel = map[string]session.ResetPolicy{}
			}
			if _, dup := out.ResetByChannel[channel]; dup {
				r.failf(mp, "channel %q is listed twice", channel)
			}
			out.ResetByChannel[channel] = readReset(r, m.val, mp).resolve(r)
		}
	}
	if n, p := s.field("idleMinutes"); n != nil {
		idle := r.minutes(n, p)
		switch {
		case reset.set || byTypeNode != nil:
			r.warnf(p, "ignored because session.reset or session.resetByType is set (put idleMinutes there)")
		case idle > 0:
			// Legacy idle-only mode, kept for upstream configs.
			out.Reset = session.ResetPolicy{Mode: session.ResetIdle, AtHour: DefaultAtHour, IdleMinutes: idle}
		}
	}

	if n, p := s.field("resetTriggers"); n != nil {
		out.ResetTriggers = r.names(n, p)
	}
	if n, p := s.field("sendPolicy"); n != nil {
		out.SendPolicy = sendPolicy(r, r.object(n, p))
	}
	if n, p := s.field("agentToAgent"); n != nil {
		a := r.object(n, p)
		if n, p := a.field("maxPingPongTurns"); n != nil {
			out.AgentToAgent.MaxPingPongTurns = r.integer(n, p, 0, 5, "an integer 0-5")
		}
		a.close()
	}
	if s.has("store") {
		_, p := s.field("store")
		r.warnf(p, "ignored: ZERO keeps sessions in DynamoDB")
	}
	s.close()
}

// identityLinks keeps the canonical names in file order: the first link
// naming a peer wins.
func identityLinks(r *reader, o *object) []session.IdentityLink {
	var links []session.IdentityLink
	owner := map[string]string{} // peer -> canonical
	for _, m := range o.entries() {
		p := child(o.path, m.key)
		canonical := strings.ToLower(strings.TrimSpace(m.key))
		if canonical == "" {
			r.failf(p, "empty canonical name")
			continue
		}
		link := session.IdentityLink{Canonical: canonical}
		for i, item := range r.list(m.val, p) {
			ip := index(p, i)
			peer := r.name(item, ip)
			provider, id, ok := strings.Cut(peer, ":")
			if peer != "" && (!ok || strings.TrimSpace(provider) == "" || strings.TrimSpace(id) == "") {
				r.failf(ip, `must be "<provider>:<id>" (e.g. "telegram:123"), got %q`, peer)
				continue
			}
			if first, dup := owner[peer]; dup {
				r.warnf(ip, "%q is already linked to %q; the first link wins", peer, first)
				continue
			}
			owner[peer] = canonical
			link.Peers = append(link.Peers, peer)
		}
		links = append(links, link)
	}
	return links
}

// resetSpec is a reset block as written, before defaults.
type resetSpec struct {
	path    string
	set     bool // the block is present
	mode    string
	atHour  int
	hasHour bool
	idle    int
	hasIdle bool
}

func readReset(r *reader, n *node, path string) resetSpec {
	spec := resetSpec{path: path, set: n != nil}
	o := r.object(n, path)
	if n, p := o.field("mode"); n != nil {
		spec.mode = r.enum(n, p, session.ResetDaily, session.ResetIdle, session.ResetOff)
	}
	if n, p := o.field("atHour"); n != nil {
		spec.atHour, spec.hasHour = r.integer(n, p, 0, 23, "an integer 0-23"), true
	}
	if n, p := o.field("idleMinutes"); n != nil {
		spec.idle, spec.hasIdle = r.minutes(n, p), true
	}
	o.close()
	return spec
}

// resolve applies the defaults: mode daily (also when only idleMinutes is
// given: then both apply), atHour 4.
func (s resetSpec) resolve(r *reader) session.ResetPolicy {
	p := session.ResetPolicy{Mode: s.mode, AtHour: DefaultAtHour, IdleMinutes: s.idle}
	if p.Mode == "" {
		p.Mode = session.ResetDaily
	}
	if s.hasHour {
		p.AtHour = s.atHour
	}
	if p.Mode == session.ResetIdle && p.IdleMinutes == 0 {
		r.failf(child(s.path, "idleMinutes"), "required (a positive number of minutes) when mode is idle")
	}
	return p
}

func sendPolicy(r *reader, o *object) session.SendPolicy {
	out := session.SendPolicy{Default: session.SendAllow}
	if n, p := o.field("rules"); n != nil {
		for i, item := range r.list(n, p) {
			ip := index(p, i)
			ro := r.object(item, ip)
			var rule session.SendRule
			if n, p := ro.field("action"); n != nil {
				rule.Action = r.enum(n, p, session.SendAllow, session.SendDeny)
			} else {
				r.failf(p, "required (allow or deny)")
			}
			if n, p := ro.field("match"); n != nil {
				mo := r.object(n, p)
				if n, p := mo.field("channel"); n != nil {
					rule.Match.Channel = r.name(n, p)
				}
				if n, p := mo.field("chatType"); n != nil {
					rule.Match.ChatType = peerKind(r.enum(n, p, "direct", "dm", "group", "channel"))
				}
				if n, p := mo.field("keyPrefix"); n != nil {
					rule.Match.KeyPrefix = r.name(n, p)
				}
				mo.close()
			}
			ro.close()
			out.Rules = append(out.Rules, rule)
		}
	}
	if n, p := o.field("default"); n != nil {
		out.Default = r.enum(n, p, session.SendAllow, session.SendDeny)
	}
	o.close()
	return out
}

// peerKind maps the upstream "dm" to the route's "direct".
func peerKind(kind string) string {
	if kind == "dm" {
		return "direct"
	}
	return kind
}

// timeZone resolves session.timeZone, else agents.defaults.userTimezone
// (already validated), else UTC.
func timeZone(r *reader, n *node, path, userTimezone string) (string, *time.Location) {
	if n != nil {
		return loadZone(r, r.str(n, path), path)
	}
	if userTimezone != "" {
		return loadZone(r, userTimezone, "agents.defaults.userTimezone")
	}
	return DefaultTimeZone, time.UTC
}

func loadZone(r *reader, name, path string) (string, *time.Location) {
	// "" and "Local" load without error but mean the host's zone, which
	// on Lambda is UTC whatever the user expects.
	if name == "" || strings.EqualFold(name, "local") {
		r.failf(path, `must be an IANA time zone name such as "Europe/Lisbon", got %q`, name)
		return DefaultTimeZone, time.UTC
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		r.failf(path, `unknown time zone %q (use an IANA name such as "Europe/Lisbon")`, name)
		return DefaultTimeZone, time.UTC
	}
	return name, loc
}

// --- agents.* ---

func decodeAgents(r *reader, a *object, out *Agents) {
	if n, p := a.field("defaults"); n != nil {
		d := r.object(n, p)
		if n, p := d.field("model"); n != nil {
			out.Defaults.Model = modelChoice(r, n, p)
		}
		if n, p := d.field("models"); n != nil {
			out.Defaults.Models = catalog(r, r.object(n, p))
		}
		if n, p := d.field("userTimezone"); n != nil {
			tz := r.str(n, p)
			loadZone(r, tz, p)
			out.Defaults.UserTimezone = tz
		}
		if n, p := d.field("maxConcurrent"); n != nil {
			r.integer(n, p, 1, 1000, "a whole number 1-1000")
			r.warnf(p, "not applied at run time: the main lane's cap is the stack parameter MainLaneMaxConcurrency (the work queue's event source MaximumConcurrency)")
		}
		if n, p := d.field("timeoutSeconds"); n != nil {
			out.Defaults.TimeoutSeconds = r.integer(n, p, 1, 86400, "a whole number of seconds 1-86400")
		}
		if n, p := d.field("compaction"); n != nil {
			co := r.object(n, p)
			if n, p := co.field("reserveTokens"); n != nil {
				out.Defaults.Compaction.ReserveTokens = r.integer(n, p, 0, 100_000_000, "a whole number of tokens >= 0")
			}
			co.close()
		}
		if n, p := d.field("contextTokens"); n != nil {
			out.Defaults.ContextTokens = r.integer(n, p, 1, 100_000_000, "a whole number of tokens >= 1")
		}
		if n, p := d.field("sandbox"); n != nil {
			out.Defaults.Sandbox = sandbox(r, n, p, out.Defaults.Sandbox)
		}
		if n, p := d.field("subagents"); n != nil {
			so := r.object(n, p)
			if n, p := so.field("archiveAfterMinutes"); n != nil {
				out.Defaults.Subagents.ArchiveAfterMinutes = r.minutes(n, p)
			}
			so.close()
		}
		if n, p := d.field("tools"); n != nil {
			out.Defaults.Tools = toolPolicy(r, r.object(n, p), true)
		}
		d.close()
	}
	if n, p := a.field("list"); n != nil {
		out.List = agentList(r, n, p, out.Defaults)
	}
	a.close()
}

func agentList(r *reader, n *node, path string, defaults AgentDefaults) []Agent {
	var list []Agent
	at := map[string]int{} // id -> index
	defaultAt := -1
	allowPaths := map[int]string{}
	for i, item := range r.list(n, path) {
		ip := index(path, i)
		o := r.object(item, ip)
		agent := Agent{Sandbox: defaults.Sandbox}
		if n, p := o.field("id"); n != nil {
			raw := r.name(n, p)
			agent.ID = session.NormalizeAgentID(raw)
			if raw != "" && agent.ID != raw {
				r.warnf(p, "%q is used as %q (agent ids are [a-z0-9_-])", raw, agent.ID)
			}
			if j, dup := at[agent.ID]; dup && raw != "" {
				r.failf(p, "duplicate agent id %q (also %s)", agent.ID, index(path, j))
			}
			at[agent.ID] = i
		} else if item.kind == objectNode {
			r.failf(child(ip, "id"), "required")
		}
		if n, p := o.field("default"); n != nil {
			agent.Default = r.boolean(n, p)
			if agent.Default {
				if defaultAt >= 0 {
					r.failf(p, "only one agent may be the default; %s already is", index(path, defaultAt))
				}
				defaultAt = i
			}
		}
		if n, p := o.field("name"); n != nil {
			agent.Name = r.str(n, p)
		}
		if n, p := o.field("model"); n != nil {
			agent.Model = modelChoice(r, n, p)
		}
		if n, p := o.field("tools"); n != nil {
			agent.Tools = toolPolicy(r, r.object(n, p), true)
		}
		if n, p := o.field("subagents"); n != nil {
			so := r.object(n, p)
			if n, p := so.field("allowAgents"); n != nil {
				agent.Subagents.AllowAgents = r.names(n, p)
				allowPaths[i] = p
			}
			so.close()
		}
		if n, p := o.field("sandbox"); n != nil {
			agent.Sandbox = sandbox(r, n, p, defaults.Sandbox)
		}
		o.close()
		list = append(list, agent)
	}
	// allowAgents may name agents listed after it.
	for i := range list {
		for j, id := range list[i].Subagents.AllowAgents {
			if id == "*" {
				continue
			}
			norm := session.NormalizeAgentID(id)
			if _, ok := at[norm]; !ok {
				r.failf(index(allowPaths[i], j), "no agent %q in agents.list", id)
			}
			list[i].Subagents.AllowAgents[j] = norm
		}
	}
	return list
}

func sandbox(r *reader, n *node, path string, base Sandbox) Sandbox {
	o := r.object(n, path)
	if n, p := o.field("sessionToolsVisibility"); n != nil {
		base.SessionToolsVisibility = r.enum(n, p, VisibilitySpawned, VisibilityAll)
	}
	o.close()
	return base
}

// modelChoice reads "provider/model" or {primary, fallbacks}.
func modelChoice(r *reader, n *node, path string) ModelChoice {
	var m ModelChoice
	switch n.kind {
	case stringNode:
		m.Primary = modelRef(r, n, path)
	case objectNode:
		o := r.object(n, path)
		if n, p := o.field("primary"); n != nil {
			m.Primary = modelRef(r, n, p)
		}
		if n, p := o.field("fallbacks"); n != nil {
			for i, item := range r.list(n, p) {
				m.Fallbacks = append(m.Fallbacks, modelRef(r, item, index(p, i)))
			}
		}
		o.close()
	default:
		r.failf(path, `must be "provider/model" or {primary, fallbacks}, got %s`, n.describe())
	}
	return m
}

func modelRef(r *reader, n *node, path string) model.Ref {
	s := r.str(n, path)
	if n.kind != stringNode {
		return model.Ref{}
	}
	return parseRef(r, s, path)
}

func parseRef(r *reader, s, path string) model.Ref {
	ref, err := model.ParseRef(s)
	if err != nil {
		r.failf(path, `must be of the form "provider/model", got %q`, s)
		return model.Ref{}
	}
	return ref
}

// catalog reads agents.defaults.models in file order.
func catalog(r *reader, o *object) []CatalogModel {
	var out []CatalogModel
	seen := map[string]bool{}
	aliases := map[string]model.Ref{}
	for _, m := range o.entries() {
		p := child(o.path, m.key)
		entry := CatalogModel{Ref: parseRef(r, m.key, p)}
		if seen[entry.Ref.String()] {
			r.failf(p, "model %s is listed twice", entry.Ref)
		}
		seen[entry.Ref.String()] = true
		mo := r.object(m.val, p)
		if n, p := mo.field("alias"); n != nil {
			entry.Alias = r.str(n, p)
			key := strings.ToLower(entry.Alias)
			if other, dup := aliases[key]; dup && key != "" {
				r.failf(p, "alias %q is already used by %s", entry.Alias, other)
			}
			if key != "" {
				aliases[key] = entry.Ref
			}
		}
		mo.close()
		out = append(out, entry)
	}
	return out
}

// --- bindings ---

func decodeBindings(r *reader, n *node, path string, agents []Agent) []session.Binding {
	var out []session.Binding
	for i, item := range r.list(n, path) {
		ip := index(path, i)
		o := r.object(item, ip)
		var b session.Binding
		if n, p := o.field("agentId"); n != nil {
			b.AgentID = agentRef(r, r.name(n, p), p, agents)
		} else if item.kind == objectNode {
			r.failf(child(ip, "agentId"), "required")
		}
		if n, p := o.field("match"); n != nil {
			mo := r.object(n, p)
			if n, p := mo.field("channel"); n != nil {
				b.Match.Channel = r.name(n, p)
			}
			if n, p := mo.field("accountId"); n != nil {
				b.Match.AccountID = r.id(n, p)
			}
			if n, p := mo.field("guildId"); n != nil {
				b.Match.GuildID = r.id(n, p)
			}
			if n, p := mo.field("peer"); n != nil {
				b.Match.PeerKind, b.Match.PeerID = peer(r, n, p)
			}
			mo.close()
		}
		if b.Match == (session.BindingMatch{}) && item.kind == objectNode {
			r.warnf(ip, "match sets no field, so this binding matches nothing")
		}
		o.close()
		out = append(out, b)
	}
	return out
}

// agentRef checks that id names a listed agent (with no list, the only
// agent is "main") and returns it normalised.
func agentRef(r *reader, id, path string, agents []Agent) string {
	if id == "" {
		return ""
	}
	norm := session.NormalizeAgentID(id)
	if len(agents) == 0 {
		if norm != session.DefaultAgentID {
			r.failf(path, "no agent %q in agents.list (with no agents.list the only agent is %q)", id, session.DefaultAgentID)
		}
		return norm
	}
	for _, a := range agents {
		if a.ID == norm {
			return norm
		}
	}
	r.failf(path, "no agent %q in agents.list", id)
	return norm
}

// peer reads a binding's peer: {kind, id} or a bare id.
func peer(r *reader, n *node, path string) (kind, id string) {
	if n.kind != objectNode {
		return "", r.id(n, path)
	}
	o := r.object(n, path)
	if n, p := o.field("kind"); n != nil {
		kind = peerKind(r.enum(n, p, "dm", "direct", "group", "channel"))
	}
	if n, p := o.field("id"); n != nil {
		id = r.id(n, p)
	} else {
		r.failf(child(path, "id"), "required")
	}
	o.close()
	return kind, id
}

// --- tools.* ---

func decodeTools(r *reader, o *object) Tools {
	t := Tools{ToolPolicy: toolPolicyFields(r, o, true)}
	if n, p := o.field("subagents"); n != nil {
		so := r.object(n, p)
		if n, p := so.field("tools"); n != nil {
			to := r.object(n, p)
			if n, p := to.field("allow"); n != nil {
				t.Subagents.Allow = r.names(n, p)
			}
			if n, p := to.field("deny"); n != nil {
				t.Subagents.Deny = r.names(n, p)
			}
			to.close()
		}
		so.close()
	}
	o.close()
	return t
}

func toolPolicy(r *reader, o *object, byProvider bool) ToolPolicy {
	t := toolPolicyFields(r, o, byProvider)
	o.close()
	return t
}

// toolPolicyFields reads profile, allow, deny and (when byProvider)
// byProvider from o, leaving o open for callers with more fields.
func toolPolicyFields(r *reader, o *object, byProvider bool) ToolPolicy {
	var t ToolPolicy
	if n, p := o.field("profile"); n != nil {
		t.Profile = r.enum(n, p, ProfileMinimal, ProfileCoding, ProfileMessaging, ProfileFull)
	}
	if n, p := o.field("allow"); n != nil {
		t.Allow = r.names(n, p)
	}
	if n, p := o.field("deny"); n != nil {
		t.Deny = r.names(n, p)
	}
	if !byProvider {
		return t
	}
	if n, p := o.field("byProvider"); n != nil {
		for _, m := range r.object(n, p).entries() {
			mp := child(p, m.key)
			key := strings.ToLower(strings.TrimSpace(m.key))
			switch {
			case key == "":
				r.failf(mp, "empty provider name")
				continue
			case strings.Contains(key, "/"):
				key = strings.ToLower(parseRef(r, key, mp).String())
			}
			if t.ByProvider == nil {
				t.ByProvider = map[string]ToolPolicy{}
			}
			if _, dup := t.ByProvider[key]; dup {
				r.failf(mp, "%q is listed twice", key)
			}
			t.ByProvider[key] = toolPolicy(r, r.object(m.val, mp), false)
		}
	}
	return t
}

// --- channels.* ---

func decodeChannels(r *reader, o *object) map[string]Channel {
	out := map[string]Channel{}
	for _, m := range o.entries() {
		p := child(o.path, m.key)
		name := strings.ToLower(strings.TrimSpace(m.key))
		if name == "" {
			r.failf(p, "empty channel name")
			continue
		}
		if _, dup := out[name]; dup {
			r.failf(p, "channel %q is listed twice", name)
		}
		co := r.object(m.val, p)
		var ch Channel
		if n, p := co.field("allowFrom"); n != nil {
			ch.AllowFrom = channelIDs(r, n, p, name)
		}
		if n, p := co.field("owners"); n != nil {
			ch.Owners = channelIDs(r, n, p, name)
		}
		for _, cm := range co.members {
			if !co.used[cm.key] && secretKey(cm.key) {
				co.used[cm.key] = true
				r.warnf(child(p, cm.key), "ignored: secrets belong in the function environment or SSM, never in the config")
			}
		}
		co.close()
		out[name] = ch
	}
	return out
}

// channelIDs reads allowFrom/owners: ids as strings or numbers, optionally
// "<channel>:"-prefixed, stored bare.
func channelIDs(r *reader, n *node, path, channel string) []string {
	items := r.list(n, path)
	out := make([]string, 0, len(items))
	for i, item := range items {
		id := r.id(item, index(path, i))
		id = strings.TrimSpace(strings.TrimPrefix(id, channel+":"))
		if id == "" && r.err == nil {
			r.failf(index(path, i), "empty id")
		}
		out = append(out, id)
	}
	return out
}

// secretKey reports whether a channel key looks like a credential.
func secretKey(key string) bool {
	k := strings.ToLower(key)
	for _, s := range []string{"token", "secret", "password", "apikey", "api_key", "privatekey"} {
		if strings.Contains(k, s) {
			return true
		}
	}
	return false
}
