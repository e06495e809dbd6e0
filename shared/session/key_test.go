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

		// Direct chats: every dmScope, with normalisation.
		{"explicit main scope", "main", Route{Channel: "telegram", ChatType: "direct", PeerID: "7"}, KeyConfig{DMScope: ScopeMain}, "agent:main:main"},
		{"unknown dmScope reads as main", "main", Route{Channel: "telegram", ChatType: "direct", PeerID: "7"}, KeyConfig{DMScope: "per-galaxy"}, "agent:main:main"},
		{"dmScope case-insensitive", "main", Route{Channel: "telegram", ChatType: "direct", PeerID: "7"}, KeyConfig{DMScope: " Per-Peer "}, "agent:main:dm:7"},
		{"empty chat type is direct", "main", Route{Channel: "telegram", PeerID: "7"}, KeyConfig{DMScope: ScopePerPeer}, "agent:main:dm:7"},
		{"dm chat type is direct", "main", Route{Channel: "telegram", ChatType: "dm", PeerID: "7"}, KeyConfig{DMScope: ScopePerPeer}, "agent:main:dm:7"},
		{"peer trimmed and lower-cased", "main", Route{Channel: "slack", ChatType: "direct", PeerID: "  U12AB "}, KeyConfig{DMScope: ScopePerPeer}, "agent:main:dm:u12ab"},
		{"whitespace peer falls back to main", "main", Route{Channel: "telegram", ChatType: "direct", PeerID: "  "}, KeyConfig{DMScope: ScopePerChannelPeer}, "agent:main:main"},
		{"empty peer under per-account falls back to custom main", "main", Route{Channel: "telegram", AccountID: "b", ChatType: "direct"}, KeyConfig{DMScope: ScopePerAccountChannelPeer, MainKey: "home"}, "agent:main:home"},
		{"account trimmed and lower-cased", "main", Route{Channel: " Telegram ", AccountID: " Bot2 ", ChatType: "direct", PeerID: "7"}, KeyConfig{DMScope: ScopePerAccountChannelPeer}, "agent:main:telegram:bot2:dm:7"},
		{"blank account is default", "main", Route{Channel: "telegram", AccountID: "  ", ChatType: "direct", PeerID: "7"}, KeyConfig{DMScope: ScopePerAccountChannelPeer}, "agent:main:telegram:default:dm:7"},
		{"empty channel is unknown", "main", Route{ChatType: "direct", PeerID: "7"}, KeyConfig{DMScope: ScopePerChannelPeer}, "agent:main:unknown:dm:7"},
		{"custom main key trimmed", "ops", Route{Channel: "telegram", ChatType: "direct", PeerID: "7"}, KeyConfig{MainKey: "  Desk "}, "agent:ops:desk"},
		{"blank custom main key is main", "ops", Route{Channel: "telegram", ChatType: "direct", PeerID: "7"}, KeyConfig{MainKey: "  "}, "agent:ops:main"},
		{"dm thread does not split the session", "main", Route{Channel: "telegram", ChatType: "direct", PeerID: "7", ThreadID: "3"}, KeyConfig{DMScope: ScopePerPeer}, "agent:main:dm:7"},
		{"empty agent id is main", "", Route{Channel: "telegram", ChatType: "direct", PeerID: "7"}, KeyConfig{}, "agent:main:main"},

		// Groups and channels.
		{"group id trimmed and lower-cased", "main", Route{Channel: "Discord", ChatType: "Group", PeerID: " AbC "}, KeyConfig{}, "agent:main:discord:group:abc"},
		{"empty group id is unknown", "main", Route{Channel: "telegram", ChatType: "group"}, KeyConfig{}, "agent:main:telegram:group:unknown"},
		{"empty channel id is unknown", "main", Route{Channel: "slack", ChatType: "channel"}, KeyConfig{}, "agent:main:slack:channel:unknown"},
		{"channel thread", "main", Route{Channel: "slack", ChatType: "channel", PeerID: "C1", ThreadID: " 1700.5 "}, KeyConfig{}, "agent:main:slack:channel:c1:topic:1700.5"},
		{"blank thread ignored", "main", Route{Channel: "telegram", ChatType: "group", PeerID: "-1", ThreadID: " "}, KeyConfig{}, "agent:main:telegram:group:-1"},
		{"topic of unknown group", "main", Route{Channel: "telegram", ChatType: "group", ThreadID: "9"}, KeyConfig{}, "agent:main:telegram:group:unknown:topic:9"},
		{"group ignores dmScope", "main", Route{Channel: "telegram", ChatType: "group", PeerID: "-1"}, KeyConfig{DMScope: ScopePerAccountChannelPeer, MainKey: "home"}, "agent:main:telegram:group:-1"},
		{"group under other agent", "Work", Route{Channel: "telegram", ChatType: "group", PeerID: "-1"}, KeyConfig{}, "agent:work:telegram:group:-1"},
		{"empty channel in group key is unknown", "main", Route{ChatType: "group", PeerID: "-1"}, KeyConfig{}, "agent:main:unknown:group:-1"},

		// Global scope.
		{"global direct", "main", Route{Channel: "telegram", ChatType: "direct", PeerID: "7"}, KeyConfig{Scope: ScopeGlobal, DMScope: ScopePerPeer}, "global"},
		{"global group", "work", Route{Channel: "telegram", ChatType: "group", PeerID: "-1", ThreadID: "2"}, KeyConfig{Scope: ScopeGlobal}, "global"},
		{"global scope case-insensitive", "main", Route{Channel: "telegram", ChatType: "direct"}, KeyConfig{Scope: " Global "}, "global"},
		{"per-sender scope is the default", "main", Route{Channel: "telegram", ChatType: "group", PeerID: "-1"}, KeyConfig{Scope: ScopePerSender}, "agent:main:telegram:group:-1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Key(tc.agent, tc.route, tc.cfg); got != tc.want {
				t.Fatalf("Key = %q; want %q", got, tc.want)
			}
		})
	}
}

