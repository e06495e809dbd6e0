package builtin_test

import (
	"context"
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/config"
	"github.com/zero-gateway/zero/shared/cron"
	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/files/filestest"
	memindex "github.com/zero-gateway/zero/shared/memory"
	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/tool"
	"github.com/zero-gateway/zero/shared/tools"
	"github.com/zero-gateway/zero/shared/tools/builtin"
	"github.com/zero-gateway/zero/shared/tools/tooltest"
	"github.com/zero-gateway/zero/shared/tools/web"
	"github.com/zero-gateway/zero/shared/webfetch"
	"github.com/zero-gateway/zero/shared/workspace"
)

var (
	echo   = model.Ref{Provider: "zero", Name: "echo"}
	gpt52  = model.Ref{Provider: "openai", Name: "gpt-5.2"}
	vision = map[string]model.Client{"openai": nopModel{}}
)

type nopModel struct{}

func (nopModel) Complete(context.Context, model.Request) (model.Response, error) {
	return model.Response{Text: "ok"}, nil
}

type nopSearcher struct{}

func (nopSearcher) Search(context.Context, string, int) ([]web.Result, error) { return nil, nil }

type nopDoc struct{}

func (nopDoc) Fetch(context.Context) ([]byte, string, error) {
	return nil, "", fault.New(fault.NotFound, "none")
}
func (nopDoc) Put(context.Context, []byte) (string, error)                  { return "1", nil }
func (nopDoc) PutIfVersion(context.Context, []byte, string) (string, error) { return "1", nil }

type nopWorkspace struct{}

func (nopWorkspace) ListObjects(context.Context, string) ([]workspace.Object, error) { return nil, nil }
func (nopWorkspace) Get(context.Context, string) ([]byte, error)                     { return nil, nil }

// every is every backend.
func every() builtin.Deps {
	guard := webfetch.Guard{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}}
	return builtin.Deps{
		Memory:     memindex.NewIndex(nopWorkspace{}),
		Files:      filestest.NewMemStore(nil),
		WebFetch:   &webfetch.Fetcher{Client: webfetch.NewClient(webfetch.ClientOptions{Guard: guard})},
		WebSearch:  nopSearcher{},
		ImageFetch: &webfetch.Fetcher{},
		Cron:       &cron.Service{Store: &cron.Memory{}},
		ConfigDoc:  nopDoc{},
	}
}

