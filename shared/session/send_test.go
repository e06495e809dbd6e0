package session

import "testing"

func TestAllows(t *testing.T) {
	deny := func(m SendMatch) SendRule { return SendRule{Action: SendDeny, Match: m} }
	allow := func(m SendMatch) SendRule { return SendRule{Action: SendAllow, Match: m} }
	seed := SendPolicy{Rules: []SendRule{
		deny(SendMatch{Channel: "discord", ChatType: "group"}),
		deny(SendMatch{KeyPrefix: "cron:"}),
	}, Default: SendAllow}
	const (
		discordGroup = "agent:main:discord:group:123"
		telegramDM   = "agent:main:main"
	)
	tests := []struct {
		name                             string
		policy                           SendPolicy
		key, channel, chatType, override string
		want                             bool
	}{
		{"empty policy allows", SendPolicy{}, telegramDM, "telegram", "direct", "", true},
		{"seed: discord group denied", seed, discordGroup, "discord", "group", "", false},
		{"seed: case-insensitive match", seed, discordGroup, "Discord", "GROUP", "", false},
		{"seed: discord direct allowed", seed, telegramDM, "discord", "direct", "", true},
		{"seed: telegram group allowed", seed, "agent:main:telegram:group:-1", "telegram", "group", "", true},
		{"seed: cron session denied", seed, "cron:nightly", "internal", "", "", false},
		{"seed: agent-prefixed cron session denied", seed, "agent:main:cron:nightly", "internal", "", "", false},
		{"seed: upper-case cron key denied", seed, "CRON:Nightly", "", "", "", false},
		{"seed: hook allowed", seed, "hook:1", "internal", "", "", true},

		{"override allow beats deny rule", seed, discordGroup, "discord", "group", SendAllow, true},
		{"override deny beats default allow", SendPolicy{}, telegramDM, "telegram", "direct", SendDeny, false},
		{"override deny beats allow rule", SendPolicy{Rules: []SendRule{allow(SendMatch{})}}, telegramDM, "telegram", "direct", SendDeny, false},
		{"override allow beats default deny", SendPolicy{Default: SendDeny}, telegramDM, "telegram", "direct", SendAllow, true},
		{"override case-insensitive", SendPolicy{}, telegramDM, "telegram", "direct", " Deny ", false},
		{"unknown override inherits", SendPolicy{Default: SendDeny}, telegramDM, "telegram", "direct", "inherit", false},

		{"default deny", SendPolicy{Default: SendDeny}, telegramDM, "telegram", "direct", "", false},
		{"default deny case-insensitive", SendPolicy{Default: "DENY"}, telegramDM, "telegram", "direct", "", false},
		{"default deny, allow rule matches", SendPolicy{Rules: []SendRule{allow(SendMatch{Channel: "telegram"})}, Default: SendDeny}, telegramDM, "telegram", "direct", "", true},
		{"default deny, allow rule misses", SendPolicy{Rules: []SendRule{allow(SendMatch{Channel: "slack"})}, Default: SendDeny}, telegramDM, "telegram", "direct", "", false},
		{"unknown default allows", SendPolicy{Default: "maybe"}, telegramDM, "telegram", "direct", "", true},

		{"deny after allow", SendPolicy{Rules: []SendRule{allow(SendMatch{Channel: "discord"}), deny(SendMatch{ChatType: "group"})}}, discordGroup, "discord", "group", "", false},
		{"allow after deny", SendPolicy{Rules: []SendRule{deny(SendMatch{ChatType: "group"}), allow(SendMatch{Channel: "discord"})}}, discordGroup, "discord", "group", "", false},
		{"allow after non-matching deny", SendPolicy{Rules: []SendRule{deny(SendMatch{Channel: "slack"}), allow(SendMatch{Channel: "discord"})}, Default: SendDeny}, discordGroup, "discord", "group", "", true},
		{"empty match matches everything", SendPolicy{Rules: []SendRule{deny(SendMatch{})}}, "hook:1", "", "", "", false},
		{"unknown action ignored", SendPolicy{Rules: []SendRule{{Action: "mute", Match: SendMatch{}}}}, telegramDM, "telegram", "direct", "", true},
		{"action case-insensitive", SendPolicy{Rules: []SendRule{{Action: " DENY", Match: SendMatch{Channel: "telegram"}}}}, telegramDM, "telegram", "direct", "", false},

		{"dm alias matches direct", SendPolicy{Rules: []SendRule{deny(SendMatch{ChatType: "dm"})}}, telegramDM, "telegram", "direct", "", false},
		{"direct matches dm", SendPolicy{Rules: []SendRule{deny(SendMatch{ChatType: "direct"})}}, telegramDM, "telegram", "dm", "", false},
		{"chat type must match", SendPolicy{Rules: []SendRule{deny(SendMatch{ChatType: "channel"})}}, discordGroup, "discord", "group", "", true},
		{"all set fields must match", SendPolicy{Rules: []SendRule{deny(SendMatch{Channel: "discord", ChatType: "group", KeyPrefix: "cron:"})}}, discordGroup, "discord", "group", "", true},

		{"agent-prefixed prefix", SendPolicy{Rules: []SendRule{deny(SendMatch{KeyPrefix: "agent:work:"})}}, "agent:work:main", "telegram", "direct", "", false},
		{"agent-prefixed prefix, other agent", SendPolicy{Rules: []SendRule{deny(SendMatch{KeyPrefix: "agent:work:"})}}, "agent:main:main", "telegram", "direct", "", true},
		{"stripped prefix matches any agent", SendPolicy{Rules: []SendRule{deny(SendMatch{KeyPrefix: "telegram:group:"})}}, "agent:ops:telegram:group:-1", "telegram", "group", "", false},
		{"prefix case-insensitive", SendPolicy{Rules: []SendRule{deny(SendMatch{KeyPrefix: "Agent:Main:Discord:"})}}, discordGroup, "discord", "group", "", false},
		{"prefix must be a prefix", SendPolicy{Rules: []SendRule{deny(SendMatch{KeyPrefix: "group:"})}}, discordGroup, "discord", "group", "", true},
		{"subagent prefix", SendPolicy{Rules: []SendRule{deny(SendMatch{KeyPrefix: "subagent:"})}}, "agent:main:subagent:abc", "", "", "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.policy.Allows(tc.key, tc.channel, tc.chatType, tc.override); got != tc.want {
				t.Fatalf("Allows(%q, %q, %q, %q) = %v; want %v", tc.key, tc.channel, tc.chatType, tc.override, got, tc.want)
			}
		})
	}
}
