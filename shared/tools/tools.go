// Package tools is the registry of ZERO's built-in agent tools: one
// Entry per tool (its name, group, profiles, the configuration that
// enables it and the constructor that builds it for a run) and the Run a
// constructor reads. The tool policy (shared/tool), `zero tools` and the
// turn engine all read the one list, which shared/tools/builtin builds;
// the tool families live in the packages beside this one
// (shared/tools/web, memory, files, media, automation, sessions,
// messaging).
//
// It is core: it imports no AWS or provider package, and neither the
// agent loop nor the turn engine, so every package can read it.
package tools

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/zero-gateway/zero/shared/config"
	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/session"
)

// Tool is one tool an agent run can call: the method set of agent.Tool,
// declared here so the registry does not import the loop (which reads
// the policy, which reads the registry). Every Tool is an agent.Tool.
type Tool interface {
	// Spec is what the model is shown: name, description, argument schema.
	Spec() model.ToolSpec
	// Run executes a call whose arguments are a valid JSON object; an
	// error is a tool error the model reads.
	Run(ctx context.Context, args json.RawMessage) (string, error)
}

// New builds an entry's tool for one run. It returns nil (an untyped
// nil) when the run cannot have the tool: the deployment lacks its
// backend, or the run's model or configuration rules it out.
type New func(run Run) Tool

// Ingress queues a message for a session through the ingest door (the
// turn engine's Ingress): the cron tool's run and wake. Queue returns
// the id of the run the message starts.
type Ingress interface {
	Queue(ctx context.Context, m inbound.Message) (runID string, err error)
}

// AttachmentFetcher loads an image attached to the run's message, at most
// maxBytes, checked to be a PNG, JPEG, GIF or WebP image; a message
// without a source for its channel is a fault.Invalid error.
type AttachmentFetcher func(ctx context.Context, a inbound.Attachment, maxBytes int64) (model.Image, error)

// StatusReport is the engine's /status report of the session key whose
// entry is e; current says it is the run's own session, whose report also
// reads the run's context and whether the session just replaced one that
// expired.
type StatusReport func(key string, e session.Entry, current bool) string

// Run is one agent run as its tools see it: plain facts of the turn and
// the ports the turn engine shares with its tools. A constructor (New)
// reads it; none of it is the engine itself.
type Run struct {
	// Config is the configuration in force; never nil.
	Config *config.Config
	// Message is the turn's message, the caller of every tool call: its
	// ID keys the ids a tool makes (the same on every attempt of the
	// turn), its SessionKey is the run's session, its attachments are
	// the image tool's "attachment:N".
	Message inbound.Message
	// AgentID is the agent that runs, normalised: its workspace and
	// memory are the ones the tools see.
	AgentID string
	// Entry is the session's entry as the run starts.
	Entry session.Entry
	// History is the session's model context before this run: subagents
	// and sessions_yield find the sub-agents the session spawned in its
	// sessions_spawn results. Read only.
	History []model.Message
	// Model is the run's model.
	Model model.Ref
	// Now is the engine's clock; never nil.
	Now func() time.Time
	// Provenance is who asked for the run (ProvenanceOf): what its tools
	// may reach past the conversation depends on it.
	Provenance inbound.Provenance
	// SessionVisibility is the tool policy's decision of which sessions
	// the session tools see in a sandboxed run (config.VisibilitySpawned:
	// only those it spawned); "" outside a sandbox: every session.
	SessionVisibility string

	// Ingress queues messages for sessions; nil: this deployment cannot.
	Ingress Ingress
	// Models are the deployment's model clients by provider.
	Models map[string]model.Client
	// FetchAttachment loads an image attachment of Message; nil: none can
	// be loaded.
	FetchAttachment AttachmentFetcher
	// Status is the engine's /status report (session_status's answer);
	// nil: this run has none.
	Status StatusReport

	scope *scope // what a run's tools share (Shared); set by Registry.Build
}

// scope holds the values a run's tools share, by key.
type scope struct {
	mu     sync.Mutex
	values map[any]any
}

// Shared returns the value the tools of run share under key, made by
// build on first use within the run: the file tools share one workspace
// session, so a write is conditional on what the same run read. A Run
// not made by Registry.Build shares nothing (build runs on every call).
func Shared[T any](run Run, key any, build func() T) T {
	s := run.scope
	if s == nil {
		return build()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if v, ok := s.values[key]; ok {
		return v.(T)
	}
	v := build()
	if s.values == nil {
		s.values = map[any]any{}
	}
	s.values[key] = v
	return v
}
