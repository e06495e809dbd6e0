package session

import "testing"

func TestTranscriptPath(t *testing.T) {
	tests := []struct {
		name string
		key  string
		e    Entry
		want string
	}{
		{"direct chat", "agent:main:main", Entry{AgentID: "main", SessionID: "s1"}, "agents/main/sessions/s1.jsonl"},
		{"group", "agent:main:telegram:group:-100", Entry{AgentID: "main", SessionID: "s1"}, "agents/main/sessions/s1.jsonl"},
		{"forum topic", "agent:main:telegram:group:-100:topic:42", Entry{AgentID: "main", SessionID: "s1"}, "agents/main/sessions/s1-topic-42.jsonl"},
		{"the entry's agent wins", "agent:main:main", Entry{AgentID: "work", SessionID: "s1"}, "agents/work/sessions/s1.jsonl"},
		{"no agent on the entry: the key's", "agent:ops:cron:daily", Entry{SessionID: "s1"}, "agents/ops/sessions/s1.jsonl"},
		{"a global key", KeyGlobal, Entry{SessionID: "s1"}, "agents/" + DefaultAgentID + "/sessions/s1.jsonl"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := TranscriptPath(tt.key, tt.e); got != tt.want {
				t.Errorf("TranscriptPath(%q) = %q; want %q", tt.key, got, tt.want)
			}
		})
	}
}

func TestTopicOfKeyRoundTrip(t *testing.T) {
	key := Key("main", Route{Channel: "telegram", ChatType: "group", PeerID: "-100", ThreadID: "42"}, KeyConfig{})
	if got := TopicOf(key); got != "42" {
		t.Fatalf("TopicOf(%q) = %q; want the thread Key put there", key, got)
	}
}
