package files_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/files"
	"github.com/zero-gateway/zero/shared/files/filestest"
)

// newStore is a workspace store holding init, content by path, under "ws/".
func newStore(init map[string]string) *filestest.MemStore {
	s := filestest.NewMemStore(nil)
	for k, v := range init {
		s.Seed("ws/"+k, v)
	}
	return s
}

// content is the workspace file's content, ok=false when there is none.
func content(s *filestest.MemStore, path string) (string, bool) { return s.Content("ws/" + path) }

func TestCleanRefusesEscapes(t *testing.T) {
	tests := []struct {
		name, path string
		ok         bool
	}{
		{"plain", "notes/todo.md", true},
		{"root file", "MEMORY.md", true},
		{"dot file", ".env", true},
		{"parent", "../other/workspace/AGENTS.md", false},
		{"parent inside", "memory/../../x", false},
		{"trailing parent", "memory/..", false},
		{"current dir", "./notes.md", false},
		{"absolute", "/etc/passwd", false},
		{"backslash", `memory\..\x`, false},
		{"windows absolute", `C:\x`, false},
		{"empty", "", false},
		{"empty segment", "memory//x.md", false},
		{"trailing slash", "memory/", false},
		{"newline", "a\nb", false},
		{"nul", "a\x00b", false},
		{"invalid utf-8", "a\xffb", false},
		{"too long", strings.Repeat("a", files.MaxPathBytes+1), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := files.Clean(tt.path)
			if (err == nil) != tt.ok {
				t.Fatalf("Clean(%q) = %v; want ok %v", tt.path, err, tt.ok)
			}
			if err != nil && !fault.Is(err, fault.Invalid) {
				t.Fatalf("Clean(%q) = %v; want fault.Invalid", tt.path, err)
			}
		})
	}
}

func TestToolsRefuseEscapesAndReservedPaths(t *testing.T) {
	ctx := context.Background()
	s := files.NewSession(newStore(nil), "ws/")
	for _, p := range []string{"../x", "/x", `a\b`, ".zero/flush/m1"} {
		if _, err := s.Write(ctx, p, "x"); !fault.Is(err, fault.Invalid) {
			t.Errorf("Write(%q) = %v; want fault.Invalid", p, err)
		}
	}
	if _, err := s.Read(ctx, "../x", 0, 0); !fault.Is(err, fault.Invalid) {
		t.Errorf("Read(../x) = %v; want fault.Invalid", err)
	}
}

