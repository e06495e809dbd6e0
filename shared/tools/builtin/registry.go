// Package builtin is the list of ZERO's built-in tools: the one registry
// the tool policy (shared/tool), `zero tools` and the turn engine read.
// Each entry names a tool, its group and profiles, the configuration
// switch that enables it and how a run builds it from the deployment's
// backends (Deps) and the run (tools.Run).
package builtin

import (
	"slices"
	"strings"

	"github.com/zero-gateway/zero/shared/config"
	"github.com/zero-gateway/zero/shared/cron"
	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/run"
	"github.com/zero-gateway/zero/shared/session"
	"github.com/zero-gateway/zero/shared/tools"
	"github.com/zero-gateway/zero/shared/tools/automation"
	"github.com/zero-gateway/zero/shared/tools/files"
	"github.com/zero-gateway/zero/shared/tools/media"
	"github.com/zero-gateway/zero/shared/tools/memory"
	messagetool "github.com/zero-gateway/zero/shared/tools/messaging"
	"github.com/zero-gateway/zero/shared/tools/sessions"
	"github.com/zero-gateway/zero/shared/tools/web"
)

// Deps are the deployment's tool backends, wired once by the runner. A
// nil backend leaves its tools out of every run.
type Deps struct {
	// Memory is the agents' memory index: memory_search and memory_get.
	Memory memory.Index
	// Files is the workspace storage of read, write, edit and
	// apply_patch (conditional writes), and of the image tool's
	// workspace paths.
	Files files.Store
	// WebFetch and WebSearch are web_fetch's and web_search's backends
	// (also switched by tools.web.*.enabled).
	WebFetch  web.Fetcher
	WebSearch web.Searcher
	// ImageFetch gets the image tool's URLs under the web_fetch SSRF
	// rules; nil: it reads workspace paths and attachments only.
	ImageFetch media.Fetcher
	// Cron is the cron core the cron tool uses.
	Cron *cron.Service
	// ConfigDoc is the stored zero.json of the gateway tool (also
	// switched by commands.restart).
	ConfigDoc config.DocumentStore
	// Messengers carry out the message tool's actions, by channel; empty:
	// the message tool is not offered.
	Messengers map[string]messagetool.Messenger

	// The engine's own stores, which the session tools read: the turn
	// engine sets them for each run from its Processor (its Store where
	// that has the capability, Transcript, Runs); a runner leaves them
	// unset.
	//
	// Sessions reads sessions: sessions_list, sessions_history and
	// sessions_send; nil: those are not offered.
	Sessions sessions.Reader
	// SessionUpdates patches sessions: session_status on another session
	// than the run's own; nil: it sees only the run's own.
	SessionUpdates sessions.Updater
	// Transcripts reads transcripts: sessions_list's messageLimit and
	// sessions_history.
	Transcripts session.PartReader
	// Runs reads run records: sessions_send's wait, the state of the
	// sub-agents subagents and sessions_yield see; nil: sessions_send
	// never waits and every sub-agent reads as running.
	Runs run.Getter
	// Stops writes stop marks: subagents kill; nil: kill is refused.
	Stops sessions.StopMarker
}

// Registry is every built-in tool over the backends of d, in the order a
// run is offered them. The tools this deployment does not provide (exec,
// browser, ...) have no constructor.
func Registry(d Deps) tools.Registry {
	return tools.NewRegistry(slices.Concat(
		sessionEntries(d),
		webEntries(d),
		mediaEntries(d),
		automationEntries(d),
		fileEntries(d),
		messagingEntries(d),
		memoryEntries(d),
		unavailableEntries(),
	)...)
}

// profiles lists tools.profile values, for Entry.Profiles.
func profiles(names ...string) []string { return names }

var (
	coding    = config.ProfileCoding
	messaging = config.ProfileMessaging
	minimal   = config.ProfileMinimal
)

// webEntries are web_fetch (on by default) and web_search (off by
// default), where the deployment has their backends.
func webEntries(d Deps) []tools.Entry {
	return []tools.Entry{
		{Name: web.FetchName, Group: "group:web", Untrusted: true,
			Enabled: func(cfg *config.Config) bool { return cfg.Tools.Web.Fetch.Enabled },
			New: func(run tools.Run) tools.Tool {
				if d.WebFetch == nil {
					return nil
				}
				return web.NewFetchTool(d.WebFetch, run.Config.Tools.Web.Fetch.MaxChars)
			}},
		{Name: web.SearchName, Group: "group:web", Untrusted: true,
			Enabled: func(cfg *config.Config) bool { return cfg.Tools.Web.Search.Enabled },
			New: func(run tools.Run) tools.Tool {
				if d.WebSearch == nil {
					return nil
				}
				return web.NewSearchTool(d.WebSearch, run.Config.Tools.Web.Search.MaxResults)
			}},
	}
}

