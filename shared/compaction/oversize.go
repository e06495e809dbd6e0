package compaction

import (
	"fmt"
	"unicode/utf8"

	"github.com/zero-gateway/zero/shared/model"
)

// maxMessageShare is the part of the model's window one message may take
// in a request: a message larger than that (a pasted log, a huge tool
// result) would leave no room for anything else, so no compaction could
// ever make the request fit.
const maxMessageShare = 2

// bytesPerToken converts a window in tokens to text bytes, as
// EstimateTokens counts.
const bytesPerToken = 4

// FitWindow returns msgs with every message too large for a window of
// window tokens shortened by Shorten. Nothing is removed; msgs is not
// changed (the copy is made only when a message is shortened). Like
// Prune, it changes only the request: the transcript and the stored
// context keep every message whole. Pure.
func FitWindow(msgs []model.Message, window int64) []model.Message {
	limit := MessageLimit(window)
	var out []model.Message
	for i, m := range msgs {
		if len(m.Content) <= limit {
			continue
		}
		if out == nil {
			out = append([]model.Message(nil), msgs...)
		}
		out[i].Content = Shorten(m.Content, limit)
	}
	if out == nil {
		return msgs
	}
	return out
}

// MessageLimit is the most text bytes one message may carry in a request
// to a window of window tokens.
func MessageLimit(window int64) int {
	return int(window * bytesPerToken / maxMessageShare)
}

// Shorten cuts the middle of text so it stays within limit bytes, leaving
// a visible marker that says how much was cut and why: the model (and the
// user reading its answer) knows the message was shortened, never that it
// was silently dropped. The head and the tail are kept, cut on rune
// boundaries. Text within limit comes back unchanged.
func Shorten(text string, limit int) string {
	if len(text) <= limit {
		return text
	}
	marker := fmt.Sprintf("\n\n[… %d bytes cut here: this message is larger than the model's context window allows …]\n\n", len(text)-limit)
	keep := max(limit-len(marker), 0)
	head, tail := keep*2/3, keep/3
	for head > 0 && !utf8.RuneStart(text[head]) {
		head--
	}
	start := len(text) - tail
	for start < len(text) && !utf8.RuneStart(text[start]) {
		start++
	}
	return text[:head] + marker + text[start:]
}
