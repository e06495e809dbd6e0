// Package configtest holds the conformance suite every config.DocumentStore
// implementation runs (shared/ssmparam's Parameter on the emulator,
// MemDocument here), and MemDocument, an in-memory stored zero.json for
// unit tests.
package configtest

import (
	"bytes"
	"context"
	"strconv"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/config"
	"github.com/zero-gateway/zero/shared/fault"
)

// Doc is one stored document, fresh for a subtest: none is stored yet.
type Doc struct {
	// Store is the implementation under test.
	Store config.DocumentStore
	// Other writes the same document as another writer would (another
	// process with a handle of its own). It never runs Store's hook.
	Other config.DocumentStore
	// BeforeWrite arms hook: Store runs it once, just before its next
	// write is applied; inside PutIfVersion that is after every check of
	// the version Store makes, so the suite lands Other's write in the
	// window of the compare-and-set.
	BeforeWrite func(hook func())
}

// The documents the suite writes: valid configurations, so the
// config.PatchStored cases can parse them.
const (
	old    = "{commands: {restart: true}}"
	ours   = "{commands: {restart: false}}"
	theirs = "{\"commands\":{\"restart\":true},\"session\":{\"dmScope\":\"main\"}}"
	patch  = "{\"session\":{\"idleMinutes\":30}}"
	// odd is a document whose bytes must survive: JSON5 comments, a
	// trailing comma, non-ASCII, tabs, blank lines and a final newline.
	odd = "// zero.json\n{\n\tcommands: {restart: true,}, // ü 😀\n\n\t\"session\": {\"mainKey\": \"mäin\"},\n}\n"
)