// mediaEntries is image, when a model to ask resolves for the run
// (media.Models).
func mediaEntries(d Deps) []tools.Entry {
	return []tools.Entry{
		{Name: media.ImageName, Profiles: profiles(coding), ReachOf: media.ImageReach,
			New: func(run tools.Run) tools.Tool {
				models := media.Models(run.Config, run.Model, run.Models)
				if len(models) == 0 {
					return nil
				}
				return media.NewImageTool(run, models, d.ImageFetch, d.Files)
			}},
	}
}

// automationEntries are cron, where the deployment has the cron core, and
// gateway, where it has the config store and commands.restart enables it.
func automationEntries(d Deps) []tools.Entry {
	return []tools.Entry{
		{Name: automation.CronName, Group: "group:automation", ReachOf: automation.CronReach,
			New: func(run tools.Run) tools.Tool {
				if d.Cron == nil {
					return nil
				}
				return automation.NewCronTool(d.Cron, run)
			}},
		// gateway's reads are everyone's; its writes reach the
		// configuration, the owner's (GatewayReach). commands.restart no
		// longer hides it: the seeds gate only restart on it, and there is
		// nothing to restart here.
		{Name: automation.GatewayName, Group: "group:automation", ReachOf: automation.GatewayReach,
			New: func(tools.Run) tools.Tool {
				if d.ConfigDoc == nil {
					return nil
				}
				return automation.NewGatewayTool(d.ConfigDoc)
			}},
	}
}

// fileEntries are group:fs over the workspace storage: read, write and
// edit; apply_patch also needs tools.exec.applyPatch.enabled and an
// OpenAI model (upstream: experimental, OpenAI models only).
func fileEntries(d Deps) []tools.Entry {
	withSession := func(build func(run tools.Run) tools.Tool) tools.New {
		return func(run tools.Run) tools.Tool {
			if d.Files == nil {
				return nil
			}
			return build(run)
		}
	}
	return []tools.Entry{
		{Name: files.ReadName, Group: "group:fs", Profiles: profiles(coding),
			New: withSession(func(run tools.Run) tools.Tool { return files.NewReadTool(files.SessionOf(run, d.Files)) })},
		{Name: files.WriteName, Group: "group:fs", Profiles: profiles(coding), ReachOf: files.WriteReach,
			New: withSession(func(run tools.Run) tools.Tool { return files.NewWriteTool(files.SessionOf(run, d.Files)) })},
		{Name: files.EditName, Group: "group:fs", Profiles: profiles(coding), ReachOf: files.WriteReach,
			New: withSession(func(run tools.Run) tools.Tool { return files.NewEditTool(files.SessionOf(run, d.Files)) })},
		{Name: files.ApplyPatchName, Group: "group:fs", Profiles: profiles(coding), ReachOf: files.PatchReach,
			Enabled: func(cfg *config.Config) bool { return cfg.Tools.Exec.ApplyPatch.Enabled },
			New: withSession(func(run tools.Run) tools.Tool {
				if !openAI(run.Model) {
					return nil
				}
				return files.NewApplyPatchTool(files.SessionOf(run, d.Files))
			})},
	}
}

// openAI reports whether ref is an OpenAI model (provider openai or
// openai-*).
func openAI(ref model.Ref) bool { return strings.HasPrefix(ref.Provider, "openai") }

// memoryEntries are memory_search and memory_get over the memory index.
func memoryEntries(d Deps) []tools.Entry {
	build := func(make func(memory.Index, string) tools.Tool) tools.New {
		return func(run tools.Run) tools.Tool {
			if d.Memory == nil {
				return nil
			}
			return make(d.Memory, run.AgentID)
		}
	}
	return []tools.Entry{
		{Name: memory.SearchName, Group: "group:memory", Profiles: profiles(coding),
			New: build(func(m memory.Index, agentID string) tools.Tool { return memory.NewSearchTool(m, agentID) })},
		{Name: memory.GetName, Group: "group:memory", Profiles: profiles(coding),
			New: build(func(m memory.Index, agentID string) tools.Tool { return memory.NewGetTool(m, agentID) })},
	}
}
