package turn_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/model"
)

// TestThinkCommand: /think sets the session's thinking level, which every
// model call of its later runs carries; default clears it; a word that is
// not a level changes nothing.
func TestThinkCommand(t *testing.T) {
	r := newRig()
	llm := &scriptModel{answers: []model.Response{final("first"), final("second"), final("third")}}
	r.proc.Models["zero"] = llm
	steps := []struct {
		name, text, reply, level string
	}{
		{"shows the default", "/think", "Thinking: off.", ""},
		{"the model is asked without thinking", "hello", "first", ""},
		{"sets a level", "/think high", "Thinking for this session: high.", "high"},
		{"the model is asked with it", "and now?", "second", "high"},
		{"an unknown level is refused", "/think extreme", "Usage: /think", "high"},
		{"another level, any case", "/think Low", "Thinking for this session: low.", "low"},
		{"default clears it", "/think default", "Thinking: back to the default", ""},
		{"the model is asked without thinking again", "last", "third", ""},
	}
	for i, s := range steps {
		r.handle(t, msg(i+1, s.text))
		if got := r.lastSent(t); !strings.HasPrefix(got, s.reply) {
			t.Fatalf("%s: reply %q, want it to start with %q", s.name, got, s.reply)
		}
		if got := r.entry(t, "agent:main:main").ThinkingLevel; got != s.level {
			t.Fatalf("%s: thinkingLevel %q, want %q", s.name, got, s.level)
		}
	}
	var got []string
	for _, req := range llm.seen {
		got = append(got, req.Thinking)
	}
	if diff := cmp.Diff([]string{"", "high", ""}, got); diff != "" {
		t.Errorf("the model calls' thinking levels (-want +got):\n%s", diff)
	}
}

// TestRunThinking: a run's own thinking level (the gateway's agent, a
// hook, a cron job) wins over the session's for that run only; one that
// names no level is ignored.
func TestRunThinking(t *testing.T) {
	r := newRig()
	llm := &scriptModel{answers: []model.Response{final("a"), final("b"), final("c"), final("d")}}
	r.proc.Models["zero"] = llm
	r.handle(t, msg(1, "/think high"))
	for i, level := range []string{"low", "", "max", "off"} {
		m := msg(i+2, "question")
		m.Thinking = level
		r.handle(t, m)
	}
	var got []string
	for _, req := range llm.seen {
		got = append(got, req.Thinking)
	}
	if diff := cmp.Diff([]string{"low", "high", "high", "off"}, got); diff != "" {
		t.Errorf("the runs' thinking levels (-want +got):\n%s", diff)
	}
	if e := r.entry(t, "agent:main:main"); e.ThinkingLevel != "high" {
		t.Errorf("the session's level %q after runs with their own, want high", e.ThinkingLevel)
	}
}