func TestReadWriteEdit(t *testing.T) {
	ctx := context.Background()
	st := newStore(map[string]string{"notes.md": "one\ntwo\nthree\n"})
	s := files.NewSession(st, "ws/")
	if _, err := s.Write(ctx, "notes.md", "blind"); !fault.Is(err, fault.Conflict) {
		t.Fatalf("blind overwrite = %v; want fault.Conflict (read it first)", err)
	}
	ex, err := s.Read(ctx, "notes.md", 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(files.Excerpt{Path: "notes.md", From: 2, To: 2, TotalLines: 3, Text: "two"}, ex); diff != "" {
		t.Errorf("Read (-want +got):\n%s", diff)
	}
	if _, err := s.Edit(ctx, "notes.md", "t", "T"); !fault.Is(err, fault.Invalid) {
		t.Errorf("ambiguous edit = %v; want fault.Invalid", err)
	}
	if _, err := s.Edit(ctx, "notes.md", "two", "2"); err != nil {
		t.Fatalf("Edit: %v", err)
	}
	if _, err := s.Write(ctx, "notes.md", "replaced\n"); err != nil {
		t.Fatalf("Write after own edit: %v", err)
	}
	if _, err := s.Write(ctx, "new/file.md", "fresh\n"); err != nil {
		t.Fatalf("create: %v", err)
	}
	if _, err := s.Write(ctx, "big.md", strings.Repeat("x", files.MaxFileBytes+1)); !fault.Is(err, fault.Invalid) {
		t.Errorf("oversized write = %v; want fault.Invalid", err)
	}
	for k, want := range map[string]string{"notes.md": "replaced\n", "new/file.md": "fresh\n"} {
		if got, _ := content(st, k); got != want {
			t.Errorf("%s = %q; want %q", k, got, want)
		}
	}
}

// TestTwoRunsEditOneFile: both runs read the file; the first edit wins,
// the second gets the conflict and succeeds after reading again.
func TestTwoRunsEditOneFile(t *testing.T) {
	ctx := context.Background()
	st := newStore(map[string]string{"MEMORY.md": "- likes tea\n"})
	a, b := files.NewSession(st, "ws/"), files.NewSession(st, "ws/")
	for _, s := range []*files.Session{a, b} {
		if _, err := s.Read(ctx, "MEMORY.md", 0, 0); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := a.Edit(ctx, "MEMORY.md", "tea", "green tea"); err != nil {
		t.Fatalf("run A: %v", err)
	}
	_, err := b.Edit(ctx, "MEMORY.md", "tea", "coffee")
	if !fault.Is(err, fault.Conflict) || !strings.Contains(err.Error(), "changed since you read it; read it again") {
		t.Fatalf("run B = %v; want the conflict error", err)
	}
	if _, err := b.Write(ctx, "MEMORY.md", "clobber"); !fault.Is(err, fault.Conflict) {
		t.Fatalf("run B write = %v; want the conflict error", err)
	}
	if _, err := b.Read(ctx, "MEMORY.md", 0, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Edit(ctx, "MEMORY.md", "green tea", "green tea, no sugar"); err != nil {
		t.Fatalf("run B after reading again: %v", err)
	}
	if got, _ := content(st, "MEMORY.md"); got != "- likes green tea, no sugar\n" {
		t.Errorf("MEMORY.md = %q", got)
	}
}

// TestConcurrentEditsOneWins races edits of one version at the store.
func TestConcurrentEditsOneWins(t *testing.T) {
	ctx := context.Background()
	st := newStore(map[string]string{"f.md": "x\n"})
	errs := make([]error, 8)
	var wg sync.WaitGroup
	for i := range errs {
		wg.Go(func() {
			_, errs[i] = files.NewSession(st, "ws/").Edit(ctx, "f.md", "x", fmt.Sprint("run ", i))
		})
	}
	wg.Wait()
	wins := 0
	for _, err := range errs {
		switch {
		case err == nil:
			wins++
		case !fault.Is(err, fault.Conflict) && !fault.Is(err, fault.Invalid): // Invalid: read after the winner, "x" gone
			t.Errorf("edit: %v", err)
		}
	}
	if wins != 1 {
		t.Fatalf("%d edits won; want exactly one (%v)", wins, errs)
	}
}

func TestApplyPatch(t *testing.T) {
	const start = "alpha\nbeta\ngamma\ndelta\n"
	tests := []struct {
		name      string
		patch     string
		wantErr   fault.Code
		wantFiles map[string]string // "" = absent
		wantSum   string
	}{
		{"add", "*** Begin Patch\n*** Add File: memory/new.md\n+hello\n+world\n*** End Patch",
			"", map[string]string{"memory/new.md": "hello\nworld\n"}, "A memory/new.md"},
		{"update two hunks", "*** Begin Patch\n*** Update File: f.md\n@@\n alpha\n-beta\n+BETA\n@@\n gamma\n-delta\n+DELTA\n+epsilon\n*** End Patch",
			"", map[string]string{"f.md": "alpha\nBETA\ngamma\nDELTA\nepsilon\n"}, "M f.md"},
		{"update with anchor and end of file", "*** Begin Patch\n*** Update File: f.md\n@@ gamma\n-delta\n+last\n*** End of File\n*** End Patch",
			"", map[string]string{"f.md": "alpha\nbeta\ngamma\nlast\n"}, "M f.md"},
		{"delete", "*** Begin Patch\n*** Delete File: f.md\n*** End Patch", "", map[string]string{"f.md": ""}, "D f.md"},
		{"move", "*** Begin Patch\n*** Update File: f.md\n*** Move to: g.md\n@@\n-alpha\n+ALPHA\n*** End Patch",
			"", map[string]string{"f.md": "", "g.md": "ALPHA\nbeta\ngamma\ndelta\n"}, "A g.md\nD f.md"},
		{"malformed: no begin", "*** Update File: f.md\n-beta\n*** End Patch", fault.Invalid, map[string]string{"f.md": start}, ""},
		{"malformed: bad hunk line", "*** Begin Patch\n*** Update File: f.md\n@@\n?beta\n*** End Patch", fault.Invalid, map[string]string{"f.md": start}, ""},
		{"malformed: add without +", "*** Begin Patch\n*** Add File: x.md\nhello\n*** End Patch", fault.Invalid, map[string]string{"x.md": ""}, ""},
		{"context not found changes nothing", "*** Begin Patch\n*** Add File: y.md\n+y\n*** Update File: f.md\n@@\n-zeta\n+ZETA\n*** End Patch",
			fault.Invalid, map[string]string{"f.md": start, "y.md": ""}, ""},
		{"add over an existing file", "*** Begin Patch\n*** Add File: f.md\n+x\n*** End Patch", fault.Conflict, map[string]string{"f.md": start}, ""},
		{"escape", "*** Begin Patch\n*** Add File: ../f.md\n+x\n*** End Patch", fault.Invalid, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := newStore(map[string]string{"f.md": start})
			sum, err := files.NewSession(st, "ws/").ApplyPatch(context.Background(), tt.patch)
			if tt.wantErr != "" {
				if !fault.Is(err, tt.wantErr) {
					t.Fatalf("ApplyPatch = %q, %v; want %s", sum, err, tt.wantErr)
				}
			} else if err != nil || !strings.HasSuffix(sum, "\n"+tt.wantSum) {
				t.Fatalf("ApplyPatch = %q, %v; want summary ending %q", sum, err, tt.wantSum)
			}
			for k, want := range tt.wantFiles {
				got, _ := content(st, k)
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("%s (-want +got):\n%s", k, diff)
				}
			}
		})
	}
}

func TestClaimOnce(t *testing.T) {
	ctx := context.Background()
	s := files.NewSession(newStore(nil), "ws/")
	got := []bool{}
	for range 2 {
		ok, err := s.Claim(ctx, "flush/m1")
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, ok)
	}
	if diff := cmp.Diff([]bool{true, false}, got); diff != "" {
		t.Errorf("claims (-want +got):\n%s", diff)
	}
}
