package config

import (
	"slices"
	"strings"

	"github.com/zero-gateway/zero/shared/session"
)

// warnSharedMain warns when session.dmScope is "main" (every direct chat
// of an agent is one session) while allowFrom admits more than one
// sender: "*" on any channel, or two or more people over all channels.
// They would all share one conversation and its history. Two ids that
// session.identityLinks name as one person count once; a Telegram group
// chat id (negative: "-100…") admits a group, whose session is the
// group's own, so it is not counted. Under session.scope "global" every
// chat shares one session by choice, and nothing is said.
func warnSharedMain(c *Config, r *reader) {
	if c.Session.DMScope != session.ScopeMain || c.Session.Scope == session.ScopeGlobal {
		return
	}
	var people, wildcards []string
	for _, name := range sortedChannels(c.Channels) {
		for _, id := range c.Channels[name].AllowFrom {
			switch {
			case id == "*":
				wildcards = append(wildcards, "channels."+name+".allowFrom")
			case strings.HasPrefix(id, "-"):
			default:
				if p := linkedName(c.Session.IdentityLinks, name, id); !slices.Contains(people, p) {
					people = append(people, p)
				}
			}
		}
	}
	switch {
	case len(wildcards) > 0:
		r.warnf("session.dmScope", `"main" while %s admits anyone ("*"): %s`, strings.Join(wildcards, " and "), sharedMainHint)
	case len(people) > 1:
		r.warnf("session.dmScope", `"main" while allowFrom admits %d senders (%s): %s`, len(people), strings.Join(people, ", "), sharedMainHint)
	}
}

const sharedMainHint = `every direct chat shares one conversation and its history; ` +
	`set session.dmScope to "per-channel-peer" to give each sender their own`

// linkedName is who id on channel is: the identity link naming
// "<channel>:<id>", else "<channel>:<id>".
func linkedName(links []session.IdentityLink, channel, id string) string {
	peer := channel + ":" + id
	for _, l := range links {
		for _, p := range l.Peers {
			if normalize(p) == peer {
				return l.Canonical
			}
		}
	}
	return peer
}

func sortedChannels(channels map[string]Channel) []string {
	names := make([]string, 0, len(channels))
	for name := range channels {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}
