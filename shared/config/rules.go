package config

import (
	"slices"
	"strings"
	"time"

	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/session"
)

// The rules below are the hooks of the table (keys.go): what one key's
// kind cannot say alone — map entries, list items, keys that depend on
// other keys.

// --- session.* ---

// addIdentityLink keeps the canonical names in file order: the first link
// naming a peer wins.
func addIdentityLink(s *Session, v Value) {
	canonical := normalize(v.Key())
	if canonical == "" {
		v.Failf("empty canonical name")
		return
	}
	link := session.IdentityLink{Canonical: canonical}
	for i, peer := range v.Strings() {
		if first, ok := linkedTo(peer, link, s.IdentityLinks); ok {
			v.Item(i).Warnf("%q is already linked to %q; the first link wins", peer, first)
			continue
		}
		link.Peers = append(link.Peers, peer)
	}
	s.IdentityLinks = append(s.IdentityLinks, link)
}

// linkedTo is the canonical name a link already gives peer.
func linkedTo(peer string, current session.IdentityLink, earlier []session.IdentityLink) (string, bool) {
	if slices.Contains(current.Peers, peer) {
		return current.Canonical, true
	}
	for _, l := range earlier {
		if slices.Contains(l.Peers, peer) {
			return l.Canonical, true
		}
	}
	return "", false
}

// requireIdle: mode idle needs an idle window.
func requireIdle(_ *Session, p *session.ResetPolicy, v Value) {
	if p.Mode == session.ResetIdle && p.IdleMinutes == 0 {
		v.Child("idleMinutes").Failf("required (a positive number of minutes) when mode is idle")
	}
}

func newResetPolicy(*Session, Value) *session.ResetPolicy { return &session.ResetPolicy{} }

func storeResetByType(s *Session, p *session.ResetPolicy, v Value) {
	requireIdle(s, p, v)
	if !v.Given() {
		return
	}
	if s.ResetByType == nil {
		s.ResetByType = map[string]session.ResetPolicy{}
	}
	_, t := splitPath(v.Path)
	s.ResetByType[t] = *p
}

func newResetByChannel(s *Session, v Value) *session.ResetPolicy {
	channel := normalize(v.Key())
	if channel == "" {
		v.Failf("empty channel name")
		return nil
	}
	if _, dup := s.ResetByChannel[channel]; dup {
		v.Failf("channel %q is listed twice", channel)
	}
	return &session.ResetPolicy{}
}

func storeResetByChannel(s *Session, p *session.ResetPolicy, v Value) {
	requireIdle(s, p, v)
	if s.ResetByChannel == nil {
		s.ResetByChannel = map[string]session.ResetPolicy{}
	}
	s.ResetByChannel[normalize(v.Key())] = *p
}

// legacyIdleMinutes is the upstream idle-only mode: session.idleMinutes
// with neither session.reset nor resetByType.
func legacyIdleMinutes(s *Session, v Value) {
	switch {
	case v.Present("session.reset") || v.Present("session.resetByType"):
		v.Warnf("ignored because session.reset or session.resetByType is set (put idleMinutes there)")
	case v.Int() > 0:
		s.Reset.Mode, s.Reset.IdleMinutes = session.ResetIdle, v.Int()
	}
}

// resolveTimeZone: session.timeZone, else agents.defaults.userTimezone
// (both already validated), else the default.
func resolveTimeZone(c *Config, v Value) {
	if tz := c.Agents.Defaults.UserTimezone; !v.Present("session.timeZone") && tz != "" {
		loc, err := time.LoadLocation(tz)
		if err == nil {
			c.Session.TimeZone, c.Session.Location = tz, loc
		}
	}
}

// peerKind maps the upstream "dm" to the route's "direct".
func peerKind(kind string) string {
	if kind == "dm" {
		return "direct"
	}
	return kind
}

// --- agents.* ---

func setPrimary(m *ModelChoice, v Value) { m.Primary = v.Ref() }

func setVisibility(s *Sandbox, v Value) { s.SessionToolsVisibility = v.Str() }

// addCatalogModel adds an agents.defaults.models entry: its key is the
// model.
func addCatalogModel(d *AgentDefaults, v Value) *CatalogModel {
	ref, err := model.ParseRef(v.Key())
	if err != nil {
		v.Failf(`must be of the form "provider/model", got %q`, v.Key())
		return nil
	}
	for _, m := range d.Models {
		if m.Ref == ref {
			v.Failf("model %s is listed twice", ref)
			return nil
		}
	}
	d.Models = append(d.Models, CatalogModel{Ref: ref})
	return &d.Models[len(d.Models)-1]
}

// checkAlias: an alias names one model.
func checkAlias(d *AgentDefaults, m *CatalogModel, v Value) {
	if m.Alias == "" {
		return
	}
	for _, other := range d.Models[:len(d.Models)-1] {
		if strings.EqualFold(other.Alias, m.Alias) {
			v.Child("alias").Failf("alias %q is already used by %s", m.Alias, other.Ref)
			return
		}
	}
}

func addAgent(a *Agents, _ Value) *Agent {
	a.List = append(a.List, Agent{Sandbox: a.Defaults.Sandbox})
	return &a.List[len(a.List)-1]
}

func setAgentID(ag *Agent, v Value) {
	raw := v.Str()
	ag.ID = session.NormalizeAgentID(raw)
	if ag.ID != raw {
		v.Warnf("%q is used as %q (agent ids are [a-z0-9_-])", raw, ag.ID)
	}
}

