package sessions

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/zero-gateway/zero/shared/redact"
)

// historyTextMax is the most characters of one text block sessions_history
// shows (upstream's 4000); a longer one is cut and says so.
const historyTextMax = 4000

// historyOmitted replaces the one message left that is still too large
// for a tool result.
const historyOmitted = "[sessions_history omitted: message too large]"

// filterFlags are what filtering one message did.
type filterFlags struct {
	truncated bool // a text block was cut, a payload (image data, usage) left out
	redacted  bool // credential-like text was masked
}

func (f *filterFlags) add(o filterFlags) {
	f.truncated = f.truncated || o.truncated
	f.redacted = f.redacted || o.redacted
}

// scaffolding is what the filter strips from message text: thinking and
// memory blocks, plain-text tool-call payloads (an unclosed one to the
// end), downgraded tool-call markers and leaked model control tokens.
var scaffolding = func() []*regexp.Regexp {
	var out []*regexp.Regexp
	for _, tag := range []string{"think", "thinking", "thought", "reasoning", "relevant-memories", "relevant_memories",
		"tool_call", "function_call", "tool_calls", "function_calls", "invoke", "minimax:tool_call"} {
		q := regexp.QuoteMeta(tag)
		out = append(out, regexp.MustCompile(`(?is)<`+q+`\b[^>]*>.*?(?:</`+q+`\s*>|\z)`), regexp.MustCompile(`(?i)</`+q+`\s*>`))
	}
	return append(out,
		regexp.MustCompile(`(?m)^[ \t]*\[(?:Tool Call|Tool Result|Historical context)\b[^\n]*\n?`),
		regexp.MustCompile(`<\|[^|<>\n]{1,64}\|>`),
		regexp.MustCompile(`<｜[^｜<>\n]{1,64}｜>`),
	)
}()

// cleanText is s as the filtered history shows it: scaffolding stripped,
// credentials masked, cut to historyTextMax characters.
func cleanText(s string) (string, filterFlags) {
	var f filterFlags
	out := s
	for _, re := range scaffolding {
		out = re.ReplaceAllString(out, "")
	}
	if out != s {
		out = strings.TrimSpace(out)
	}
	out, f.redacted = redact.Text(out)
	if utf8.RuneCountInString(out) > historyTextMax {
		out = string([]rune(out)[:historyTextMax]) + "\n…(truncated)…"
		f.truncated = true
	}
	return out, f
}

// filterMessage is the safety-filtered view of one transcript message
// (raw, as session.LastMessages returns it): thinking blocks dropped,
// tool calls dropped unless includeTools (their arguments masked when
// kept), text cleaned (cleanText), image data and usage left out. keep is
// false when nothing is left to show (an assistant message that was only
// thinking and tool calls). A message that is not a JSON object is an
// error.
func filterMessage(raw json.RawMessage, includeTools bool) (json.RawMessage, bool, filterFlags, error) {
	var msg map[string]any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&msg); err != nil {
		return nil, false, filterFlags{}, err
	}
	var f filterFlags
	for _, k := range []string{"usage", "cost", "details"} {
		if _, ok := msg[k]; ok {
			delete(msg, k)
		}
	}
	switch c := msg["content"].(type) {
	case string:
		text, tf := cleanText(c)
		f.add(tf)
		msg["content"] = text
	case []any:
		blocks, bf := filterBlocks(c, includeTools)
		f.add(bf)
		if len(blocks) == 0 && msg["role"] == "assistant" {
			return nil, false, f, nil
		}
		msg["content"] = blocks
	}
	out, err := json.Marshal(msg)
	return out, true, f, err
}

// filterBlocks filters a message's content blocks.
func filterBlocks(blocks []any, includeTools bool) ([]any, filterFlags) {
	var f filterFlags
	out := []any{}
	for _, b := range blocks {
		block, ok := b.(map[string]any)
		if !ok {
			continue
		}
		switch block["type"] {
		case "thinking", "redacted_thinking":
			continue
		case "toolCall":
			if !includeTools {
				continue
			}
			f.add(filterArguments(block))
		case "image":
			if _, ok := block["data"]; ok {
				delete(block, "data")
				f.truncated = true
			}
			block["omitted"] = true
		}
		if text, ok := block["text"].(string); ok {
			cleaned, tf := cleanText(text)
			f.add(tf)
			if cleaned == "" && block["type"] == "text" {
				continue
			}
			block["text"] = cleaned
		}
		out = append(out, block)
	}
	return out, f
}

// filterArguments masks a kept tool call's arguments: when masking or
// cutting changes them, they are shown as the cleaned JSON text.
func filterArguments(block map[string]any) filterFlags {
	args, ok := block["arguments"]
	if !ok {
		return filterFlags{}
	}
	raw, err := json.Marshal(args)
	if err != nil {
		return filterFlags{}
	}
	cleaned, f := cleanText(string(raw))
	if cleaned != string(raw) {
		block["arguments"] = cleaned
	}
	return f
}
