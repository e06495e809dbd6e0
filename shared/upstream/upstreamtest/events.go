package upstreamtest

import (
	"encoding/json"
	"fmt"
	"time"
)

// turn is one message of a generated conversation: a user's text, or an
// assistant's (after a call of tool, with its result, when tool is set).
type turn struct {
	user, assistant, tool string
}

// builder writes one release's transcripts, one event a second from now.
type builder struct {
	release Release
	now     time.Time
	seq     int
}

// private is the private chat of p as session sid.
func (b *builder) private(p Peer, sid string, turns ...turn) Session {
	kind := "direct"
	if b.release == Release20260130 {
		kind = "dm"
	}
	to := fmt.Sprintf("telegram:%d", p.ID)
	entry := map[string]any{
		"sessionId": sid, "chatType": "direct", "channel": "telegram", "displayName": p.Name,
		"lastChannel": "telegram", "lastTo": to, "deliveryContext": map[string]any{"channel": "telegram", "to": to},
		"origin": map[string]any{"label": p.Name, "provider": "telegram", "from": to},
		"model":  "claude-sonnet-4-5", "modelProvider": "anthropic",
	}
	s := b.session(fmt.Sprintf("agent:main:telegram:%s:%d", kind, p.ID), sid, entry, p, turns)
	s.ChatType, s.Chat = "direct", p.ID
	return s
}

// group is the group chat group as session sid.
func (b *builder) group(group int64, sid string, turns ...turn) Session {
	to := fmt.Sprintf("telegram:%d", group)
	entry := map[string]any{
		"sessionId": sid, "chatType": "group", "channel": "telegram", "subject": "Family",
		"lastChannel": "telegram", "lastTo": to, "deliveryContext": map[string]any{"channel": "telegram", "to": to},
	}
	s := b.session(fmt.Sprintf("agent:main:telegram:group:%d", group), sid, entry, Peer{ID: 7003, Name: "Carol"}, turns)
	s.ChatType, s.Chat = "group", group
	return s
}

// session builds the transcript of turns: the header, a model snapshot
// and a thinking level change, then the messages.
func (b *builder) session(key, sid string, entry map[string]any, from Peer, turns []turn) Session {
	s := Session{Key: key, Entry: entry}
	version := 4
	if b.release == Release20260130 {
		version = 3
	}
	s.Events = append(s.Events, b.line(map[string]any{"type": "session", "version": version, "id": sid, "timestamp": b.iso(), "cwd": "/home/old/.openclaw/workspace"}))
	parent := ""
	add := func(ev map[string]any) {
		b.seq++
		id := fmt.Sprintf("%08x", 0x1a000000+b.seq)
		ev["id"], ev["timestamp"] = id, b.iso()
		ev["parentId"] = nil
		if parent != "" {
			ev["parentId"] = parent
		}
		parent = id
		s.Events = append(s.Events, b.line(ev))
	}
	if b.release == Release20260130 {
		add(map[string]any{"type": "model_change", "provider": "anthropic", "modelId": "claude-sonnet-4-5"})
	}
	add(map[string]any{"type": "custom", "customType": "model-snapshot", "data": map[string]any{"provider": "anthropic", "modelId": "claude-sonnet-4-5"}})
	add(map[string]any{"type": "thinking_level_change", "thinkingLevel": "low"})
	for _, t := range turns {
		for _, m := range b.messages(t, from) {
			add(map[string]any{"type": "message", "message": m})
		}
		add(map[string]any{"type": "custom", "customType": "cache-ttl", "data": map[string]any{"ttlMs": 300000}})
		s.Messages = append(s.Messages, t.user+t.assistant)
	}
	entry["updatedAt"] = b.now.UnixMilli()
	return s
}

// messages are the message bodies of one turn.
func (b *builder) messages(t turn, from Peer) []map[string]any {
	ms := b.now.UnixMilli()
	if t.user != "" {
		m := map[string]any{"role": "user", "timestamp": ms}
		if b.release == Release20260130 {
			m["content"] = []any{map[string]any{"type": "text", "text": fmt.Sprintf("[Telegram %s (@%s) id:%d +4s %s] %s\n[message_id: %d]", from.Name, from.Name, from.ID, b.now.Format("2006-01-02 15:04 MST"), t.user, b.seq)}}
		} else {
			m["content"] = t.user
			m["idempotencyKey"] = fmt.Sprintf("telegram:%d:%d", from.ID, b.seq)
			m["__openclaw"] = map[string]any{"sender": map[string]any{"id": fmt.Sprint(from.ID), "name": from.Name, "channel": "telegram"}}
		}
		return []map[string]any{m}
	}
	reply := b.assistant([]any{map[string]any{"type": "text", "text": t.assistant}}, "stop")
	if t.tool == "" {
		return []map[string]any{reply}
	}
	call := b.assistant([]any{map[string]any{"type": "toolCall", "id": "toolu_01", "name": t.tool, "arguments": map[string]any{"text": "trip notes"}}}, "toolUse")
	result := map[string]any{"role": "toolResult", "toolCallId": "toolu_01", "toolName": t.tool, "isError": false, "timestamp": ms,
		"content": []any{map[string]any{"type": "text", "text": "saved"}}, "details": map[string]any{"bytes": 3000}}
	return []map[string]any{call, result, reply}
}

// assistant is an assistant message of content.
func (b *builder) assistant(content []any, stop string) map[string]any {
	return map[string]any{"role": "assistant", "content": content, "api": "anthropic-messages", "provider": "anthropic", "model": "claude-sonnet-4-5",
		"stopReason": stop, "timestamp": b.now.UnixMilli(),
		"usage": map[string]any{"input": 900, "output": 40, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 940,
			"cost": map[string]any{"input": 0.0027, "output": 0.0006, "cacheRead": 0, "cacheWrite": 0, "total": 0.0033}}}
}

// iso is the current event time, moved on by a second.
func (b *builder) iso() string {
	b.now = b.now.Add(time.Second)
	return b.now.UTC().Format("2006-01-02T15:04:05.000Z")
}

// line is ev as one compact JSON line.
func (b *builder) line(ev map[string]any) string {
	out, err := json.Marshal(ev)
	if err != nil {
		panic(err) // the builder's own maps always encode
	}
	return string(out)
}