// checkAgent: ids are unique, one agent at most is the default.
func checkAgent(a *Agents, ag *Agent, v Value) {
	for j, other := range a.List[:v.Index()] {
		if ag.ID != "" && other.ID == ag.ID {
			v.Child("id").Failf("duplicate agent id %q (also %s)", ag.ID, v.SiblingPath(j))
			return
		}
	}
	for j, other := range a.List[:v.Index()] {
		if ag.Default && other.Default {
			v.Child("default").Failf("only one agent may be the default; %s already is", v.SiblingPath(j))
			return
		}
	}
}

// resolveAllowAgents: allowAgents names listed agents, maybe listed after
// it.
func resolveAllowAgents(a *Agents, _ *Agents, v Value) {
	for i := range a.List {
		allow := v.Item(i).Child("subagents").Child("allowAgents")
		for j, id := range a.List[i].Subagents.AllowAgents {
			if id == "*" {
				continue
			}
			norm := session.NormalizeAgentID(id)
			if _, ok := findAgent(a.List, norm); !ok {
				allow.Item(j).Failf("no agent %q in agents.list", id)
				return
			}
			a.List[i].Subagents.AllowAgents[j] = norm
		}
	}
}

func findAgent(list []Agent, id string) (Agent, bool) {
	for _, a := range list {
		if a.ID == id {
			return a, true
		}
	}
	return Agent{}, false
}

// --- bindings ---

func addBinding(c *Config, _ Value) *session.Binding {
	c.Bindings = append(c.Bindings, session.Binding{})
	return &c.Bindings[len(c.Bindings)-1]
}

// checkBinding: the agent is listed (with no agents.list the only agent
// is "main"), and the match matches something.
func checkBinding(c *Config, b *session.Binding, v Value) {
	if id := b.AgentID; id != "" {
		b.AgentID = session.NormalizeAgentID(id)
		switch _, ok := findAgent(c.Agents.List, b.AgentID); {
		case len(c.Agents.List) == 0 && b.AgentID != session.DefaultAgentID:
			v.Child("agentId").Failf("no agent %q in agents.list (with no agents.list the only agent is %q)", id, session.DefaultAgentID)
			return
		case len(c.Agents.List) > 0 && !ok:
			v.Child("agentId").Failf("no agent %q in agents.list", id)
			return
		}
	}
	if v.Given() && b.Match == (session.BindingMatch{}) {
		v.Warnf("match sets no field, so this binding matches nothing")
	}
}

// --- tools.* ---

// newProviderPolicy opens a byProvider entry, keyed by the lower-cased
// provider or provider/model.
func newProviderPolicy(t *ToolPolicy, v Value) *ToolPolicy {
	key, ok := providerKey(v.Key())
	switch {
	case key == "":
		v.Failf("empty provider name")
		return nil
	case !ok:
		v.Failf(`must be of the form "provider/model", got %q`, normalize(v.Key()))
		return nil
	}
	if _, dup := t.ByProvider[key]; dup {
		v.Failf("%q is listed twice", key)
		return nil
	}
	return &ToolPolicy{}
}

func storeProviderPolicy(t *ToolPolicy, own *ToolPolicy, v Value) {
	if t.ByProvider == nil {
		t.ByProvider = map[string]ToolPolicy{}
	}
	key, _ := providerKey(v.Key())
	t.ByProvider[key] = *own
}

func providerKey(key string) (string, bool) {
	key = normalize(key)
	if !strings.Contains(key, "/") {
		return key, true
	}
	ref, err := model.ParseRef(key)
	return strings.ToLower(ref.String()), err == nil
}

// --- channels.* ---

func newChannel(c *Config, v Value) *Channel {
	name := normalize(v.Key())
	if name == "" {
		v.Failf("empty channel name")
		return nil
	}
	if _, dup := c.Channels[name]; dup {
		v.Failf("channel %q is listed twice", name)
		return nil
	}
	return &Channel{}
}

// storeChannel stores ids bare (without "<channel>:") and warns about
// secret-looking keys: secrets belong in the function environment.
func storeChannel(c *Config, ch *Channel, v Value) {
	name := normalize(v.Key())
	ch.AllowFrom = bareIDs(ch.AllowFrom, name, v.Child("allowFrom"))
	ch.Owners = bareIDs(ch.Owners, name, v.Child("owners"))
	ch.BotUsername = botUsername(ch.BotUsername, v.Child("botUsername"))
	for _, key := range v.Claim(secretKey) {
		v.Child(key).Warnf("ignored: secrets belong in the function environment or SSM, never in the config")
	}
	c.Channels[name] = *ch
}

// botUsername is a channel's bot username without "@": letters, digits
// and "_", at most 64 of them (Telegram's are 5 to 32).
func botUsername(name string, v Value) string {
	name = strings.TrimPrefix(strings.TrimSpace(name), "@")
	if name != "" && (len(name) > 64 || strings.Trim(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") != "") {
		v.Failf("want the bot's username: letters, digits and _ (e.g. ZeroBot), got %q", name)
	}
	return name
}

func bareIDs(ids []string, channel string, v Value) []string {
	for i, id := range ids {
		ids[i] = strings.TrimSpace(strings.TrimPrefix(id, channel+":"))
		if ids[i] == "" {
			v.Item(i).Failf("empty id")
		}
	}
	return ids
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
