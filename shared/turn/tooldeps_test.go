package turn_test

// The tool backends the turn tests wire (Processor.Tools, Door): fakes
// of the workspace bucket and the door; those of the memory index, the
// web, the config parameter, the messengers and an image model are
// tooltest's, shared with the tools' own tests.

import (
	"context"
	"fmt"
	"sync"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/files"
	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/ingest"
)

// workspaceStore is a files.Store in memory with S3's conditional
// semantics (ETags are a counter).
type workspaceStore struct {
	mu   sync.Mutex
	objs map[string]files.Object
	n    int
}

func newWorkspaceStore() *workspaceStore { return &workspaceStore{objs: map[string]files.Object{}} }

func (s *workspaceStore) Fetch(_ context.Context, key string) (files.Object, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if o, ok := s.objs[key]; ok {
		return o, nil
	}
	return files.Object{}, fault.New(fault.NotFound, "no %s", key)
}

func (s *workspaceStore) Put(_ context.Context, key string, data []byte, ifMatch string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	o, ok := s.objs[key]
	if ifMatch == "" && ok || ifMatch != "" && (!ok || o.ETag != ifMatch) {
		return "", fault.New(fault.Conflict, "precondition failed on %s", key)
	}
	s.n++
	s.objs[key] = files.Object{Data: data, ETag: fmt.Sprint(s.n)}
	return fmt.Sprint(s.n), nil
}

func (s *workspaceStore) Delete(_ context.Context, key, ifMatch string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if o, ok := s.objs[key]; !ok || o.ETag != ifMatch {
		return fault.New(fault.Conflict, "precondition failed on %s", key)
	}
	delete(s.objs, key)
	return nil
}

// webConfig is rigConfig with web_search enabled.
const webConfig = `{channels: {telegram: {allowFrom: ["*"], owners: ["7"]}}, tools: {web: {search: {enabled: true, maxResults: 3}}}}`

// recordingDoor is a Door that queues every message and records it.
type recordingDoor struct {
	mu   sync.Mutex
	msgs []inbound.Message
}

func (q *recordingDoor) Accept(_ context.Context, r ingest.Request) (ingest.Outcome, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.msgs = append(q.msgs, r.Message)
	return ingest.Queued{Message: r.Message, RunID: "run-" + r.Message.ID}, nil
}

// imageConfig is rigConfig with an OpenAI image model.
const imageConfig = `{channels: {telegram: {allowFrom: ["*"], owners: ["7"]}}, agents: {defaults: {imageModel: "openai/gpt-4o"}}}`
