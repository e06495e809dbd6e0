package session

import "testing"

func TestAgentFor(t *testing.T) {
	bind := func(agent string, m BindingMatch) Binding { return Binding{AgentID: agent, Match: m} }
	dm := Route{Channel: "discord", AccountID: "bot1", ChatType: "direct", PeerID: "u1", GuildID: ""}
	guildMsg := Route{Channel: "discord", AccountID: "bot1", ChatType: "channel", PeerID: "c1", GuildID: "g1"}
	tests := []struct {
		name   string
		agents Agents
		route  Route
		want   string
	}{
		{"no bindings, no default", Agents{}, dm, "main"},
		{"no bindings, default", Agents{Default: "Ops"}, dm, "ops"},
		{"blank default", Agents{Default: "  "}, dm, "main"},
		{"channel binding", Agents{Bindings: []Binding{bind("chat", BindingMatch{Channel: "discord"})}}, dm, "chat"},
		{"channel binding case-insensitive", Agents{Bindings: []Binding{bind("chat", BindingMatch{Channel: " Discord "})}}, dm, "chat"},
		{"other channel falls to default", Agents{Default: "ops", Bindings: []Binding{bind("chat", BindingMatch{Channel: "telegram"})}}, dm, "ops"},
		{"empty binding matches nothing", Agents{Default: "ops", Bindings: []Binding{bind("chat", BindingMatch{})}}, dm, "ops"},
		{"blank fields are unset", Agents{Default: "ops", Bindings: []Binding{bind("chat", BindingMatch{Channel: " ", PeerID: " "})}}, dm, "ops"},
		{"account beats channel", Agents{Bindings: []Binding{
			bind("chan", BindingMatch{Channel: "discord"}),
			bind("acct", BindingMatch{Channel: "discord", AccountID: "BOT1"}),
		}}, dm, "acct"},
		{"other account does not match", Agents{Bindings: []Binding{
			bind("acct", BindingMatch{Channel: "discord", AccountID: "bot2"}),
			bind("chan", BindingMatch{Channel: "discord"}),
		}}, dm, "chan"},
		{"default account matches a route without one", Agents{Bindings: []Binding{
			bind("acct", BindingMatch{AccountID: "default"}),
		}}, Route{Channel: "telegram", ChatType: "direct", PeerID: "1"}, "acct"},
		{"wildcard account is channel-level", Agents{Bindings: []Binding{
			bind("any", BindingMatch{Channel: "discord", AccountID: "*"}),
			bind("acct", BindingMatch{Channel: "discord", AccountID: "bot1"}),
		}}, dm, "acct"},
		{"wildcard account alone matches", Agents{Bindings: []Binding{bind("any", BindingMatch{AccountID: "*"})}}, dm, "any"},
		{"guild beats account", Agents{Bindings: []Binding{
			bind("acct", BindingMatch{AccountID: "bot1"}),
			bind("guild", BindingMatch{GuildID: "G1"}),
		}}, guildMsg, "guild"},
		{"guild binding skips other guilds", Agents{Default: "ops", Bindings: []Binding{bind("guild", BindingMatch{GuildID: "g2"})}}, guildMsg, "ops"},
		{"guild binding skips routes without guild", Agents{Default: "ops", Bindings: []Binding{bind("guild", BindingMatch{GuildID: "g1"})}}, dm, "ops"},
		{"peer beats guild", Agents{Bindings: []Binding{
			bind("guild", BindingMatch{Channel: "discord", GuildID: "g1"}),
			bind("peer", BindingMatch{PeerKind: "channel", PeerID: "C1"}),
		}}, guildMsg, "peer"},
		{"peer kind must match chat type", Agents{Default: "ops", Bindings: []Binding{bind("peer", BindingMatch{PeerKind: "group", PeerID: "c1"})}}, guildMsg, "ops"},
		{"direct peer", Agents{Bindings: []Binding{bind("peer", BindingMatch{PeerKind: "Direct", PeerID: "u1"})}}, dm, "peer"},
		{"dm is an alias of direct", Agents{Bindings: []Binding{bind("peer", BindingMatch{PeerKind: "dm", PeerID: "u1"})}}, dm, "peer"},
		{"peer id without kind matches any chat type", Agents{Bindings: []Binding{bind("peer", BindingMatch{PeerID: "U1"})}}, dm, "peer"},
		{"peer binding with other field failing", Agents{Default: "ops", Bindings: []Binding{bind("peer", BindingMatch{Channel: "telegram", PeerID: "u1"})}}, dm, "ops"},
		{"peer kind alone is channel-level", Agents{Bindings: []Binding{
			bind("kind", BindingMatch{PeerKind: "direct"}),
			bind("acct", BindingMatch{AccountID: "bot1"}),
		}}, dm, "acct"},
		{"peer kind alone matches its chat type", Agents{Default: "ops", Bindings: []Binding{bind("groups", BindingMatch{PeerKind: "group"})}}, Route{Channel: "telegram", ChatType: "group", PeerID: "-1"}, "groups"},
		{"tie goes to the first", Agents{Bindings: []Binding{
			bind("first", BindingMatch{Channel: "discord"}),
			bind("second", BindingMatch{Channel: "discord"}),
		}}, dm, "first"},
		{"tie among peers goes to the first", Agents{Bindings: []Binding{
			bind("first", BindingMatch{PeerID: "u1"}),
			bind("second", BindingMatch{Channel: "discord", PeerKind: "direct", PeerID: "u1"}),
		}}, dm, "first"},
		{"most specific wins whatever the order", Agents{Bindings: []Binding{
			bind("peer", BindingMatch{PeerID: "c1"}),
			bind("guild", BindingMatch{GuildID: "g1"}),
			bind("acct", BindingMatch{AccountID: "bot1"}),
			bind("chan", BindingMatch{Channel: "discord"}),
		}}, guildMsg, "peer"},
		{"result normalised", Agents{Bindings: []Binding{bind(" Work Bot ", BindingMatch{Channel: "discord"})}}, dm, "work-bot"},
		{"route fields normalised", Agents{Bindings: []Binding{bind("peer", BindingMatch{Channel: "discord", PeerKind: "direct", PeerID: "u1"})}},
			Route{Channel: " DISCORD ", ChatType: " Direct ", PeerID: " U1 "}, "peer"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.agents.AgentFor(tc.route); got != tc.want {
				t.Fatalf("AgentFor(%+v) = %q; want %q", tc.route, got, tc.want)
			}
		})
	}
}
