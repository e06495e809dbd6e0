package compaction

import (
	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/transcript"
)

// ContextOf rebuilds the model context a session's transcript leaves: its
// message lines in order, a compaction line replacing what came before it
// by its summary (keeping from its firstKeptEntryId on); nothing else is
// dropped. It is what the runner rebuilds when the stored context
// is missing, and what `zero import` stores for an imported session, so
// the first turn after an import continues the conversation. Lines it
// cannot parse are skipped. Pure.
func ContextOf(stream []byte) []model.Message {
	var msgs []model.Message
	for _, l := range transcript.Lines(stream) {
		switch {
		case l.Type == "compaction":
			msgs = Apply(msgs, l)
		case l.Type == "message" && l.Message != nil && transcript.ContextRole(l.Message.Role):
			msgs = append(msgs, transcript.ToContext(l))
		}
	}
	return msgs
}
