package upstream

import (
	"fmt"
	"slices"
	"strings"

	"github.com/zero-gateway/zero/shared/session"
)

// ScopeGap is the imported private chats that need one session.dmScope
// to continue: under the checked config, session.Key gives their senders'
// next messages other keys, so those messages start new sessions.
type ScopeGap struct {
	Need string   // the dmScope whose keys these are: per-peer, per-channel-peer or per-account-channel-peer
	Keys []string // sorted
}

// ScopeGaps checks the private-chat keys among keys (…:dm:<peer>, as
// NewItem makes them) against cfg: a key that session.Key does not give
// for its own channel, account and peer under cfg is in the gap of the
// dmScope its shape needs. Other keys are not checked. Gaps come in the
// order per-peer, per-channel-peer, per-account-channel-peer; none when
// every private chat continues. Pure.
func ScopeGaps(keys []string, cfg session.KeyConfig) []ScopeGap {
	byScope := map[string][]string{}
	for _, k := range keys {
		agent, route, need, ok := dmRoute(k)
		if ok && session.Key(agent, route, cfg) != k {
			byScope[need] = append(byScope[need], k)
		}
	}
	var gaps []ScopeGap
	for _, need := range []string{session.ScopePerPeer, session.ScopePerChannelPeer, session.ScopePerAccountChannelPeer} {
		if ks := byScope[need]; len(ks) > 0 {
			slices.Sort(ks)
			gaps = append(gaps, ScopeGap{Need: need, Keys: slices.Compact(ks)})
		}
	}
	return gaps
}

// Advice is the gap as one line for the import summary: how many private
// chats will not continue, the first few keys, and what to set.
func (g ScopeGap) Advice(cfg session.KeyConfig) string {
	shown := g.Keys[:min(len(g.Keys), 3)]
	list := strings.Join(shown, ", ")
	if n := len(g.Keys) - len(shown); n > 0 {
		list += fmt.Sprintf(" and %d more", n)
	}
	fix := fmt.Sprintf("session.dmScope is %q; set it to %q", orDefault(cfg.DMScope, session.ScopeMain), g.Need)
	switch {
	case strings.EqualFold(strings.TrimSpace(cfg.Scope), session.ScopeGlobal):
		fix = fmt.Sprintf("session.scope is %q; set it to %q and session.dmScope to %q", session.ScopeGlobal, session.ScopePerSender, g.Need)
	case strings.EqualFold(strings.TrimSpace(cfg.DMScope), g.Need):
		fix = fmt.Sprintf("session.dmScope is %q, but session.identityLinks gives these senders other names", g.Need)
	}
	return fmt.Sprintf("warning: %d imported private chats will not continue (%s): %s in zero.json", len(g.Keys), list, fix)
}

// dmRoute reads a private-chat key: agent:<id>:dm:<peer> (per-peer),
// agent:<id>:<channel>:dm:<peer> (per-channel-peer) or
// agent:<id>:<channel>:<account>:dm:<peer> (per-account-channel-peer).
// ok is false for any other key.
func dmRoute(key string) (agent string, r session.Route, need string, ok bool) {
	parts := strings.Split(key, ":")
	n := len(parts)
	if n < 4 || n > 6 || parts[0] != "agent" || parts[n-2] != "dm" || parts[n-1] == "" {
		return "", session.Route{}, "", false
	}
	r = session.Route{ChatType: "direct", PeerID: parts[n-1]}
	switch n {
	case 4:
		need = session.ScopePerPeer
	case 5:
		r.Channel, need = parts[2], session.ScopePerChannelPeer
	case 6:
		r.Channel, r.AccountID, need = parts[2], parts[3], session.ScopePerAccountChannelPeer
	}
	return parts[1], r, need, true
}

func orDefault(s, def string) string {
	if strings.TrimSpace(s) == "" {
		return def
	}
	return s
}