// offered is what a run on ref under doc is offered of the registry over
// d, after the tool policy. The run has no /status report and no ingest
// door, so of the session tools only agents_list is built.
func offered(t *testing.T, doc string, d builtin.Deps, ref model.Ref, clients map[string]model.Client) []string {
	t.Helper()
	cfg, err := config.Parse([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	decision := tool.Decide(cfg, tool.Request{Model: ref})
	run := tools.Run{Config: cfg, AgentID: "main", Model: ref, Models: clients, Now: time.Now}
	names := []string{}
	for _, tl := range builtin.Registry(d).Build(run, decision.Allowed) {
		names = append(names, tl.Spec().Name)
	}
	return names
}

var (
	fsTools        = []string{"read", "write", "edit"}
	memoryTools    = []string{"memory_search", "memory_get"}
	defaultOffered = slices.Concat([]string{"agents_list", "web_fetch", "cron", "gateway"}, fsTools, memoryTools) // every backend, no image model
)

func TestOffered(t *testing.T) {
	tests := []struct {
		name    string
		config  string
		deps    builtin.Deps
		ref     model.Ref
		clients map[string]model.Client
		want    []string
	}{
		{name: "no backends", config: `{tools: {web: {search: {enabled: true}}}, commands: {restart: true}}`, want: []string{"agents_list"}},
		{name: "every backend, defaults", config: `{}`, deps: every(), want: defaultOffered},
		// web (was TestWebToolsOffered)
		{name: "web_search enabled", config: `{tools: {web: {search: {enabled: true, maxResults: 3}}}}`, deps: every(),
			want: slices.Concat([]string{"agents_list", "web_fetch", "web_search", "cron", "gateway"}, fsTools, memoryTools)},
		{name: "web_fetch disabled", config: `{tools: {web: {fetch: {enabled: false}}}}`, deps: every(), want: slices.Concat([]string{"agents_list", "cron", "gateway"}, fsTools, memoryTools)},
		{name: "group:web denied", config: `{tools: {deny: ["group:web"], web: {search: {enabled: true}}}}`, deps: every(), want: slices.Concat([]string{"agents_list", "cron", "gateway"}, fsTools, memoryTools)},
		// memory (was TestMemoryToolsOffered)
		{name: "group:memory denied", config: `{tools: {deny: ["group:memory"]}}`, deps: every(), want: slices.Concat([]string{"agents_list", "web_fetch", "cron", "gateway"}, fsTools)},
		{name: "the messaging profile", config: `{tools: {profile: "messaging"}}`, deps: every(), want: []string{}},
		// files (was TestFileToolsFollowThePolicy)
		{name: "group:fs denied", config: `{tools: {deny: ["group:fs"]}}`, deps: every(), want: slices.Concat([]string{"agents_list", "web_fetch", "cron", "gateway"}, memoryTools)},
		{name: "apply_patch needs an OpenAI model", config: `{tools: {exec: {applyPatch: {enabled: true}}}}`, deps: every(), ref: echo, want: defaultOffered},
		{name: "apply_patch enabled for OpenAI", config: `{tools: {exec: {applyPatch: {enabled: true}}}}`, deps: every(), ref: gpt52,
			want: slices.Concat([]string{"agents_list", "web_fetch", "cron", "gateway"}, fsTools, []string{"apply_patch"}, memoryTools)},
		{name: "apply_patch denied", config: `{tools: {deny: ["apply_patch"], exec: {applyPatch: {enabled: true}}}}`, deps: every(), ref: gpt52, want: defaultOffered},
		// image (was TestImageToolOffered)
		{name: "an image model", config: `{agents: {defaults: {imageModel: "openai/gpt-4o"}}}`, deps: every(), clients: vision,
			want: slices.Concat([]string{"agents_list", "web_fetch", "image", "cron", "gateway"}, fsTools, memoryTools)},
		{name: "the image model's provider missing", config: `{agents: {defaults: {imageModel: "openai/gpt-4o"}}}`, deps: every(), want: defaultOffered},
		{name: "no image model, a run model without vision", config: `{}`, deps: every(), ref: echo, clients: vision, want: defaultOffered},
		{name: "a bedrock image model", config: `{agents: {defaults: {imageModel: "bedrock/amazon.nova-pro-v1:0"}}}`, deps: every(), clients: vision, want: defaultOffered},
		{name: "image denied", config: `{tools: {deny: ["image"]}, agents: {defaults: {imageModel: "openai/gpt-4o"}}}`, deps: every(), clients: vision, want: defaultOffered},
		// automation (was TestAutomationToolsOffered)
		{name: "gateway enabled by commands.restart", config: `{commands: {restart: true}}`, deps: every(),
			want: slices.Concat([]string{"agents_list", "web_fetch", "cron", "gateway"}, fsTools, memoryTools)},
		{name: "group:automation denied", config: `{commands: {restart: true}, tools: {deny: ["group:automation"]}}`, deps: every(),
			want: slices.Concat([]string{"agents_list", "web_fetch"}, fsTools, memoryTools)},
		{name: "gateway denied alone", config: `{tools: {deny: ["gateway"]}}`, deps: every(), want: slices.Concat([]string{"agents_list", "web_fetch", "cron"}, fsTools, memoryTools)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ref := tt.ref
			if ref.Provider == "" {
				ref = echo
			}
			if diff := cmp.Diff(tt.want, offered(t, tt.config, tt.deps, ref, tt.clients)); diff != "" {
				t.Errorf("offered (-want +got):\n%s", diff)
			}
		})
	}
}

// TestEveryProvidedToolIsBuilt: every provided tool has a constructor,
// and an unavailable one has none but its answer.
func TestEveryProvidedToolIsBuilt(t *testing.T) {
	for _, e := range builtin.Registry(builtin.Deps{}).Entries() {
		switch {
		case !e.Provided():
			if e.New != nil || !strings.Contains(e.Unavailable, " is unavailable in this serverless deployment") {
				t.Errorf("%s: unavailable with constructor %v, answer %q", e.Name, e.New != nil, e.Unavailable)
			}
		case e.New == nil:
			t.Errorf("%s: provided without a constructor", e.Name)
		}
		if e.Name != strings.ToLower(e.Name) || (e.Group != "" && !strings.HasPrefix(e.Group, "group:")) {
			t.Errorf("%s: name or group %q not in the policy's form", e.Name, e.Group)
		}
	}
}

// TestFileToolsShareARun: the file tools of one run share its workspace
// session, so a write after the run's read is allowed.
func TestFileToolsShareARun(t *testing.T) {
	store := filestest.NewMemStore(map[string]string{"agents/main/workspace/notes.md": "one\n"})
	run := tools.Run{Config: config.Default(), AgentID: "main", Model: echo, Now: time.Now}
	byName := map[string]tools.Tool{}
	for _, tl := range builtin.Registry(builtin.Deps{Files: store}).Build(run, func(string) bool { return true }) {
		byName[tl.Spec().Name] = tl
	}
	if res := tooltest.Call(t, byName["read"], `{"path":"notes.md"}`); res.IsError {
		t.Fatalf("read: %s", res.Content)
	}
	if res := tooltest.Call(t, byName["write"], `{"path":"notes.md","content":"two\n"}`); res.IsError {
		t.Fatalf("write after the run's read: %s", res.Content)
	}
}
