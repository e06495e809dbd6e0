package config

import (
	"maps"
	"slices"
	"strings"

	"github.com/zero-gateway/zero/shared/session"
)

// The views below return copies, so a caller can never change the Config
// other goroutines share.

// Keys is the key-shaping part of session.*: mainKey, dmScope, scope and
// identityLinks in file order.
func (c *Config) Keys() session.KeyConfig {
	var links []session.IdentityLink
	for _, l := range c.Session.IdentityLinks {
		links = append(links, session.IdentityLink{Canonical: l.Canonical, Peers: slices.Clone(l.Peers)})
	}
	return session.KeyConfig{
		MainKey:       c.Session.MainKey,
		DMScope:       c.Session.DMScope,
		Scope:         c.Session.Scope,
		IdentityLinks: links,
	}
}

// Routing is agents.list[] and bindings: the default agent is the one
// marked default, else the first listed, else "main".
func (c *Config) Routing() session.Agents {
	a := session.Agents{Default: session.DefaultAgentID, Bindings: slices.Clone(c.Bindings)}
	for _, agent := range c.Agents.List {
		a.IDs = append(a.IDs, agent.ID)
	}
	if len(c.Agents.List) > 0 {
		a.Default = c.Agents.List[0].ID
	}
	for _, agent := range c.Agents.List {
		if agent.Default {
			a.Default = agent.ID
		}
	}
	return a
}

// Agent returns the agents.list[] entry of id (normalised first).
func (c *Config) Agent(id string) (Agent, bool) {
	id = session.NormalizeAgentID(id)
	for _, a := range c.Agents.List {
		if a.ID == id {
			return a, true
		}
	}
	return Agent{}, false
}

// Lifecycle is session.reset, resetByType, resetByChannel and the time zone.
func (c *Config) Lifecycle() session.Lifecycle {
	return session.Lifecycle{
		Reset:     c.Session.Reset,
		ByType:    maps.Clone(c.Session.ResetByType),
		ByChannel: maps.Clone(c.Session.ResetByChannel),
		Location:  c.Session.Location,
	}
}

// SendPolicy is session.sendPolicy.
func (c *Config) SendPolicy() session.SendPolicy {
	p := c.Session.SendPolicy
	p.Rules = slices.Clone(p.Rules)
	return p
}

// ResetTriggers are the exact commands that reset a session: "/new",
// "/reset" and session.resetTriggers, lower-cased, without duplicates.
func (c *Config) ResetTriggers() []string {
	out := []string{"/new", "/reset"}
	for _, t := range c.Session.ResetTriggers {
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}

// Admits reports whether channels.<channel>.allowFrom lets sender (a peer
// id on that channel, with or without the "<channel>:" prefix) start turns:
// the list holds "*" or the id. No allowFrom, or an empty sender, admits
// nobody.
func (c *Config) Admits(channel, sender string) bool {
	return c.listed(channel, sender, func(ch Channel) []string { return ch.AllowFrom })
}

// IsOwner reports whether sender is in channels.<channel>.owners (or the
// list holds "*"), with the same rules as Admits.
func (c *Config) IsOwner(channel, sender string) bool {
	return c.listed(channel, sender, func(ch Channel) []string { return ch.Owners })
}

// BotUsername is channels.<channel>.botUsername, without "@"; "" when
// not configured.
func (c *Config) BotUsername(channel string) string {
	return c.Channels[normalize(channel)].BotUsername
}

// Owners returns channels.<channel>.owners (bare ids, "*" for anyone); nil
// when none are configured, for a refusal that says where to set them:
// see OwnersKey.
func (c *Config) Owners(channel string) []string {
	return slices.Clone(c.Channels[normalize(channel)].Owners)
}

// OwnersConfigured reports whether channels.<channel>.owners names anyone.
func (c *Config) OwnersConfigured(channel string) bool {
	return len(c.Channels[normalize(channel)].Owners) > 0
}

// OwnersKey is the config key that lists channel's owners, for messages:
// "channels.telegram.owners".
func OwnersKey(channel string) string { return child(child("channels", normalize(channel)), "owners") }

// AllowFromKey is the config key that lists who channel admits:
// "channels.telegram.allowFrom".
func AllowFromKey(channel string) string {
	return child(child("channels", normalize(channel)), "allowFrom")
}

func (c *Config) listed(channel, sender string, ids func(Channel) []string) bool {
	channel = normalize(channel)
	sender = normalize(sender)
	sender = strings.TrimSpace(strings.TrimPrefix(sender, channel+":"))
	if sender == "" {
		return false
	}
	for _, id := range ids(c.Channels[channel]) {
		if id == "*" || id == sender {
			return true
		}
	}
	return false
}

func normalize(s string) string { return strings.ToLower(strings.TrimSpace(s)) }
