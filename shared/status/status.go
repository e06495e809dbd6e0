// Package status is the text of a session's status report, what /status
// answers and session_status returns: the session, its model, how full
// its context is, its thinking and verbose levels and whether it sends.
// The engine picks the model and its window; this package only writes.
package status

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/zero-gateway/zero/shared/compaction"
	"github.com/zero-gateway/zero/shared/config"
	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/session"
)

// Session is one session as its report shows it.
type Session struct {
	Key   string
	Entry session.Entry
	// History is the session's context; nil when not loaded (the context
	// line then estimates 0 where the entry reports no tokens).
	History []model.Message
	Expired bool      // the session just replaced one that expired
	Model   model.Ref // the model its turns use
	// Window is Model's context window (tokens), for an entry that
	// reports none of its own.
	Window int64
}

// Report is the status report of s under cfg.
func Report(cfg *config.Config, s Session) string {
	e := s.Entry
	var b strings.Builder
	b.WriteString("ZERO is reachable.\n")
	fmt.Fprintf(&b, "Session: %s\n", session.Display(s.Key, cfg.Keys()))
	fmt.Fprintf(&b, "Session id: %s", e.SessionID)
	if s.Expired {
		b.WriteString(" (new: the previous session expired)")
	}
	b.WriteString("\n")
	source := "default"
	if e.ModelOverride != "" {
		source = "set for this session"
	}
	fmt.Fprintf(&b, "Model: %s (%s)\n", s.Model, source)
	b.WriteString(ContextLine(e, s.History, s.Window) + "\n")
	fmt.Fprintf(&b, "Thinking: %s · Verbose: %s\n", orDefault(e.ThinkingLevel, "off"), orDefault(e.VerboseLevel, "off"))
	for _, line := range append(CostLines(cfg, e, s.Model), ResetLine(cfg, e)) { // cost.go
		b.WriteString(line + "\n")
	}
	policy := "from config"
	if e.SendPolicy != "" {
		policy = "set for this session"
	}
	state := "on"
	if !cfg.SendPolicy().Allows(s.Key, e.Channel, e.ChatType, e.SendPolicy) {
		state = "off"
	}
	fmt.Fprintf(&b, "Sending: %s (%s)", state, policy)
	return b.String()
}

func orDefault(s, fallback string) string {
	if s == "" {
		return fallback
	}
	return s
}

// ContextLine is the status line of how full a session's context is:
// "context: <used> / <window> (<percent>%)", e.g.
// "context: 12.3k / 128k (10%)".
//
// used is e.TotalTokens: what the last model call's prompt and answer held
// as the provider reported them, cache reads and writes included. When the
// entry reports none (a provider that gives no usage, a session that ran
// no model yet) it is estimated from history and marked "~". The window
// is the one in force: e.ContextTokens (that of the model that answered
// last), else window (the session model's). The percentage is rounded to
// the nearest whole one.
func ContextLine(e session.Entry, history []model.Message, window int64) string {
	used, mark := e.TotalTokens, ""
	if used <= 0 {
		used, mark = compaction.EstimateTokens(history), "~"
	}
	if e.ContextTokens > 0 {
		window = e.ContextTokens
	}
	line := fmt.Sprintf("context: %s%s / %s", mark, ShortTokens(used), ShortTokens(window))
	if window > 0 {
		line += fmt.Sprintf(" (%d%%)", int64(math.Round(float64(used)*100/float64(window))))
	}
	return line
}

// ShortTokens writes a token count for people: as is below 1000, else in
// thousands (k) or millions (M) rounded to one decimal, a ".0" dropped:
// 999, 1k, 12.3k, 128k, 1M, 1.5M.
func ShortTokens(n int64) string {
	if n < 1000 {
		return strconv.FormatInt(n, 10)
	}
	if tenths := (n + 50) / 100; tenths < 10_000 { // below 1000.0k
		return tenthsString(tenths) + "k"
	}
	return tenthsString((n+50_000)/100_000) + "M"
}

// tenthsString writes tenths/10 with one decimal, without a ".0".
func tenthsString(tenths int64) string {
	if tenths%10 == 0 {
		return strconv.FormatInt(tenths/10, 10)
	}
	return fmt.Sprintf("%d.%d", tenths/10, tenths%10)
}
