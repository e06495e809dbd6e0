package inbound

// Exact replies that end a flow's step silently (the session tools page):
// the session tools tell the model about them, the turn engine acts on
// them.
const (
	ReplySkip    = "REPLY_SKIP"    // ends the ping-pong
	AnnounceSkip = "ANNOUNCE_SKIP" // the announce step stays silent
)

// Cleanup choices of a sub-agent flow (Flow.Cleanup, sessions_spawn's
// cleanup).
const (
	CleanupKeep   = "keep"   // the child session stays until it is archived
	CleanupDelete = "delete" // the child session is deleted right after its announce
)

// FlowTo is the To of an agent-to-agent flow's messages (sessions_send's
// first round and every later step): they are on channel Internal, so
// nothing is delivered anywhere.
const FlowTo = "a2a"
