package turn_test

// The tool backends the turn tests wire (Processor.Tools, Door): fakes
// of the memory index, the workspace bucket, the web, the config
// parameter and an image model.

import (
	"context"
	"fmt"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/files"
	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/ingest"
	"github.com/zero-gateway/zero/shared/memory"
	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/tools/web"
	"github.com/zero-gateway/zero/shared/webfetch"
	"github.com/zero-gateway/zero/shared/workspace"
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

// memoryStore is a memory.Store over fixed objects, ETag the content.
type memoryStore map[string]string

func (s memoryStore) ListObjects(_ context.Context, prefix string) ([]workspace.Object, error) {
	var out []workspace.Object
	for k, v := range s {
		if strings.HasPrefix(k, prefix) {
			out = append(out, workspace.Object{Key: k, ETag: `"` + v + `"`, Size: int64(len(v))})
		}
	}
	slices.SortFunc(out, func(a, b workspace.Object) int { return strings.Compare(a.Key, b.Key) })
	return out, nil
}

func (s memoryStore) Get(_ context.Context, key string) ([]byte, error) {
	v, ok := s[key]
	if !ok {
		return nil, fault.New(fault.NotFound, "no %s", key)
	}
	return []byte(v), nil
}

// agentMemory is the main agent's memory in these tests.
func agentMemory() *memory.Index {
	return memory.NewIndex(memoryStore{
		"agents/main/workspace/MEMORY.md":            "# Memory\n\nThe user's sister Alice lives in Lisbon.\n",
		"agents/main/workspace/memory/2026-11-20.md": "Called the dentist: Friday at 10:00.\n",
		"agents/main/workspace/AGENTS.md":            "The dentist is not memory.\n",
	})
}

// webConfig is rigConfig with web_search enabled.
const webConfig = `{channels: {telegram: {allowFrom: ["*"], owners: ["7"]}}, tools: {web: {search: {enabled: true, maxResults: 3}}}}`

// fakeSearcher records its calls and answers results or err.
type fakeSearcher struct {
	queries []string
	counts  []int
	results []web.Result
	err     error
}

func (f *fakeSearcher) Search(_ context.Context, query string, count int) ([]web.Result, error) {
	f.queries, f.counts = append(f.queries, query), append(f.counts, count)
	return f.results, f.err
}

// testFetcher is a webfetch.Fetcher that may reach 127.0.0.1 (the fake
// web server) and nothing else private.
func testFetcher() *webfetch.Fetcher {
	guard := webfetch.Guard{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}}
	return &webfetch.Fetcher{Client: webfetch.NewClient(webfetch.ClientOptions{Guard: guard})}
}

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

// memDoc is an in-memory config.DocumentStore with SSM's versions.
// race, when set, is written by "another writer" just before the next
// PutIfVersion (once).
type memDoc struct {
	mu      sync.Mutex
	data    []byte
	version int // 0: none stored
	race    []byte
}

func (d *memDoc) Fetch(context.Context) ([]byte, string, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.version == 0 {
		return nil, "", fault.New(fault.NotFound, "no document")
	}
	return d.data, strconv.Itoa(d.version), nil
}

func (d *memDoc) Put(_ context.Context, data []byte) (string, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.data, d.version = data, d.version+1
	return strconv.Itoa(d.version), nil
}

func (d *memDoc) PutIfVersion(ctx context.Context, data []byte, version string) (string, error) {
	if d.race != nil {
		race := d.race
		d.race = nil
		d.Put(ctx, race)
	}
	d.mu.Lock()
	current := ""
	if d.version > 0 {
		current = strconv.Itoa(d.version)
	}
	d.mu.Unlock()
	if current != version {
		return "", fault.New(fault.Conflict, "version %s, not %s", current, version)
	}
	return d.Put(ctx, data)
}

// imageConfig is rigConfig with an OpenAI image model.
const imageConfig = `{channels: {telegram: {allowFrom: ["*"], owners: ["7"]}}, agents: {defaults: {imageModel: "openai/gpt-4o"}}}`

// visionModel records the image requests and answers text or err.
type visionModel struct {
	seen []model.Request
	text string
	err  error
}

func (v *visionModel) Complete(_ context.Context, req model.Request) (model.Response, error) {
	v.seen = append(v.seen, req)
	return model.Response{Text: v.text, StopReason: model.StopEnd}, v.err
}
