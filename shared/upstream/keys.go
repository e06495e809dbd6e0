package upstream

import "strings"

// zeroKey maps an upstream key's private-chat form to ZERO's: release
// 2026.9.6 names a private chat agent:<id>[:<channel>[:<account>]]:direct:<peer>
// where 2026.1.30 and ZERO (session.Key under the per-peer,
// per-channel-peer and per-account-channel-peer dmScopes) write
// …:dm:<peer>. Only those three exact shapes change, so a group whose id
// is "direct" keeps its key; a per-account key whose account is named
// group or channel is a private chat, as session.Kind reads it. Every
// other key is returned as it is. key is already canonical (lower case).
func zeroKey(key string) string {
	parts := strings.Split(key, ":")
	if len(parts) < 4 || len(parts) > 6 || parts[0] != "agent" {
		return key
	}
	at := len(parts) - 2 // "direct" comes just before the peer
	if parts[at] != "direct" || parts[len(parts)-1] == "" {
		return key
	}
	if len(parts) == 5 && (parts[2] == "group" || parts[2] == "channel") {
		return key // agent:<id>:group:direct:<x> is no upstream form; leave it
	}
	parts[at] = "dm"
	return strings.Join(parts, ":")
}
