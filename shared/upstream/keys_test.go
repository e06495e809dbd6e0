package upstream

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/session"
)

// TestNewItemKeys: upstream key forms become the key ZERO gives the same
// chat; a 2026.9.6 private chat (…:direct:<peer>) becomes the key
// session.Key gives that sender's next message under the same dmScope.
func TestNewItemKeys(t *testing.T) {
	tg := func(chatType, peer string) session.Route {
		return session.Route{Channel: "telegram", ChatType: chatType, PeerID: peer}
	}
	tests := []struct {
		name  string
		raw   string
		route session.Route // the next message's route; zero: no route to compare
		scope string
		want  string
	}{
		{name: "2026.9.6 per-channel-peer private chat", raw: "agent:main:telegram:direct:7001", route: tg("direct", "7001"), scope: session.ScopePerChannelPeer, want: "agent:main:telegram:dm:7001"},
		{name: "2026.9.6 per-peer private chat", raw: "agent:main:direct:7001", route: tg("direct", "7001"), scope: session.ScopePerPeer, want: "agent:main:dm:7001"},
		{name: "2026.9.6 per-account private chat", raw: "agent:main:telegram:default:direct:7001", route: tg("direct", "7001"), scope: session.ScopePerAccountChannelPeer, want: "agent:main:telegram:default:dm:7001"},
		{name: "capitals", raw: "Agent:Main:Telegram:Direct:7001", route: tg("direct", "7001"), scope: session.ScopePerChannelPeer, want: "agent:main:telegram:dm:7001"},
		{name: "2026.1.30 private chat unchanged", raw: "agent:main:telegram:dm:7001", route: tg("direct", "7001"), scope: session.ScopePerChannelPeer, want: "agent:main:telegram:dm:7001"},
		{name: "group", raw: "agent:main:telegram:group:-1007003", route: tg("group", "-1007003"), want: "agent:main:telegram:group:-1007003"},
		{name: "legacy bare group", raw: "group:-1007003", route: tg("group", "-1007003"), want: "agent:main:telegram:group:-1007003"},
		{name: "a group whose id is direct", raw: "agent:main:telegram:group:direct", want: "agent:main:telegram:group:direct"},
		{name: "direct with no peer", raw: "agent:main:telegram:direct:", want: "agent:main:telegram:direct:"},
		{name: "forum topic", raw: "agent:main:telegram:group:-100:topic:direct", want: "agent:main:telegram:group:-100:topic:direct"},
		{name: "main", raw: "main", want: "agent:main:main"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			it := NewItem("main", tt.raw, session.Entry{SessionID: "s", Channel: "telegram"}, Transcript{}, "x")
			if diff := cmp.Diff(tt.want, it.Key); diff != "" {
				t.Errorf("key (-want +got):\n%s", diff)
			}
			if tt.route.Channel == "" {
				return
			}
			if next := session.Key("main", tt.route, session.KeyConfig{DMScope: tt.scope}); next != it.Key {
				t.Errorf("the next message's key is %s, the imported one %s", next, it.Key)
			}
		})
	}
}