func TestKeyIdentityLinks(t *testing.T) {
	links := []IdentityLink{
		{Canonical: " Alice ", Peers: []string{"telegram:123", " Discord:987 "}},
		{Canonical: "bob", Peers: []string{"telegram:555"}},
		{Canonical: "", Peers: []string{"telegram:777"}},        // no name: ignored
		{Canonical: "carol", Peers: []string{"telegram:777"}},   // so the next link wins
		{Canonical: "alice-2", Peers: []string{"telegram:123"}}, // listed again: the first link wins
	}
	tests := []struct {
		name  string
		route Route
		scope string
		links []IdentityLink
		want  string
	}{
		{"per-peer linked", Route{Channel: "telegram", ChatType: "direct", PeerID: "123"}, ScopePerPeer, links, "agent:main:dm:alice"},
		{"per-peer same person on another channel", Route{Channel: "discord", ChatType: "direct", PeerID: "987"}, ScopePerPeer, links, "agent:main:dm:alice"},
		{"per-channel-peer linked", Route{Channel: "Telegram", ChatType: "direct", PeerID: " 123 "}, ScopePerChannelPeer, links, "agent:main:telegram:dm:alice"},
		{"per-account-channel-peer linked", Route{Channel: "discord", AccountID: "b", ChatType: "direct", PeerID: "987"}, ScopePerAccountChannelPeer, links, "agent:main:discord:b:dm:alice"},
		{"link is channel-specific", Route{Channel: "signal", ChatType: "direct", PeerID: "123"}, ScopePerPeer, links, "agent:main:dm:123"},
		{"unlinked peer unchanged", Route{Channel: "telegram", ChatType: "direct", PeerID: "999"}, ScopePerPeer, links, "agent:main:dm:999"},
		{"nameless link skipped", Route{Channel: "telegram", ChatType: "direct", PeerID: "777"}, ScopePerPeer, links, "agent:main:dm:carol"},
		{"second link listing the same peer loses", Route{Channel: "telegram", ChatType: "direct", PeerID: "123"}, ScopePerPeer, links, "agent:main:dm:alice"},
		{"order decides when two links list a peer", Route{Channel: "telegram", ChatType: "direct", PeerID: "123"}, ScopePerPeer, []IdentityLink{links[4], links[0]}, "agent:main:dm:alice-2"},
		{"main scope ignores links", Route{Channel: "telegram", ChatType: "direct", PeerID: "123"}, ScopeMain, links, "agent:main:main"},
		{"groups ignore links", Route{Channel: "telegram", ChatType: "group", PeerID: "123"}, ScopePerPeer, links, "agent:main:telegram:group:123"},
		{"no links", Route{Channel: "telegram", ChatType: "direct", PeerID: "123"}, ScopePerPeer, nil, "agent:main:dm:123"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := KeyConfig{DMScope: tc.scope, IdentityLinks: tc.links}
			if got := Key("main", tc.route, cfg); got != tc.want {
				t.Fatalf("Key = %q; want %q", got, tc.want)
			}
		})
	}
}

