package sessions_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/session"
	"github.com/zero-gateway/zero/shared/tools/sessions"
	"github.com/zero-gateway/zero/shared/tools/tooltest"
)

// The sessions of the visibility tests: the caller's (mainKey), the
// sub-agent it spawned, the sub-agent that one spawned, a sub-agent it
// spawned under agent work, another session's sub-agent, a group of
// agent main, and agent work's main session.
const (
	childKey     = "agent:main:subagent:c1"
	grandKey     = "agent:main:subagent:g1"
	workChildKey = "agent:work:subagent:w1"
	strayKey     = "agent:main:subagent:x1"
)

// visibilityRig is a rig of doc with those sessions stored.
func visibilityRig(t *testing.T, doc string, who inbound.Provenance) *rig {
	t.Helper()
	r := newRig(t, doc)
	r.provenance = who
	for i, s := range []struct {
		key string
		e   session.Entry
	}{
		{childKey, session.Entry{AgentID: "main", SpawnedBy: mainKey}},
		{grandKey, session.Entry{AgentID: "main", SpawnedBy: childKey}},
		{workChildKey, session.Entry{AgentID: "work", SpawnedBy: mainKey}},
		{strayKey, session.Entry{AgentID: "main", SpawnedBy: groupKey}},
		{groupKey, session.Entry{AgentID: "main", Channel: "telegram", ChatType: "group", GroupID: "-100"}},
		{workKey, session.Entry{AgentID: "work", Channel: "telegram", ChatType: "direct"}},
	} {
		s.e.UpdatedAt = r.ago(time.Duration(i+1) * time.Minute)
		r.seed(t, s.key, s.e)
	}
	return r
}

// TestVisibilityScopes: for an admitted sender who is not an owner,
// tools.sessions.visibility decides which sessions sessions_list shows
// and sessions_history, session_status and sessions_send reach: self its own session,
// tree its own and the sub-agent sessions it spawned (recursively, under
// any agent), agent every session of its agent, all every session. The
// owner sees every session whatever the setting; untrusted text only its
// own. A session out of scope reads like a missing one and queues nothing.
func TestVisibilityScopes(t *testing.T) {
	everyone := []string{"main", childKey, grandKey, workChildKey, strayKey, groupKey, workKey}
	tests := []struct {
		name       string
		visibility string
		who        inbound.Provenance
		want       []string // the sessions it sees, "main" its own
	}{
		{name: "self", visibility: "self", who: inbound.Sender, want: []string{"main"}},
		{name: "tree", visibility: "tree", who: inbound.Sender, want: []string{"main", childKey, grandKey, workChildKey}},
		{name: "agent", visibility: "agent", who: inbound.Sender, want: []string{"main", childKey, grandKey, strayKey, groupKey}},
		{name: "all", visibility: "all", who: inbound.Sender, want: everyone},
		{name: "the owner, under self", visibility: "self", who: inbound.Owner, want: everyone},
		{name: "untrusted, under all", visibility: "all", who: inbound.Untrusted, want: []string{"main"}},
	}
	for _, tt := range tests {
		doc := fmt.Sprintf(`{agents: {list: [{id: "main", default: true}, {id: "work"}]}, channels: {telegram: {allowFrom: ["*"]}}, `+
			`tools: {agentToAgent: {enabled: true}, sessions: {visibility: %q}}}`, tt.visibility)
		t.Run(tt.name+"/sessions_list", func(t *testing.T) {
			r := visibilityRig(t, doc, tt.who)
			var got []string
			for _, row := range r.list(t, `{}`).Sessions {
				got = append(got, row.Key)
			}
			if diff := cmp.Diff(sorted(tt.want), sorted(got)); diff != "" {
				t.Errorf("listed (-want +got):\n%s", diff)
			}
		})
		for _, target := range everyone[1:] {
			visible := slices.Contains(tt.want, target)
			t.Run(tt.name+"/sessions_history "+target, func(t *testing.T) {
				r := visibilityRig(t, doc, tt.who)
				res := tooltest.Call(t, sessions.NewHistoryTool(r.run(t), r.store, r.transcripts()), `{"sessionKey": "`+target+`"}`)
				checkVisible(t, res.IsError, res.Content, visible)
			})
			t.Run(tt.name+"/session_status "+target, func(t *testing.T) {
				r := visibilityRig(t, doc, tt.who)
				run := r.run(t)
				run.Status = report
				res := tooltest.Call(t, sessions.NewStatusTool(run, r.store), `{"sessionKey": "`+target+`"}`)
				if visible && session.AgentOf(target) != "main" { // in scope, but session_status sees only its agent's
					if !res.IsError || !strings.Contains(res.Content, "session_status sees only agent") {
						t.Errorf("result = %+v; want the own-agent refusal", res)
					}
					return
				}
				checkVisible(t, res.IsError, res.Content, visible)
			})
			t.Run(tt.name+"/sessions_send "+target, func(t *testing.T) {
				r := visibilityRig(t, doc, tt.who)
				res := tooltest.Call(t, sessions.NewSendTool(r.run(t), r.store, nil), `{"sessionKey": "`+target+`", "message": "hi", "timeoutSeconds": 0}`)
				checkVisible(t, res.IsError, res.Content, visible)
				if queued := len(r.queue.messages()); queued != map[bool]int{true: 1}[visible] {
					t.Errorf("queued %d messages", queued)
				}
			})
		}
	}
}

// TestVisibilityTreeReadsMissingAndHiddenAlike: under tree a session
// that does not exist and one out of scope get the same answer, so the
// refusal tells nothing of other sessions.
func TestVisibilityTreeReadsMissingAndHiddenAlike(t *testing.T) {
	doc := `{agents: {list: [{id: "main", default: true}]}, channels: {telegram: {allowFrom: ["*"]}}, tools: {sessions: {visibility: "tree"}}}`
	r := visibilityRig(t, doc, inbound.Sender)
	h := sessions.NewHistoryTool(r.run(t), r.store, r.transcripts())
	for key, want := range map[string]string{
		groupKey:                 `no session "` + groupKey + `" that this run may see: for a sender who is not an owner tools.sessions.visibility is "tree" (this session and the sub-agent sessions it spawned)`,
		"agent:main:subagent:zz": `no session "agent:main:subagent:zz" that this run may see: for a sender who is not an owner tools.sessions.visibility is "tree" (this session and the sub-agent sessions it spawned)`,
	} {
		if res := tooltest.Call(t, h, `{"sessionKey": "`+key+`"}`); !res.IsError || res.Content != want {
			t.Errorf("history of %s = %+v; want the error %q", key, res, want)
		}
	}
}

func checkVisible(t *testing.T, isErr bool, content string, visible bool) {
	t.Helper()
	switch {
	case visible && isErr:
		t.Errorf("refused: %s", content)
	case !visible && !isErr:
		t.Errorf("answered %s; want a refusal", content)
	case !visible && !strings.Contains(content, "that this run may see"):
		t.Errorf("refusal %q does not say the session is out of this run's view", content)
	}
}

func sorted(s []string) []string { return slices.Sorted(slices.Values(s)) }
