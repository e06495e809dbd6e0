package upstream

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/session"
)

func TestScopeGaps(t *testing.T) {
	keys := []string{
		"agent:main:telegram:dm:7001",
		"agent:main:telegram:dm:7002",
		"agent:main:telegram:group:-1007003", // a group: never checked
		"agent:main:main",
		"cron:nightly",
	}
	tests := []struct {
		name string
		keys []string
		cfg  session.KeyConfig
		want []ScopeGap
	}{
		{name: "default main scope", keys: keys, cfg: session.KeyConfig{},
			want: []ScopeGap{{Need: "per-channel-peer", Keys: []string{"agent:main:telegram:dm:7001", "agent:main:telegram:dm:7002"}}}},
		{name: "the scope the keys need", keys: keys, cfg: session.KeyConfig{DMScope: "per-channel-peer"}},
		{name: "the scope written loosely", keys: keys, cfg: session.KeyConfig{DMScope: " Per-Channel-Peer "}},
		{name: "per-peer does not continue per-channel keys", keys: keys, cfg: session.KeyConfig{DMScope: "per-peer"},
			want: []ScopeGap{{Need: "per-channel-peer", Keys: []string{"agent:main:telegram:dm:7001", "agent:main:telegram:dm:7002"}}}},
		{name: "each shape needs its own scope",
			keys: []string{"agent:main:dm:7", "agent:ops:discord:dm:8", "agent:main:telegram:bot2:dm:9", "agent:main:telegram:default:dm:10"},
			cfg:  session.KeyConfig{DMScope: "per-channel-peer"},
			want: []ScopeGap{
				{Need: "per-peer", Keys: []string{"agent:main:dm:7"}},
				{Need: "per-account-channel-peer", Keys: []string{"agent:main:telegram:bot2:dm:9", "agent:main:telegram:default:dm:10"}},
			}},
		{name: "per-account keys under their scope", keys: []string{"agent:main:telegram:bot2:dm:9", "agent:main:telegram:group:dm:5"},
			cfg: session.KeyConfig{DMScope: "per-account-channel-peer"}},
		{name: "global scope continues none", keys: []string{"agent:main:telegram:dm:7001"},
			cfg:  session.KeyConfig{Scope: "global", DMScope: "per-channel-peer"},
			want: []ScopeGap{{Need: "per-channel-peer", Keys: []string{"agent:main:telegram:dm:7001"}}}},
		{name: "an identity link renames the sender", keys: []string{"agent:main:telegram:dm:7001"},
			cfg:  session.KeyConfig{DMScope: "per-channel-peer", IdentityLinks: []session.IdentityLink{{Canonical: "alice", Peers: []string{"telegram:7001"}}}},
			want: []ScopeGap{{Need: "per-channel-peer", Keys: []string{"agent:main:telegram:dm:7001"}}}},
		{name: "the linked name continues", keys: []string{"agent:main:telegram:dm:alice"},
			cfg: session.KeyConfig{DMScope: "per-channel-peer", IdentityLinks: []session.IdentityLink{{Canonical: "alice", Peers: []string{"telegram:7001"}}}}},
		{name: "keys that are no private chat", keys: []string{"agent:main:dm:", "agent:main:x:y:z:dm:1", "dm:7", "agent:main:subagent:abc"}},
		{name: "duplicates listed once", keys: []string{"agent:main:dm:7", "agent:main:dm:7"},
			want: []ScopeGap{{Need: "per-peer", Keys: []string{"agent:main:dm:7"}}}},
		{name: "no keys", keys: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, ScopeGaps(tt.keys, tt.cfg)); diff != "" {
				t.Errorf("ScopeGaps (-want +got):\n%s", diff)
			}
		})
	}
}

func TestScopeGapAdvice(t *testing.T) {
	five := ScopeGap{Need: "per-channel-peer", Keys: []string{"agent:main:telegram:dm:1", "agent:main:telegram:dm:2", "agent:main:telegram:dm:3", "agent:main:telegram:dm:4", "agent:main:telegram:dm:5"}}
	one := ScopeGap{Need: "per-channel-peer", Keys: []string{"agent:main:telegram:dm:1"}}
	tests := []struct {
		name string
		gap  ScopeGap
		cfg  session.KeyConfig
		want string
	}{
		{name: "default scope, keys cut at three", gap: five, want: `warning: 5 imported private chats will not continue (agent:main:telegram:dm:1, agent:main:telegram:dm:2, agent:main:telegram:dm:3 and 2 more): session.dmScope is "main"; set it to "per-channel-peer" in zero.json`},
		{name: "another scope", gap: one, cfg: session.KeyConfig{DMScope: "per-peer"}, want: `warning: 1 imported private chats will not continue (agent:main:telegram:dm:1): session.dmScope is "per-peer"; set it to "per-channel-peer" in zero.json`},
		{name: "global scope", gap: one, cfg: session.KeyConfig{Scope: "global"}, want: `warning: 1 imported private chats will not continue (agent:main:telegram:dm:1): session.scope is "global"; set it to "per-sender" and session.dmScope to "per-channel-peer" in zero.json`},
		{name: "right scope, linked sender", gap: one, cfg: session.KeyConfig{DMScope: "per-channel-peer"}, want: `warning: 1 imported private chats will not continue (agent:main:telegram:dm:1): session.dmScope is "per-channel-peer", but session.identityLinks gives these senders other names in zero.json`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, tt.gap.Advice(tt.cfg)); diff != "" {
				t.Errorf("Advice (-want +got):\n%s", diff)
			}
		})
	}
}