func TestOtherSourceKeys(t *testing.T) {
	tests := []struct{ name, got, want string }{
		{"cron", CronKey("nightly-report"), "cron:nightly-report"},
		{"cron normalised", CronKey(" Job1 "), "cron:job1"},
		{"hook", HookKey("0f8fad5b-d9cb-469f-a165-70867728950e"), "hook:0f8fad5b-d9cb-469f-a165-70867728950e"},
		{"hook named by the hook", HookKey("GitHub"), "hook:github"},
		{"node", NodeKey("mac-mini"), "node-mac-mini"},
		{"node normalised", NodeKey(" Pi4 "), "node-pi4"},
		{"subagent", SubagentKey("main", "7c9e6679-7425-40de-944b-e07fc1f90ae7"), "agent:main:subagent:7c9e6679-7425-40de-944b-e07fc1f90ae7"},
		{"subagent agent normalised", SubagentKey(" Research Bot", "X1"), "agent:research-bot:subagent:x1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.got != tc.want {
				t.Fatalf("got %q; want %q", tc.got, tc.want)
			}
		})
	}
}

func TestCanonical(t *testing.T) {
	custom := KeyConfig{MainKey: "Home"}
	global := KeyConfig{Scope: ScopeGlobal}
	tests := []struct {
		name, agent, key, channel string
		cfg                       KeyConfig
		want                      string
	}{
		{"main alias", "main", "main", "", KeyConfig{}, "agent:main:main"},
		{"main alias of another agent", "Work", " MAIN ", "", KeyConfig{}, "agent:work:main"},
		{"main alias with custom main key", "main", "main", "", custom, "agent:main:home"},
		{"main alias under global scope", "work", "main", "", global, "global"},
		{"agent main with custom main key", "main", "agent:ops:main", "", custom, "agent:ops:home"},
		{"agent main with default main key", "main", "agent:ops:main", "", KeyConfig{}, "agent:ops:main"},
		{"agent custom main key stays", "main", "agent:ops:home", "", custom, "agent:ops:home"},
		{"agent main under global scope", "main", "agent:ops:main", "", global, "global"},
		{"agent custom main under global scope", "main", "Agent:Ops:Home", "", KeyConfig{Scope: ScopeGlobal, MainKey: "home"}, "global"},
		{"agent id inside key normalised", "main", "agent:Work Bot:telegram:group:-1", "", KeyConfig{}, "agent:work-bot:telegram:group:-1"},
		{"full group key unchanged", "main", "agent:main:telegram:group:-100:topic:4", "discord", KeyConfig{}, "agent:main:telegram:group:-100:topic:4"},
		{"full group key kept under global scope", "main", "agent:main:telegram:group:-1", "", global, "agent:main:telegram:group:-1"},
		{"dm key unchanged", "main", "agent:main:dm:7", "", custom, "agent:main:dm:7"},
		{"subagent key unchanged", "main", "agent:main:subagent:abc", "", global, "agent:main:subagent:abc"},
		{"legacy group", "main", "group:-100123", "telegram", KeyConfig{}, "agent:main:telegram:group:-100123"},
		{"legacy group under agent", "ops", "group:-1", "Telegram", KeyConfig{}, "agent:ops:telegram:group:-1"},
		{"legacy group without channel", "main", "group:-1", "", KeyConfig{}, "agent:main:unknown:group:-1"},
		{"legacy group with topic", "main", "group:-1:topic:9", "telegram", KeyConfig{}, "agent:main:telegram:group:-1:topic:9"},
		{"legacy group empty id", "main", "group:", "telegram", KeyConfig{}, "agent:main:telegram:group:unknown"},
		{"legacy channel-prefixed group", "main", "discord:group:42", "telegram", KeyConfig{}, "agent:main:discord:group:42"},
		{"legacy room", "main", "channel:C9", "slack", KeyConfig{}, "agent:main:slack:channel:c9"},
		{"legacy channel-prefixed room", "main", "slack:channel:C9", "", KeyConfig{}, "agent:main:slack:channel:c9"},
		{"global stays", "main", "global", "telegram", KeyConfig{}, "global"},
		{"global stays under global scope", "main", " GLOBAL ", "", global, "global"},
		{"unknown stays", "work", "unknown", "telegram", KeyConfig{}, "unknown"},
		{"cron unchanged", "work", "cron:Nightly", "telegram", global, "cron:nightly"},
		{"hook unchanged", "work", "hook:abc", "", KeyConfig{}, "hook:abc"},
		{"node unchanged", "work", "node-pi", "", KeyConfig{}, "node-pi"},
		{"unrecognised key unchanged", "work", "Something Else", "", KeyConfig{}, "something else"},
		{"malformed agent key unchanged", "work", "agent:ops", "", KeyConfig{}, "agent:ops"},
		{"empty stays empty", "work", "  ", "", KeyConfig{}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Canonical(tc.agent, tc.key, tc.channel, tc.cfg); got != tc.want {
				t.Fatalf("Canonical(%q, %q, %q) = %q; want %q", tc.agent, tc.key, tc.channel, got, tc.want)
			}
		})
	}
}

