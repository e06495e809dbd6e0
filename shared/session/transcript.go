package session

import (
	"strings"

	"github.com/zero-gateway/zero/shared/transcript"
)

// topicSep marks a thread (a forum topic) in a group key; see Key.
const topicSep = ":topic:"

// TopicOf returns the thread of a group key built by Key
// (agent:<agent>:<channel>:group:<id>:topic:<thread>), or "".
func TopicOf(key string) string {
	_, t, ok := strings.Cut(key, topicSep)
	if !ok {
		return ""
	}
	return t
}

// TranscriptPath is the one place that says where a session's transcript
// lives: under its agent (the entry's, else the key's), named by its
// sessionId, with a thread's own "-topic-<thread>" file for topic keys, as
// the seed lays it out. The runner writes there and the gateway reads and
// deletes there, so the two cannot diverge. Pure.
func TranscriptPath(key string, e Entry) string {
	agent := e.AgentID
	if agent == "" {
		agent = AgentOf(key)
	}
	return transcript.Path(agent, e.SessionID, TopicOf(key))
}