// TestDocumentStore checks the config.DocumentStore contract: Fetch
// answers a missing document with fault.NotFound and an unchanged document
// with an unchanged version; Put writes unconditionally; PutIfVersion
// writes only while the stored version is still the one given ("": none
// stored) and answers every lost race with fault.Conflict, leaving the
// other writer's document in place (a write is never lost). It also runs
// config.FetchStored and config.PatchStored over the store.
//
// Versions are opaque: the suite only compares them with each other.
func TestDocumentStore(t *testing.T, newDoc func(t *testing.T) Doc) {
	tests := []struct {
		name    string
		initial string // stored before the case; "" none
		// run is the call under test; v0 is the initial document's version
		// ("" when none is stored). A version it returns with a nil error
		// must be the stored document's.
		run      func(t *testing.T, ctx context.Context, d Doc, v0 string) (string, error)
		wantCode fault.Code // "" for success
		want     string     // the stored document afterwards; "" none
	}{
		{
			name: "fetch of a missing document is not found",
			run: func(_ *testing.T, ctx context.Context, d Doc, _ string) (string, error) {
				_, _, err := d.Store.Fetch(ctx)
				return "", err
			},
			wantCode: fault.NotFound,
		},
		{
			name: "FetchStored reads a missing document as {} at version \"\"",
			run: func(t *testing.T, ctx context.Context, d Doc, _ string) (string, error) {
				data, v, err := config.FetchStored(ctx, d.Store)
				if diff := cmp.Diff([]string{"{}", ""}, []string{string(data), v}); err == nil && diff != "" {
					t.Errorf("FetchStored [data version] (-want +got):\n%s", diff)
				}
				return "", err
			},
		},
		{
			name:    "fetch twice without a write: the same document at the same version",
			initial: old,
			run: func(t *testing.T, ctx context.Context, d Doc, v0 string) (string, error) {
				for range 2 {
					data, v, err := d.Store.Fetch(ctx)
					if err != nil {
						return "", err
					}
					if diff := cmp.Diff([]string{old, v0}, []string{string(data), v}); diff != "" {
						t.Errorf("Fetch [data version] (-want +got):\n%s", diff)
					}
				}
				return "", nil
			},
			want: old,
		},
		{
			name: "compare-and-set at version \"\" creates a missing document",
			run: func(_ *testing.T, ctx context.Context, d Doc, _ string) (string, error) {
				return d.Store.PutIfVersion(ctx, []byte(ours), "")
			},
			want: ours,
		},
		{
			name:    "compare-and-set at version \"\" over a stored document is a conflict",
			initial: old,
			run: func(_ *testing.T, ctx context.Context, d Doc, _ string) (string, error) {
				return d.Store.PutIfVersion(ctx, []byte(ours), "")
			},
			wantCode: fault.Conflict, want: old,
		},
		{
			name:    "compare-and-set at the current version replaces the document under a new version",
			initial: old,
			run: func(t *testing.T, ctx context.Context, d Doc, v0 string) (string, error) {
				v, err := d.Store.PutIfVersion(ctx, []byte(ours), v0)
				if err == nil && v == v0 {
					t.Errorf("the write kept version %s", v0)
				}
				return v, err
			},
			want: ours,
		},
		{
			name:    "the version a compare-and-set returned is good for the next one",
			initial: old,
			run: func(_ *testing.T, ctx context.Context, d Doc, v0 string) (string, error) {
				v, err := d.Store.PutIfVersion(ctx, []byte(theirs), v0)
				if err != nil {
					return "", err
				}
				return d.Store.PutIfVersion(ctx, []byte(ours), v)
			},
			want: ours,
		},
		{
			name:    "a write between the read and the compare-and-set makes it a conflict",
			initial: old,
			run: func(t *testing.T, ctx context.Context, d Doc, v0 string) (string, error) {
				if _, err := d.Other.Put(ctx, []byte(theirs)); err != nil {
					t.Fatalf("the other writer's Put: %v", err)
				}
				return d.Store.PutIfVersion(ctx, []byte(ours), v0)
			},
			wantCode: fault.Conflict, want: theirs,
		},
		{
			name:    "a write landing inside the compare-and-set makes it a conflict and stands",
			initial: old,
			run: func(t *testing.T, ctx context.Context, d Doc, v0 string) (string, error) {
				d.BeforeWrite(func() {
					if _, err := d.Other.Put(ctx, []byte(theirs)); err != nil {
						t.Errorf("the other writer's Put: %v", err)
					}
				})
				return d.Store.PutIfVersion(ctx, []byte(ours), v0)
			},
			wantCode: fault.Conflict, want: theirs,
		},
		{
			name: "a create landing inside a create makes it a conflict and stands",
			run: func(t *testing.T, ctx context.Context, d Doc, _ string) (string, error) {
				d.BeforeWrite(func() {
					if _, err := d.Other.PutIfVersion(ctx, []byte(theirs), ""); err != nil {
						t.Errorf("the other writer's create: %v", err)
					}
				})
				return d.Store.PutIfVersion(ctx, []byte(ours), "")
			},
			wantCode: fault.Conflict, want: theirs,
		},
		{
			name: "put creates a missing document",
			run: func(_ *testing.T, ctx context.Context, d Doc, _ string) (string, error) {
				return d.Store.Put(ctx, []byte(ours))
			},
			want: ours,
		},
		{
			name:    "put replaces a stored document under a new version",
			initial: old,
			run: func(t *testing.T, ctx context.Context, d Doc, v0 string) (string, error) {
				v, err := d.Store.Put(ctx, []byte(ours))
				if err == nil && v == v0 {
					t.Errorf("the write kept version %s", v0)
				}
				return v, err
			},
			want: ours,
		},
		{
			name:    "every write gets a version of its own",
			initial: old,
			run: func(t *testing.T, ctx context.Context, d Doc, v0 string) (string, error) {
				seen := map[string]bool{v0: true}
				var v string
				for _, doc := range []string{ours, old, ours} { // back to earlier contents
					var err error
					if v, err = d.Store.Put(ctx, []byte(doc)); err != nil {
						return "", err
					}
					if seen[v] {
						t.Errorf("version %s answered twice", v)
					}
					seen[v] = true
				}
				return v, nil
			},
			want: ours,
		},
		{
			name: "the document round-trips byte for byte",
			run: func(_ *testing.T, ctx context.Context, d Doc, _ string) (string, error) {
				return d.Store.PutIfVersion(ctx, []byte(odd), "")
			},
			want: odd,
		},
		{
			name: "PatchStored creates a missing document",
			run: func(_ *testing.T, ctx context.Context, d Doc, _ string) (string, error) {
				v, _, err := config.PatchStored(ctx, d.Store, []byte(patch))
				return v, err
			},
			want: patched(t, "{}"),
		},
		{
			name:    "PatchStored merges onto the write that won a race, keeping both changes",
			initial: old,
			run: func(t *testing.T, ctx context.Context, d Doc, _ string) (string, error) {
				d.BeforeWrite(func() {
					if _, err := d.Other.Put(ctx, []byte(theirs)); err != nil {
						t.Errorf("the other writer's Put: %v", err)
					}
				})
				v, _, err := config.PatchStored(ctx, d.Store, []byte(patch))
				return v, err
			},
			want: patched(t, theirs),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			d := newDoc(t)
			var v0 string
			if tt.initial != "" {
				var err error
				if v0, err = d.Other.Put(ctx, []byte(tt.initial)); err != nil {
					t.Fatalf("store the initial document: %v", err)
				}
			}
			v, err := tt.run(t, ctx, d, v0)
			if got := fault.CodeOf(err); err != nil && got != tt.wantCode || err == nil && tt.wantCode != "" {
				t.Fatalf("error = %v (code %q); want code %q", err, got, tt.wantCode)
			}
			data, stored, err := d.Other.Fetch(ctx)
			switch {
			case fault.Is(err, fault.NotFound):
				data = nil
			case err != nil:
				t.Fatalf("Fetch: %v", err)
			case v != "" && v != stored:
				t.Errorf("the write answered version %s; the stored document is at %s", v, stored)
			}
			if diff := cmp.Diff(tt.want, string(data)); diff != "" {
				t.Errorf("stored document (-want +got):\n%s", diff)
			}
		})
	}
}