func TestCanonicalIsIdempotent(t *testing.T) {
	cfgs := []KeyConfig{{}, {MainKey: "home"}, {Scope: ScopeGlobal}, {Scope: ScopeGlobal, MainKey: "home"}}
	keys := []string{"main", "agent:a:main", "agent:a:home", "group:1", "x:group:1", "channel:2", "global", "unknown", "cron:1", "agent:a:dm:7", "other"}
	for _, cfg := range cfgs {
		for _, k := range keys {
			once := Canonical("a", k, "telegram", cfg)
			if twice := Canonical("a", once, "telegram", cfg); twice != once {
				t.Errorf("cfg %+v: Canonical(%q) = %q, then %q", cfg, k, once, twice)
			}
		}
	}
}

func TestKeyIsCanonical(t *testing.T) {
	routes := []Route{
		{Channel: "telegram", ChatType: "direct", PeerID: "7"},
		{Channel: "telegram", ChatType: "group", PeerID: "-1", ThreadID: "3"},
		{Channel: "slack", ChatType: "channel", PeerID: "c1"},
	}
	cfgs := []KeyConfig{{}, {MainKey: "home"}, {Scope: ScopeGlobal}, {DMScope: ScopePerAccountChannelPeer}}
	for _, cfg := range cfgs {
		for _, r := range routes {
			k := Key("ops", r, cfg)
			if got := Canonical("main", k, r.Channel, cfg); got != k {
				t.Errorf("cfg %+v: Canonical(Key(%+v)) = %q; want %q", cfg, r, got, k)
			}
		}
	}
}

func TestDisplay(t *testing.T) {
	tests := []struct {
		name, key string
		cfg       KeyConfig
		want      string
	}{
		{"global shown as main under global scope", "global", KeyConfig{Scope: ScopeGlobal}, "main"},
		{"global kept under per-sender scope", "global", KeyConfig{}, "global"},
		{"other keys kept under global scope", "cron:1", KeyConfig{Scope: ScopeGlobal}, "cron:1"},
		{"agent key kept", "agent:main:main", KeyConfig{}, "agent:main:main"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Display(tc.key, tc.cfg); got != tc.want {
				t.Fatalf("Display(%q) = %q; want %q", tc.key, got, tc.want)
			}
		})
	}
}

