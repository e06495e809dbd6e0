package model

import "strings"

// DefaultContextWindow is the context window, in tokens, assumed for a
// model whose window is neither configured (agents.defaults.contextTokens)
// nor reported by its provider nor in the known-models table: the
// smallest window of today's common chat models, so compaction starts
// early rather than never.
const DefaultContextWindow = 128_000

// WindowReporter is the optional Client capability of a provider adapter
// that knows the context window of its models (from the provider's model
// listing, say); ok is false for a model it does not know.
type WindowReporter interface {
	ContextWindow(model string) (tokens int64, ok bool)
}

// knownWindows are the context windows of well-known models by name
// prefix; the longest matching prefix wins. Names are matched lower-cased,
// without a Bedrock cross-region prefix ("us.", "eu.", …) and without a
// router's vendor prefix ("anthropic/claude-…" of openrouter/…).
var knownWindows = []struct {
	prefix string
	tokens int64
}{
	// OpenAI
	{"gpt-3.5-turbo", 16_385},
	{"gpt-4", 8_192},
	{"gpt-4-32k", 32_768},
	{"gpt-4-turbo", 128_000},
	{"gpt-4o", 128_000},
	{"chatgpt-4o", 128_000},
	{"gpt-4.1", 1_047_576},
	{"gpt-4.5", 128_000},
	{"gpt-5", 400_000},
	{"o1", 200_000},
	{"o1-mini", 128_000},
	{"o1-preview", 128_000},
	{"o3", 200_000},
	{"o4-mini", 200_000},
	// Anthropic, and Anthropic on Bedrock
	{"claude-", 200_000},
	{"anthropic.claude-", 200_000},
	// Amazon Nova, Meta Llama and Mistral on Bedrock
	{"amazon.nova-micro", 128_000},
	{"amazon.nova-lite", 300_000},
	{"amazon.nova-pro", 300_000},
	{"amazon.nova-premier", 1_000_000},
	{"meta.llama3-1-", 128_000},
	{"meta.llama3-2-", 128_000},
	{"meta.llama3-3-", 128_000},
	{"mistral.mistral-large-2407", 128_000},
	// Google
	{"gemini-1.5", 1_048_576},
	{"gemini-2.0", 1_048_576},
	{"gemini-2.5", 1_048_576},
}

// bedrockRegionPrefixes are the cross-region inference profile prefixes
// of Bedrock model ids ("us.anthropic.claude-…").
var bedrockRegionPrefixes = []string{"us.", "eu.", "apac.", "us-gov.", "global.", "jp.", "au.", "ca."}

// KnownContextWindow is the context window of ref from the table of
// well-known models; ok is false for a model not in it.
func KnownContextWindow(ref Ref) (tokens int64, ok bool) {
	name := strings.ToLower(strings.TrimSpace(ref.Name))
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	for _, p := range bedrockRegionPrefixes {
		if rest, cut := strings.CutPrefix(name, p); cut {
			name = rest
			break
		}
	}
	best := -1
	for _, w := range knownWindows {
		if strings.HasPrefix(name, w.prefix) && len(w.prefix) > best {
			best, tokens = len(w.prefix), w.tokens
		}
	}
	return tokens, best >= 0
}

// ContextWindow is the context window of ref served by client: what the
// client reports (WindowReporter), else KnownContextWindow, else
// DefaultContextWindow. client may be nil.
func ContextWindow(client Client, ref Ref) int64 {
	if r, ok := client.(WindowReporter); ok {
		if tokens, ok := r.ContextWindow(ref.Name); ok && tokens > 0 {
			return tokens
		}
	}
	if tokens, ok := KnownContextWindow(ref); ok {
		return tokens
	}
	return DefaultContextWindow
}
