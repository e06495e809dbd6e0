package session

import (
	"regexp"
	"testing"
)

func TestKey(t *testing.T) {
	tests := []struct {
		name  string
		agent string
		route Route
		cfg   KeyConfig
		want  string
	}{
		{"private chat under default dmScope", "main", Route{Channel: "telegram", ChatType: "direct", PeerID: "12345"}, KeyConfig{}, "agent:main:main"},
		{"custom main key", "main", Route{Channel: "telegram", ChatType: "direct", PeerID: "1"}, KeyConfig{MainKey: "Home"}, "agent:main:home"},
		{"group", "main", Route{Channel: "telegram", ChatType: "group", PeerID: "-1001234567890"}, KeyConfig{}, "agent:main:telegram:group:-1001234567890"},
		{"forum topic", "main", Route{Channel: "telegram", ChatType: "group", PeerID: "-100123", ThreadID: "42"}, KeyConfig{}, "agent:main:telegram:group:-100123:topic:42"},
		{"channel", "main", Route{Channel: "telegram", ChatType: "channel", PeerID: "-100999"}, KeyConfig{}, "agent:main:telegram:channel:-100999"},
		{"empty group id is unknown", "main", Route{Channel: "telegram", ChatType: "group", PeerID: " "}, KeyConfig{}, "agent:main:telegram:group:unknown"},
		{"per-peer", "main", Route{Channel: "telegram", ChatType: "direct", PeerID: "7"}, KeyConfig{DMScope: ScopePerPeer}, "agent:main:dm:7"},
		{"per-channel-peer", "main", Route{Channel: "Telegram", ChatType: "direct", PeerID: "7"}, KeyConfig{DMScope: ScopePerChannelPeer}, "agent:main:telegram:dm:7"},
		{"per-account-channel-peer default account", "main", Route{Channel: "telegram", ChatType: "direct", PeerID: "7"}, KeyConfig{DMScope: ScopePerAccountChannelPeer}, "agent:main:telegram:default:dm:7"},
		{"per-account-channel-peer", "main", Route{Channel: "telegram", AccountID: "Bot2", ChatType: "direct", PeerID: "7"}, KeyConfig{DMScope: ScopePerAccountChannelPeer}, "agent:main:telegram:bot2:dm:7"},
		{"empty peer under per-peer falls back to main", "main", Route{Channel: "telegram", ChatType: "direct"}, KeyConfig{DMScope: ScopePerPeer}, "agent:main:main"},
		{"agent id normalised", " Work Bot ", Route{Channel: "telegram", ChatType: "direct", PeerID: "1"}, KeyConfig{}, "agent:work-bot:main"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Key(tc.agent, tc.route, tc.cfg); got != tc.want {
				t.Fatalf("Key = %q; want %q", got, tc.want)
			}
		})
	}
}

func TestNormalizeAgentID(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"plain", "main", "main"},
		{"upper and spaces", "  Ops ", "ops"},
		{"invalid characters become dashes", "a.b/c", "a-b-c"},
		{"leading invalid characters dropped", "__x", "x"},
		{"nothing usable falls back", "!!!", "main"},
		{"empty falls back", "", "main"},
		{"capped at 64", "a123456789012345678901234567890123456789012345678901234567890123456789", "a123456789012345678901234567890123456789012345678901234567890123"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := NormalizeAgentID(tc.in); got != tc.want {
				t.Fatalf("NormalizeAgentID(%q) = %q; want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestNewIDIsStableUUID(t *testing.T) {
	uuid := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	a, b, c := NewID("telegram:1:1"), NewID("telegram:1:1"), NewID("telegram:1:2")
	if !uuid.MatchString(a) || a != b || a == c {
		t.Fatalf("NewID: %s %s %s; want a stable v4-layout UUID per seed", a, b, c)
	}
}

func TestOriginMergeKeepsOlderNonEmpty(t *testing.T) {
	old := Origin{Label: "Ana", Provider: "telegram", From: "telegram:1", ThreadID: "3"}
	got := old.Merge(Origin{Label: "Ana B", To: "1"})
	want := Origin{Label: "Ana B", Provider: "telegram", From: "telegram:1", To: "1", ThreadID: "3"}
	if got != want {
		t.Fatalf("Merge = %+v; want %+v", got, want)
	}
}

func TestTouchNeverMovesBack(t *testing.T) {
	e := Entry{UpdatedAt: 100}
	e.Touch(50)
	if e.UpdatedAt != 100 {
		t.Fatalf("UpdatedAt = %d; want 100", e.UpdatedAt)
	}
	e.Touch(200)
	if e.UpdatedAt != 200 {
		t.Fatalf("UpdatedAt = %d; want 200", e.UpdatedAt)
	}
}