func TestReserved(t *testing.T) {
	tests := []struct {
		key  string
		want bool
	}{
		{"global", true}, {"unknown", true}, {" Global ", true},
		{"main", false}, {"agent:main:global", false}, {"", false}, {"cron:global", false},
	}
	for _, tc := range tests {
		t.Run(tc.key, func(t *testing.T) {
			if got := Reserved(tc.key); got != tc.want {
				t.Fatalf("Reserved(%q) = %v; want %v", tc.key, got, tc.want)
			}
		})
	}
}

func TestStripped(t *testing.T) {
	tests := []struct{ name, key, want string }{
		{"main", "agent:main:main", "main"},
		{"group with topic", "agent:work:telegram:group:-1:topic:2", "telegram:group:-1:topic:2"},
		{"dm", "agent:main:dm:7", "dm:7"},
		{"no prefix", "cron:job", "cron:job"},
		{"reserved", "global", "global"},
		{"prefix only", "agent:main", "agent:main"},
		{"prefix with empty rest", "agent:main:", "agent:main:"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Stripped(tc.key); got != tc.want {
				t.Fatalf("Stripped(%q) = %q; want %q", tc.key, got, tc.want)
			}
		})
	}
}

func TestKind(t *testing.T) {
	custom := KeyConfig{MainKey: "home"}
	tests := []struct {
		name, key string
		cfg       KeyConfig
		want      string
	}{
		{"main key", "agent:main:main", KeyConfig{}, KindMain},
		{"other agent's main key", "agent:ops:main", KeyConfig{}, KindMain},
		{"custom main key", "agent:main:home", custom, KindMain},
		{"main alias under custom main key", "agent:main:main", custom, KindMain},
		{"custom name without custom config", "agent:main:home", KeyConfig{}, KindOther},
		{"literal main", "main", KeyConfig{}, KindMain},
		{"global", "global", KeyConfig{Scope: ScopeGlobal}, KindMain},
		{"group", "agent:main:telegram:group:-1", KeyConfig{}, KindGroup},
		{"group topic", "agent:main:telegram:group:-1:topic:3", KeyConfig{}, KindGroup},
		{"channel", "agent:main:slack:channel:c1", KeyConfig{}, KindGroup},
		{"group named dm", "agent:main:telegram:group:dm", KeyConfig{}, KindGroup},
		{"legacy group", "group:-1", KeyConfig{}, KindGroup},
		{"legacy channel-prefixed group", "discord:group:1", KeyConfig{}, KindGroup},
		{"upper case", " Agent:Main:Telegram:Group:-1 ", KeyConfig{}, KindGroup},
		{"cron", "cron:nightly", KeyConfig{}, KindCron},
		{"agent-prefixed cron", "agent:main:cron:nightly", KeyConfig{}, KindCron},
		{"hook", "hook:abc", KeyConfig{}, KindHook},
		{"node", "node-pi", KeyConfig{}, KindNode},
		{"per-peer dm", "agent:main:dm:7", KeyConfig{}, KindOther},
		{"per-channel dm", "agent:main:telegram:dm:7", KeyConfig{}, KindOther},
		{"per-account dm", "agent:main:telegram:bot:dm:7", KeyConfig{}, KindOther},
		{"per-account dm on account named group", "agent:main:telegram:group:dm:7", KeyConfig{}, KindOther},
		{"subagent", "agent:main:subagent:abc", KeyConfig{}, KindOther},
		{"unknown", "unknown", KeyConfig{}, KindOther},
		{"anything else", "whatever", KeyConfig{}, KindOther},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Kind(tc.key, tc.cfg); got != tc.want {
				t.Fatalf("Kind(%q) = %q; want %q", tc.key, got, tc.want)
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
