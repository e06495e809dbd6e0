package tools

import (
	"encoding/json"
	"fmt"
	"slices"
	"unicode/utf8"

	"github.com/zero-gateway/zero/shared/untrusted"
)

// MaxResultBytes is the size at which the agent loop cuts a tool result
// (agent.DefaultMaxToolResultBytes; a test keeps the two equal).
const MaxResultBytes = 16 << 10

// ResultBudget is the size tools keep their results under, so the loop
// never cuts one in the middle (a cut JSON result is invalid, a cut
// envelope loses its end marker): they leave out rows or shorten content
// instead, and say so.
const ResultBudget = MaxResultBytes - 256

// FitUntrusted is note, then body in the untrusted-content envelope from
// source, the body cut (on a rune boundary, saying so) until the whole
// fits in budget bytes, so the loop's own cut never removes the end
// marker.
func FitUntrusted(note, source, body string, budget int) string {
	out := note + "\n" + untrusted.Wrap(source, body)
	for len(out) > budget && body != "" {
		cut := max(len(body)-(len(out)-budget)-64, 0)
		for cut > 0 && !utf8.RuneStart(body[cut]) {
			cut--
		}
		body = body[:cut]
		out = note + " The content was cut to fit the tool result size.\n" + untrusted.Wrap(source, body+"\n[…]")
	}
	return out
}

// Fitted encodes items one by one and keeps as many as fit in budget
// bytes (at least one), taking them from the front (fromEnd false) or
// from the back (fromEnd true). It reports how many were left out.
func Fitted[T any](items []T, budget int, fromEnd bool) ([]json.RawMessage, int, error) {
	encoded := make([]json.RawMessage, len(items))
	for i, it := range items {
		b, err := json.Marshal(it)
		if err != nil {
			return nil, 0, err
		}
		encoded[i] = b
	}
	if fromEnd {
		slices.Reverse(encoded)
	}
	kept, size := 0, 0
	for _, b := range encoded {
		if kept > 0 && size+len(b)+1 > budget {
			break
		}
		size += len(b) + 1
		kept++
	}
	out := encoded[:kept]
	if fromEnd {
		slices.Reverse(out)
	}
	return out, len(items) - kept, nil
}

// JSONResult encodes a tool's result object.
func JSONResult(v any) (string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", fmt.Errorf("encode the result: %w", err)
	}
	return string(b), nil
}
