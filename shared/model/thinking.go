package model

import (
	"slices"
	"strings"
)

// Thinking levels, as upstream names them (a session's thinkingLevel,
// /think <level>). Off, or "", asks for no reasoning.
const (
	ThinkingOff     = "off"
	ThinkingMinimal = "minimal"
	ThinkingLow     = "low"
	ThinkingMedium  = "medium"
	ThinkingHigh    = "high"
	ThinkingXHigh   = "xhigh"
)

// ThinkingLevels lists the accepted levels, lowest first.
var ThinkingLevels = []string{ThinkingOff, ThinkingMinimal, ThinkingLow, ThinkingMedium, ThinkingHigh, ThinkingXHigh}

// thinkingBudgets are the reasoning token budgets of the providers that
// take a budget (Anthropic, and Anthropic models on Bedrock), per level:
// upstream's defaults. xhigh is high: upstream keeps the larger level for
// the models that name it, and a budget above high would not fit a
// non-streamed answer's max_tokens.
var thinkingBudgets = map[string]int{
	ThinkingMinimal: 1024,
	ThinkingLow:     2048,
	ThinkingMedium:  8192,
	ThinkingHigh:    16384,
	ThinkingXHigh:   16384,
}

// ValidThinking reports whether level is one of ThinkingLevels (or "",
// the default: off).
func ValidThinking(level string) bool {
	return level == "" || slices.Contains(ThinkingLevels, level)
}

// ThinkingOn reports whether level asks for reasoning.
func ThinkingOn(level string) bool {
	_, ok := thinkingBudgets[strings.ToLower(strings.TrimSpace(level))]
	return ok
}

// ThinkingBudget is the reasoning token budget of level; 0 for off, ""
// or an unknown level (adapters then send no reasoning fields).
func ThinkingBudget(level string) int {
	return thinkingBudgets[strings.ToLower(strings.TrimSpace(level))]
}

// EndsInToolRound reports whether msgs end inside a tool round: the last
// assistant message made tool calls. Anthropic's API (and Bedrock's for
// its models) then wants that message to start with its signed thinking
// block when thinking is on; ZERO keeps the reasoning text but not the
// signature, so those adapters send such a call without thinking.
func EndsInToolRound(msgs []Message) bool {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == Assistant {
			return len(msgs[i].ToolCalls) > 0
		}
	}
	return false
}
