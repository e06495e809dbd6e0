package model

import (
	"context"
	"strings"
)

// EchoProvider is the provider id of the built-in offline model.
const EchoProvider = "zero"

// Echo is the offline model "zero/echo": it answers with the last user
// message, so the whole pipeline can run with no model key. Its usage
// figures count words, which is enough to see them move.
type Echo struct{}

// Complete implements Client.
func (Echo) Complete(_ context.Context, req Request) (Response, error) {
	last := ""
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == User {
			last = req.Messages[i].Content
			break
		}
	}
	text := "echo: " + last
	in := 0
	for _, m := range req.Messages {
		in += len(strings.Fields(m.Content))
	}
	out := len(strings.Fields(text))
	return Response{Text: text, StopReason: "stop", Usage: Usage{Input: int64(in), Output: int64(out), Total: int64(in + out)}}, nil
}
