package builtin

import (
	"github.com/zero-gateway/zero/shared/tools"
	messagetool "github.com/zero-gateway/zero/shared/tools/messaging"
	"github.com/zero-gateway/zero/shared/tools/sessions"
)

// sessionEntries are group:sessions and agents_list: session_status
// where the run has the engine's status report; sessions_list and
// sessions_history where the deployment reads sessions (Deps.Sessions);
// sessions_send where it also has an ingest door (tools.Run.Ingress);
// sessions_spawn wherever it has a door (never to a sub-agent: the
// policy denies it); sessions_yield and subagents where it has a door
// too (without one no sub-agent exists; kill also needs a store that
// writes stop marks); agents_list always.
func sessionEntries(d Deps) []tools.Entry {
	reads := func(build func(run tools.Run) tools.Tool) tools.New {
		return func(run tools.Run) tools.Tool {
			if d.Sessions == nil {
				return nil
			}
			return build(run)
		}
	}
	return []tools.Entry{
		{Name: sessions.StatusName, Group: "group:sessions", Profiles: profiles(minimal, coding, messaging), ReachOf: sessions.HistoryReach,
			New: func(run tools.Run) tools.Tool {
				if run.Status == nil {
					return nil
				}
				return sessions.NewStatusTool(run, d.SessionUpdates)
			}},
		{Name: sessions.ListName, Group: "group:sessions", Profiles: profiles(coding, messaging), ReachOf: sessions.ListReach,
			New: reads(func(run tools.Run) tools.Tool { return sessions.NewListTool(run, d.Sessions, d.Transcripts) })},
		{Name: sessions.HistoryName, Group: "group:sessions", Profiles: profiles(coding, messaging), ReachOf: sessions.HistoryReach,
			New: reads(func(run tools.Run) tools.Tool { return sessions.NewHistoryTool(run, d.Sessions, d.Transcripts) })},
		{Name: sessions.SendName, Group: "group:sessions", Profiles: profiles(coding, messaging), ReachOf: sessions.SendReach,
			New: reads(func(run tools.Run) tools.Tool {
				if run.Ingress == nil {
					return nil
				}
				return sessions.NewSendTool(run, d.Sessions, d.Runs)
			})},
		{Name: sessions.SpawnName, Group: "group:sessions", Profiles: profiles(coding), ReachOf: sessions.SpawnReach,
			New: func(run tools.Run) tools.Tool {
				if run.Ingress == nil {
					return nil
				}
				return sessions.NewSpawnTool(run)
			}},
		// sessions_yield and subagents act only on this session's own
		// children (childrenOf), which are part of its conversation: they
		// reach nothing past it (SubagentsReach).
		{Name: sessions.YieldName, Group: "group:sessions", Profiles: profiles(coding), ReachOf: sessions.SubagentsReach,
			New: func(run tools.Run) tools.Tool {
				if run.Ingress == nil {
					return nil
				}
				return sessions.NewYieldTool(run, d.Runs)
			}},
		{Name: sessions.SubagentsName, Group: "group:sessions", Profiles: profiles(coding), ReachOf: sessions.SubagentsReach,
			New: func(run tools.Run) tools.Tool {
				if run.Ingress == nil {
					return nil
				}
				return sessions.NewSubagentsTool(run, d.Runs, d.Stops)
			}},
		{Name: sessions.AgentsName, New: func(run tools.Run) tools.Tool { return sessions.NewAgentsTool(run) }},
	}
}

// messagingEntries is group:messaging's message, where the deployment
// has channel messengers.
func messagingEntries(d Deps) []tools.Entry {
	return []tools.Entry{{Name: messagetool.Name, Group: "group:messaging", Profiles: profiles(messaging), ReachOf: messagetool.Reach,
		New: func(run tools.Run) tools.Tool {
			if len(d.Messengers) == 0 {
				return nil
			}
			return messagetool.NewTool(run, d.Messengers)
		}}}
}