// patched is doc with the suite's patch merged in, as PatchStored writes it.
func patched(t *testing.T, doc string) string {
	out, err := config.PatchDocument([]byte(doc), []byte(patch))
	if err != nil {
		t.Fatalf("PatchDocument: %v", err)
	}
	return string(out)
}

// MemDocument is an in-memory config.DocumentStore whose versions count
// the writes, as SSM's do ("1" is the first). Safe for concurrent use.
type MemDocument struct {
	mu      sync.Mutex
	data    []byte
	version int // 0: none stored
	hook    func()
}

var _ config.DocumentStore = (*MemDocument)(nil)

// NewMemDocument returns a store holding doc, or none when doc is nil.
func NewMemDocument(doc []byte) *MemDocument {
	m := &MemDocument{}
	if doc != nil {
		m.data, m.version = bytes.Clone(doc), 1
	}
	return m
}

// BeforeNextWrite arms hook to run once, just before the next Put or
// PutIfVersion applies its write (and before PutIfVersion checks the
// version), so a test can land another writer's write in the window of a
// compare-and-set; hook may write through m.
func (m *MemDocument) BeforeNextWrite(hook func()) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.hook = hook
}

// Fetch implements config.DocumentStore.
func (m *MemDocument) Fetch(context.Context) ([]byte, string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.version == 0 {
		return nil, "", fault.New(fault.NotFound, "no configuration document is stored")
	}
	return bytes.Clone(m.data), strconv.Itoa(m.version), nil
}

// Put implements config.DocumentStore.
func (m *MemDocument) Put(_ context.Context, data []byte) (string, error) {
	m.runHook()
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.put(data), nil
}

// PutIfVersion implements config.DocumentStore.
func (m *MemDocument) PutIfVersion(_ context.Context, data []byte, version string) (string, error) {
	m.runHook()
	m.mu.Lock()
	defer m.mu.Unlock()
	current := ""
	if m.version > 0 {
		current = strconv.Itoa(m.version)
	}
	if current != version {
		return "", fault.New(fault.Conflict, "the configuration document is at version %q, not %q; read it again and redo the change", current, version)
	}
	return m.put(data), nil
}

// runHook runs and disarms the armed hook, outside the lock.
func (m *MemDocument) runHook() {
	m.mu.Lock()
	hook := m.hook
	m.hook = nil
	m.mu.Unlock()
	if hook != nil {
		hook()
	}
}

// put stores data under the next version; m.mu is held.
func (m *MemDocument) put(data []byte) string {
	m.data = bytes.Clone(data)
	m.version++
	return strconv.Itoa(m.version)
}
