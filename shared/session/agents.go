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

// AgentFor returns the agent that handles r: the most specific matching
// binding wins (peer, then guild, then account, then channel), ties going
// to the first in config order; with none, the default agent.
func (a Agents) AgentFor(r Route) string {
	if a.Default == "" {
		return DefaultAgentID
	}
	return NormalizeAgentID(a.Default)
}
