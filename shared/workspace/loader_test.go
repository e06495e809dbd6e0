package workspace

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/zero-gateway/zero/shared/fault"
)

// names returns the names of files, for comparisons.
func names(files []File) []string {
	var out []string
	for _, f := range files {
		out = append(out, f.Name)
	}
	return out
}

func TestLoaderReadsTheWorkspace(t *testing.T) {
	ctx := context.Background()
	p := Prefix("main")
	tests := []struct {
		name       string
		setup      func(s *memStore)
		agentID    string
		wantFiles  []string
		wantSkills []Skill
		wantGets   int
		wantErr    fault.Code
	}{
		{
			name:     "missing workspace is empty",
			setup:    func(*memStore) {},
			agentID:  "main",
			wantGets: 0,
		},
		{
			name: "bootstrap files come in prompt order; other files are never read",
			setup: func(s *memStore) {
				s.put(p+"MEMORY.md", "remember")
				s.put(p+"AGENTS.md", "rules")
				s.put(p+"SOUL.md", "soul")
				s.put(p+"notes.txt", "x")
				s.put(p+"memory/2026-01-01.md", "x")
				s.put(p+"agents.md", "wrong case")
				s.put(Prefix("other")+"USER.md", "another agent's")
				s.put(Prefix("main2")+"USER.md", "a longer agent id sharing the prefix text")
			},
			agentID:   "main",
			wantFiles: []string{"AGENTS.md", "SOUL.md", "MEMORY.md"},
			wantGets:  3,
		},
		{
			name: "skills: front matter, folder name, nested folders ignored",
			setup: func(s *memStore) {
				s.put(p+"skills/b-weather/SKILL.md", "---\nname: weather\ndescription: Forecasts.\n---\nbody")
				s.put(p+"skills/a-notes/SKILL.md", "# Notes\n")
				s.put(p+"skills/x/y/SKILL.md", "---\nname: deep\n---\n")
				s.put(p+"skills/c/README.md", "not a skill file")
				s.put(p+"skills/SKILL.md", "no folder")
			},
			agentID: "main",
			wantSkills: []Skill{
				{Name: "a-notes", Path: "skills/a-notes/SKILL.md"},
				{Name: "weather", Description: "Forecasts.", Path: "skills/b-weather/SKILL.md"},
			},
			wantGets: 2,
		},
		{
			name: "an object deleted between list and get is absent",
			setup: func(s *memStore) {
				s.put(p+"AGENTS.md", "rules")
				s.ghosts[p+"SOUL.md"] = true
				s.ghosts[p+"skills/gone/SKILL.md"] = true
			},
			agentID:   "main",
			wantFiles: []string{"AGENTS.md"},
			wantGets:  3,
		},
		{
			name:    "a list that says not found is an empty workspace",
			setup:   func(s *memStore) { s.fail(fault.New(fault.NotFound, "no such prefix"), nil) },
			agentID: "main",
		},
		{
			name:    "a list failure is returned with its class",
			setup:   func(s *memStore) { s.fail(fault.New(fault.Unavailable, "503"), nil) },
			agentID: "main",
			wantErr: fault.Unavailable,
		},
		{
			name: "a get failure is returned with its class",
			setup: func(s *memStore) {
				s.put(p+"AGENTS.md", "rules")
				s.fail(nil, fault.New(fault.Unauthorized, "denied"))
			},
			agentID:  "main",
			wantGets: 1,
			wantErr:  fault.Unauthorized,
		},
		{
			name:    "no agent id is invalid",
			setup:   func(*memStore) {},
			agentID: "",
			wantErr: fault.Invalid,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newMemStore()
			tt.setup(s)
			files, err := NewLoader(s, 0, nil).Load(ctx, tt.agentID)
			if tt.wantErr != "" {
				if !fault.Is(err, tt.wantErr) {
					t.Fatalf("Load error = %v; want class %s", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			if got := names(files.Bootstrap); !slices.Equal(got, tt.wantFiles) {
				t.Errorf("bootstrap files = %v; want %v", got, tt.wantFiles)
			}
			if !slices.Equal(files.Skills, tt.wantSkills) {
				t.Errorf("skills = %+v; want %+v", files.Skills, tt.wantSkills)
			}
			if lists, gets := s.calls(); lists != 1 || gets != tt.wantGets {
				t.Errorf("calls = %d lists, %d gets; want 1, %d", lists, gets, tt.wantGets)
			}
		})
	}
}

func TestLoaderContentIsKeptAsStored(t *testing.T) {
	s := newMemStore()
	loadDir(t, s, "testdata/workspace", Prefix("main"))
	files, err := NewLoader(s, 0, nil).Load(context.Background(), "main")
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if got, want := names(files.Bootstrap), []string{"AGENTS.md", "SOUL.md", "USER.md", "HEARTBEAT.md"}; !slices.Equal(got, want) {
		t.Fatalf("bootstrap files = %v; want %v", got, want)
	}
	if got := files.Bootstrap[1].Content; got != "# Soul\n\nWarm, direct, a little dry. No filler, no flattery.\n" {
		t.Errorf("SOUL.md content = %q", got)
	}
	want := []Skill{
		{Name: "notes", Path: "skills/notes/SKILL.md"},
		{Name: "weather", Description: "Current weather and forecasts for any city, without an API key.", Path: "skills/weather/SKILL.md"},
	}
	if !slices.Equal(files.Skills, want) {
		t.Errorf("skills = %+v; want %+v", files.Skills, want)
	}
}

// TestLoaderCache walks a workspace through edits and clock moves and
// counts the storage calls of each Load.
func TestLoaderCache(t *testing.T) {
	p := Prefix("main")
	type step struct {
		name      string
		before    func(s *memStore, c *fakeClock)
		wantLists int
		wantGets  int
		wantFiles []string
		wantSoul  string // SOUL.md content, when present
		wantErr   bool
	}
	tests := []struct {
		name  string
		etags bool // the store lists ETags and sizes
		ttl   time.Duration
		steps []step
	}{
		{
			name: "plain store re-gets every file once per TTL",
			steps: []step{
				{name: "cold", wantLists: 1, wantGets: 3, wantFiles: []string{"AGENTS.md", "SOUL.md"}, wantSoul: "v1"},
				{name: "warm within TTL", before: func(_ *memStore, c *fakeClock) { c.advance(59 * time.Second) }, wantFiles: []string{"AGENTS.md", "SOUL.md"}, wantSoul: "v1"},
				{name: "edit inside the TTL is not seen yet", before: func(s *memStore, _ *fakeClock) { s.put(p+"SOUL.md", "v2") }, wantFiles: []string{"AGENTS.md", "SOUL.md"}, wantSoul: "v1"},
				{name: "after the TTL everything is read again", before: func(_ *memStore, c *fakeClock) { c.advance(time.Second) }, wantLists: 1, wantGets: 3, wantFiles: []string{"AGENTS.md", "SOUL.md"}, wantSoul: "v2"},
				{name: "warm again", before: func(_ *memStore, c *fakeClock) { c.advance(30 * time.Second) }, wantFiles: []string{"AGENTS.md", "SOUL.md"}, wantSoul: "v2"},
			},
		},
		{
			name:  "ETag store gets only what changed",
			etags: true,
			steps: []step{
				{name: "cold", wantLists: 1, wantGets: 3, wantFiles: []string{"AGENTS.md", "SOUL.md"}, wantSoul: "v1"},
				{name: "warm within TTL", before: func(_ *memStore, c *fakeClock) { c.advance(time.Second) }, wantFiles: []string{"AGENTS.md", "SOUL.md"}, wantSoul: "v1"},
				{name: "unchanged after the TTL: a list, no get", before: func(_ *memStore, c *fakeClock) { c.advance(time.Minute) }, wantLists: 1, wantFiles: []string{"AGENTS.md", "SOUL.md"}, wantSoul: "v1"},
				{name: "one edit: one get", before: func(s *memStore, c *fakeClock) { s.put(p+"SOUL.md", "v2"); c.advance(time.Minute) }, wantLists: 1, wantGets: 1, wantFiles: []string{"AGENTS.md", "SOUL.md"}, wantSoul: "v2"},
				{name: "a new file: one get", before: func(s *memStore, c *fakeClock) { s.put(p+"USER.md", "Ana"); c.advance(time.Minute) }, wantLists: 1, wantGets: 1, wantFiles: []string{"AGENTS.md", "SOUL.md", "USER.md"}, wantSoul: "v2"},
				{name: "a deleted file goes, no get", before: func(s *memStore, c *fakeClock) { s.remove(p + "AGENTS.md"); c.advance(time.Minute) }, wantLists: 1, wantFiles: []string{"SOUL.md", "USER.md"}, wantSoul: "v2"},
			},
		},
		{
			name: "a failed refresh keeps the workspace read before, until the TTL",
			steps: []step{
				{name: "cold", wantLists: 1, wantGets: 3, wantFiles: []string{"AGENTS.md", "SOUL.md"}, wantSoul: "v1"},
				{
					name: "list fails after the TTL: old files, no error",
					before: func(s *memStore, c *fakeClock) {
						s.fail(fault.New(fault.Unavailable, "503"), nil)
						s.put(p+"SOUL.md", "v2")
						c.advance(time.Minute)
					},
					wantLists: 1, wantFiles: []string{"AGENTS.md", "SOUL.md"}, wantSoul: "v1",
				},
				{name: "no retry within the TTL", before: func(_ *memStore, c *fakeClock) { c.advance(time.Second) }, wantFiles: []string{"AGENTS.md", "SOUL.md"}, wantSoul: "v1"},
				{
					name:      "a get fails: the refresh applies not at all",
					before:    func(s *memStore, c *fakeClock) { s.fail(nil, errors.New("boom")); c.advance(time.Minute) },
					wantLists: 1, wantGets: 3, wantFiles: []string{"AGENTS.md", "SOUL.md"}, wantSoul: "v1",
				},
				{name: "healed", before: func(s *memStore, c *fakeClock) { s.fail(nil, nil); c.advance(time.Minute) }, wantLists: 1, wantGets: 3, wantFiles: []string{"AGENTS.md", "SOUL.md"}, wantSoul: "v2"},
			},
		},
		{
			name: "a first load that fails is an error and is retried at once",
			steps: []step{
				{name: "fails", before: func(s *memStore, _ *fakeClock) { s.fail(fault.New(fault.Unavailable, "503"), nil) }, wantLists: 1, wantErr: true},
				{name: "retried", before: func(s *memStore, _ *fakeClock) { s.fail(nil, nil) }, wantLists: 1, wantGets: 3, wantFiles: []string{"AGENTS.md", "SOUL.md"}, wantSoul: "v1"},
			},
		},
		{
			name: "a negative TTL lists on every load",
			ttl:  -1,
			steps: []step{
				{name: "cold", wantLists: 1, wantGets: 3, wantFiles: []string{"AGENTS.md", "SOUL.md"}, wantSoul: "v1"},
				{name: "again", wantLists: 1, wantGets: 3, wantFiles: []string{"AGENTS.md", "SOUL.md"}, wantSoul: "v1"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mem := newMemStore()
			mem.put(p+"AGENTS.md", "rules")
			mem.put(p+"SOUL.md", "v1")
			mem.put(p+"skills/weather/SKILL.md", "---\nname: weather\n---\n")
			var store Store = mem
			if tt.etags {
				store = etagStore{mem}
			}
			clock := newFakeClock()
			l := NewLoader(store, tt.ttl, nil)
			l.Clock = clock.Now
			for _, st := range tt.steps {
				if st.before != nil {
					st.before(mem, clock)
				}
				files, err := l.Load(context.Background(), "main")
				lists, gets := mem.calls()
				if lists != st.wantLists || gets != st.wantGets {
					t.Errorf("%s: calls = %d lists, %d gets; want %d, %d", st.name, lists, gets, st.wantLists, st.wantGets)
				}
				if st.wantErr {
					if err == nil {
						t.Errorf("%s: Load succeeded; want an error", st.name)
					}
					continue
				}
				if err != nil {
					t.Fatalf("%s: Load: %v", st.name, err)
				}
				if got := names(files.Bootstrap); !slices.Equal(got, st.wantFiles) {
					t.Errorf("%s: files = %v; want %v", st.name, got, st.wantFiles)
				}
				for _, f := range files.Bootstrap {
					if f.Name == SoulFile && f.Content != st.wantSoul {
						t.Errorf("%s: SOUL.md = %q; want %q", st.name, f.Content, st.wantSoul)
					}
				}
				if len(files.Skills) != 1 {
					t.Errorf("%s: skills = %+v; want weather", st.name, files.Skills)
				}
			}
		})
	}
}

func TestLoaderBootstrapHooks(t *testing.T) {
	p := Prefix("main")
	tests := []struct {
		name  string
		hooks []BootstrapHook
		want  []File
	}{
		{
			name: "no hooks",
			want: []File{{Name: "AGENTS.md", Content: "rules"}, {Name: "SOUL.md", Content: "soul"}},
		},
		{
			name: "add a file",
			hooks: []BootstrapHook{func(agentID string, files []File) []File {
				return append(files, File{Name: "CALLS.md", Content: "calls of " + agentID})
			}},
			want: []File{{Name: "AGENTS.md", Content: "rules"}, {Name: "SOUL.md", Content: "soul"}, {Name: "CALLS.md", Content: "calls of main"}},
		},
		{
			name: "remove a file",
			hooks: []BootstrapHook{func(_ string, files []File) []File {
				return slices.DeleteFunc(files, func(f File) bool { return f.Name == SoulFile })
			}},
			want: []File{{Name: "AGENTS.md", Content: "rules"}},
		},
		{
			name: "hooks run in order, each on the previous result",
			hooks: []BootstrapHook{
				func(_ string, files []File) []File { return append(files, File{Name: "A.md", Content: "a"}) },
				func(_ string, files []File) []File {
					return slices.DeleteFunc(files, func(f File) bool { return f.Name == AgentsFile })
				},
			},
			want: []File{{Name: "SOUL.md", Content: "soul"}, {Name: "A.md", Content: "a"}},
		},
		{
			name: "a hook that rewrites in place does not reach the cache",
			hooks: []BootstrapHook{func(_ string, files []File) []File {
				for i := range files {
					files[i].Content += "!"
				}
				return files
			}},
			// Each Load starts from the stored content: one "!", never "!!".
			want: []File{{Name: "AGENTS.md", Content: "rules!"}, {Name: "SOUL.md", Content: "soul!"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newMemStore()
			s.put(p+"AGENTS.md", "rules")
			s.put(p+"SOUL.md", "soul")
			l := NewLoader(s, 0, nil)
			l.Hooks = tt.hooks
			for _, load := range []string{"cold", "warm"} {
				files, err := l.Load(context.Background(), "main")
				if err != nil {
					t.Fatalf("%s Load: %v", load, err)
				}
				if !slices.Equal(files.Bootstrap, tt.want) {
					t.Errorf("%s Load: files = %+v; want %+v", load, files.Bootstrap, tt.want)
				}
			}
			if lists, gets := s.calls(); lists != 1 || gets != 2 {
				t.Errorf("calls = %d lists, %d gets; want 1, 2 (hooks rerun on the cached files)", lists, gets)
			}
		})
	}
}

func TestLoaderConcurrentColdLoadsReadOnce(t *testing.T) {
	s := newMemStore()
	for _, agent := range []string{"a", "b"} {
		s.put(Prefix(agent)+"AGENTS.md", "rules of "+agent)
		for i := range 20 {
			s.put(fmt.Sprintf("%sskills/s%02d/SKILL.md", Prefix(agent), i), "---\nname: s\n---\n")
		}
	}
	l := NewLoader(s, 0, nil)
	var wg sync.WaitGroup
	for i := range 16 {
		agent := []string{"a", "b"}[i%2]
		wg.Go(func() {
			files, err := l.Load(context.Background(), agent)
			if err != nil || len(files.Bootstrap) != 1 || files.Bootstrap[0].Content != "rules of "+agent || len(files.Skills) != 20 {
				t.Errorf("Load(%s) = %d files, %d skills, %v", agent, len(files.Bootstrap), len(files.Skills), err)
			}
		})
	}
	wg.Wait()
	if lists, gets := s.calls(); lists != 2 || gets != 42 {
		t.Errorf("calls = %d lists, %d gets; want 2, 42 (one cold load per agent)", lists, gets)
	}
}
