package gateway

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
)

// The RPC method names, declared once: the method table below serves
// them, and clients (Client, cmd/zero) call them by these constants. The
// control page's JS calls them by name; a test in shared/webui checks
// each of its names against Methods.
const (
	MethodAgent       = "agent"
	MethodAgentWait   = "agent.wait"
	MethodAgentEvents = "agent.events"

	MethodChatSend       = "chat.send"
	MethodChatHistory    = "chat.history"
	MethodChatTranscript = "chat.transcript"

	MethodSessionsList    = "sessions.list"
	MethodSessionsResolve = "sessions.resolve"
	MethodSessionsPatch   = "sessions.patch"
	MethodSessionsDelete  = "sessions.delete"
	MethodSessionsRuns    = "sessions.runs"

	MethodStatus = "status"

	MethodConfigGet    = "config.get"
	MethodConfigSchema = "config.schema"
	MethodConfigPatch  = "config.patch"

	MethodOutboxList  = "outbox.list"
	MethodOutboxRetry = "outbox.retry"

	MethodCronStatus = "cron.status"
	MethodCronList   = "cron.list"
	MethodCronAdd    = "cron.add"
	MethodCronUpdate = "cron.update"
	MethodCronRemove = "cron.remove"
	MethodCronRun    = "cron.run"
	MethodCronRuns   = "cron.runs"
)

// handler runs one method on its raw params (never nil: "{}" when the
// request has none) and returns the result to encode.
type handler func(g *gateway, ctx context.Context, params json.RawMessage) (any, error)

// methods is the method table: every method the gateway serves, and the
// handler that serves it (whose doc comment states the method's contract
// and costs). A name not in it is refused 400 "unknown method".
//
// Auth is one rule for the whole table: every method needs the bearer
// token (Deps.Token), checked in ServeHTTP before the method is even
// looked up, so an anonymous caller learns nothing about the API. The
// token grants every method; there are no per-method scopes.
//
// The methods whose dependency is optional answer 501 without it:
// cron.* without Deps.Cron, outbox.* without Deps.Outbox.
var methods = map[string]handler{
	// Runs: queue a message, wait for and follow its run (agent.go,
	// events.go).
	MethodAgent:       (*gateway).agent,
	MethodAgentWait:   (*gateway).agentWait,
	MethodAgentEvents: (*gateway).agentEvents,

	// Chat: send, and read a session's messages (agent.go, sessions.go,
	// transcript.go).
	MethodChatSend:       (*gateway).chatSend,
	MethodChatHistory:    (*gateway).chatHistory,
	MethodChatTranscript: (*gateway).chatTranscript,

	// Sessions (sessions.go, runs.go).
	MethodSessionsList:    (*gateway).sessionsList,
	MethodSessionsResolve: (*gateway).sessionsResolve,
	MethodSessionsPatch:   (*gateway).sessionsPatch,
	MethodSessionsDelete:  (*gateway).sessionsDelete,
	MethodSessionsRuns:    (*gateway).sessionsRuns,

	// Health and configuration (sessions.go, configrpc.go).
	MethodStatus:       (*gateway).status,
	MethodConfigGet:    (*gateway).configGet,
	MethodConfigSchema: (*gateway).configSchema,
	MethodConfigPatch:  (*gateway).configPatch,

	// The announce outbox (outbox.go); 501 without Deps.Outbox.
	MethodOutboxList:  (*gateway).outboxList,
	MethodOutboxRetry: (*gateway).outboxRetry,

	// Cron jobs (cron.go); 501 without Deps.Cron.
	MethodCronStatus: (*gateway).cronStatus,
	MethodCronList:   (*gateway).cronList,
	MethodCronAdd:    (*gateway).cronAdd,
	MethodCronUpdate: (*gateway).cronUpdate,
	MethodCronRemove: (*gateway).cronRemove,
	MethodCronRun:    (*gateway).cronRun,
	MethodCronRuns:   (*gateway).cronRuns,
}

// Methods are the names of every method the gateway serves, sorted.
func Methods() []string {
	return slices.Sorted(maps.Keys(methods))
}
