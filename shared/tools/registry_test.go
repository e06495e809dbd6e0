package tools_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/config"
	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/tools"
)

// named is a tool that only has a name.
type named string

func (n named) Spec() model.ToolSpec                                 { return model.ToolSpec{Name: string(n)} }
func (n named) Run(context.Context, json.RawMessage) (string, error) { return string(n), nil }

func build(name string) tools.New { return func(tools.Run) tools.Tool { return named(name) } }

// testRegistry: a always, b only with web_search enabled, c never built
// (its constructor declines), d unavailable, e provided without a
// constructor (never built).
func testRegistry() tools.Registry {
	return tools.NewRegistry(
		tools.Entry{Name: "a", New: build("a")},
		tools.Entry{Name: "b", New: build("b"), Enabled: func(cfg *config.Config) bool { return cfg.Tools.Web.Search.Enabled }},
		tools.Entry{Name: "c", New: func(tools.Run) tools.Tool { return nil }},
		tools.Entry{Name: "d", Unavailable: "d is not here"},
		tools.Entry{Name: "e"},
	)
}

func names(ts []tools.Tool) []string {
	out := []string{}
	for _, tl := range ts {
		out = append(out, tl.Spec().Name)
	}
	return out
}

func TestBuild(t *testing.T) {
	search := config.Default()
	search.Tools.Web.Search.Enabled = true
	all := func(string) bool { return true }
	tests := []struct {
		name     string
		registry tools.Registry
		cfg      *config.Config
		allowed  func(string) bool
		want     []string
	}{
		{"defaults", testRegistry(), config.Default(), all, []string{"a"}},
		{"enabled by the configuration", testRegistry(), search, all, []string{"a", "b"}},
		{"the policy denies", testRegistry(), search, func(n string) bool { return n != "a" }, []string{"b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := names(tt.registry.Build(tools.Run{Config: tt.cfg}, tt.allowed))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("built (-want +got):\n%s", diff)
			}
		})
	}
}

func TestEntryState(t *testing.T) {
	r := testRegistry()
	tests := []struct {
		name               string
		wantProvided, want bool // want: On(nil)
	}{
		{"a", true, true}, {"b", true, false}, {"d", false, false}, {"e", true, true},
	}
	for _, tt := range tests {
		e, ok := r.Lookup(tt.name)
		if !ok || e.Provided() != tt.wantProvided || e.On(nil) != tt.want {
			t.Errorf("%s: found %v, Provided %v, On %v; want %v, %v", tt.name, ok, e.Provided(), e.On(nil), tt.wantProvided, tt.want)
		}
	}
	if _, ok := r.Lookup("z"); ok {
		t.Error("Lookup(z) found an entry")
	}
}

// TestSharedWithinARun: a run's tools share a value; another run gets its
// own; a Run not built by the registry shares nothing.
func TestSharedWithinARun(t *testing.T) {
	made := 0
	share := func(run tools.Run) int { return tools.Shared(run, "k", func() int { made++; return made }) }
	var seen []int
	r := tools.NewRegistry(
		tools.Entry{Name: "x", New: func(run tools.Run) tools.Tool { seen = append(seen, share(run)); return named("x") }},
		tools.Entry{Name: "y", New: func(run tools.Run) tools.Tool { seen = append(seen, share(run)); return named("y") }},
	)
	all := func(string) bool { return true }
	r.Build(tools.Run{Config: config.Default()}, all)
	r.Build(tools.Run{Config: config.Default()}, all)
	if !slices.Equal(seen, []int{1, 1, 2, 2}) {
		t.Errorf("shared values %v; want one per run", seen)
	}
	if a, b := share(tools.Run{}), share(tools.Run{}); a == b {
		t.Errorf("outside a run both calls got %d", a)
	}
}

func TestRegistryRefusesMistakes(t *testing.T) {
	tests := []struct {
		name string
		do   func()
	}{
		{"a name twice", func() { tools.NewRegistry(tools.Entry{Name: "a"}, tools.Entry{Name: "a"}) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			tt.do()
		})
	}
}

// TestEntriesIsACopy: the caller's slice is its own.
func TestEntriesIsACopy(t *testing.T) {
	r := testRegistry()
	es := r.Entries()
	es[0].Name = "changed"
	if got := r.Entries()[0].Name; got != "a" {
		t.Errorf("the registry changed to %q", got)
	}
}
