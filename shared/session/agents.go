package session

// Agents is the agent routing config: agents.list[] ids, the default agent
// and the bindings that send a channel, account, guild or peer to an agent.
type Agents struct {
	Default  string    // the agents.list[] entry marked default, else the first, else "main"
	IDs      []string  // agents.list[].id, normalised, in config order
	Bindings []Binding // in config order
}

// Binding routes matching inbound messages to AgentID. Empty match fields
// match anything; a binding with no field set matches nothing.
type Binding struct {
	AgentID string
	Match   BindingMatch
}

// BindingMatch is a binding's match block.
type BindingMatch struct {
	Channel   string
	AccountID string // "*" matches any account
	GuildID   string
	PeerKind  string // direct | group | channel; "" matches any chat type
	PeerID    string
}

// Binding specificity tiers, most specific last.
const (
	tierNone = iota
	tierChannel
	tierAccount
	tierGuild
	tierPeer
)

// AgentFor returns the agent that handles r: the most specific matching
// binding wins (peer, then guild, then account, then channel), ties going
// to the first in config order; with none, the default agent.
//
// A binding matches when every field it sets matches r, compared trimmed
// and case-insensitively: AccountID "*" matches any account and "default"
// matches a route without one; PeerKind matches r.ChatType ("dm" is an
// alias of "direct"). A binding with a PeerID is a peer binding, else one
// with a GuildID a guild binding, else one with a concrete AccountID an
// account binding; the rest (channel, "*" account, peer kind only) are
// channel bindings. The result is normalised with NormalizeAgentID.
func (a Agents) AgentFor(r Route) string {
	best, bestTier := "", tierNone
	for _, b := range a.Bindings {
		tier := b.Match.tier()
		if tier > bestTier && b.Match.matches(r) {
			best, bestTier = b.AgentID, tier
		}
	}
	if bestTier != tierNone {
		return NormalizeAgentID(best)
	}
	return NormalizeAgentID(a.Default) // "" normalises to DefaultAgentID
}

// tier returns m's specificity, tierNone when m sets no field.
func (m BindingMatch) tier() int {
	account := normalizeID(m.AccountID)
	switch {
	case normalizeID(m.PeerID) != "":
		return tierPeer
	case normalizeID(m.GuildID) != "":
		return tierGuild
	case account != "" && account != "*":
		return tierAccount
	case normalizeID(m.Channel) != "" || account == "*" || normalizeID(m.PeerKind) != "":
		return tierChannel
	}
	return tierNone
}

// matches reports whether every field m sets matches r.
func (m BindingMatch) matches(r Route) bool {
	if c := normalizeID(m.Channel); c != "" && c != normalizeID(r.Channel) {
		return false
	}
	if acct := normalizeID(m.AccountID); acct != "" && acct != "*" {
		got := normalizeID(r.AccountID)
		if got == "" {
			got = DefaultAccountID
		}
		if acct != got {
			return false
		}
	}
	if g := normalizeID(m.GuildID); g != "" && g != normalizeID(r.GuildID) {
		return false
	}
	if k := normalizeID(m.PeerKind); k != "" && chatTypeOf(k) != chatTypeOf(r.ChatType) {
		return false
	}
	if p := normalizeID(m.PeerID); p != "" && p != normalizeID(r.PeerID) {
		return false
	}
	return true
}

// chatTypeOf normalises a chat type, reading "dm" as "direct".
func chatTypeOf(t string) string {
	t = normalizeID(t)
	if t == "dm" {
		return "direct"
	}
	return t
}
