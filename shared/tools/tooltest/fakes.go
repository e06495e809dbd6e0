package tooltest

import (
	"context"
	"slices"
	"sync"

	"github.com/zero-gateway/zero/shared/chataction"
	"github.com/zero-gateway/zero/shared/model"
)

// Messenger is a messaging.Messenger that records the actions it is asked
// to do (Did) and answers Res or Err; it supports the actions in Supported
// (nil: all).
type Messenger struct {
	mu        sync.Mutex
	Supported []string
	Did       []chataction.Action
	Res       chataction.Result
	Err       error
}

func (f *Messenger) Supports(action string) bool {
	return f.Supported == nil || slices.Contains(f.Supported, action)
}

func (f *Messenger) Do(_ context.Context, a chataction.Action) (chataction.Result, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.Did = append(f.Did, a)
	return f.Res, f.Err
}

// VisionModel is an image model that records the requests (Seen) and
// answers Text or Err.
type VisionModel struct {
	Seen []model.Request
	Text string
	Err  error
}

func (v *VisionModel) Complete(_ context.Context, req model.Request) (model.Response, error) {
	v.Seen = append(v.Seen, req)
	return model.Response{Text: v.Text, StopReason: model.StopEnd}, v.Err
}
