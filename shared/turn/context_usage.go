package turn

import (
	"fmt"
	"math"
	"strconv"

	"github.com/zero-gateway/zero/shared/compaction"
	"github.com/zero-gateway/zero/shared/config"
	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/session"
)

// contextLine is the status line of how full a session's context is:
// "context: <used> / <window> (<percent>%)", e.g.
// "context: 12.3k / 128k (10%)".
//
// used is e.TotalTokens: what the last model call's prompt and answer held
// as the provider reported them, cache reads and writes included. When the
// entry reports none (a provider that gives no usage, a session that ran
// no model yet) it is estimated from history and marked "~". window is
// the window in force: e.ContextTokens (that of the model that answered
// last), else p.contextWindow of the session's model. The percentage is
// rounded to the nearest whole one.
func (p *Processor) contextLine(cfg *config.Config, e session.Entry, history []model.Message) string {
	used, mark := e.TotalTokens, ""
	if used <= 0 {
		used, mark = compaction.EstimateTokens(history), "~"
	}
	window := e.ContextTokens
	if window <= 0 {
		window = p.contextWindow(cfg, p.modelFor(cfg, e))
	}
	line := fmt.Sprintf("context: %s%s / %s", mark, shortTokens(used), shortTokens(window))
	if window > 0 {
		line += fmt.Sprintf(" (%d%%)", int64(math.Round(float64(used)*100/float64(window))))
	}
	return line
}

// shortTokens writes a token count for people: as is below 1000, else in
// thousands (k) or millions (M) rounded to one decimal, a ".0" dropped:
// 999, 1k, 12.3k, 128k, 1M, 1.5M.
func shortTokens(n int64) string {
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
