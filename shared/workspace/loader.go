package workspace

import (
	"context"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/zero-gateway/zero/shared/fault"
)

// fetchConcurrency bounds the Gets one refresh runs at a time: a workspace
// with many skills loads in a few round trips instead of one per object,
// without a burst of requests.
const fetchConcurrency = 8

// Loader reads agents' workspaces from a Store and keeps each one for a
// TTL, so warm invocations make no storage calls. Safe for concurrent use:
// an agent refreshes once at a time and concurrent Loads of it wait for
// that refresh; different agents load in parallel. Set Clock and Hooks
// before first use.
type Loader struct {
	store Store
	ttl   time.Duration
	log   *slog.Logger

	// Clock replaces time.Now when set (tests).
	Clock func() time.Time
	// Hooks are the agent:bootstrap hooks, run in order on every Load.
	Hooks []BootstrapHook

	mu     sync.Mutex
	agents map[string]*agentState
}

// agentState is one agent's cached workspace.
type agentState struct {
	mu        sync.Mutex // held during a refresh
	loaded    bool
	checkedAt time.Time         // when the workspace was last listed successfully
	objects   map[string]object // by key: what was read, for the next refresh
	files     Files             // before the hooks
}

// object is a workspace object as last read.
type object struct {
	etag  string
	size  int64
	file  File  // a bootstrap file
	skill Skill // a skill, when the key is a SKILL.md
}

// NewLoader returns a Loader over store that reuses a workspace for ttl (0
// means DefaultTTL; a negative ttl lists the workspace on every Load). A
// nil log discards.
func NewLoader(store Store, ttl time.Duration, log *slog.Logger) *Loader {
	if ttl == 0 {
		ttl = DefaultTTL
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Loader{store: store, ttl: ttl, log: log, agents: map[string]*agentState{}}
}

// Load returns the agent's bootstrap files and skills, after the hooks.
//
// The first Load of an agent lists its workspace prefix once and gets each
// bootstrap file and SKILL.md (other workspace objects are never read).
// Within the TTL, Load makes no storage call. After it, Load lists again
// and gets only the objects that are new or changed when the Store is an
// ObjectLister, or every one otherwise. A missing workspace, or one without
// these files, is an empty Files, not an error; an object deleted between
// the listing and its Get is simply absent. An empty agentID is
// fault.Invalid.
//
// When a refresh fails, the workspace read before stays in use (the error
// is logged) and the refresh is tried again after the TTL; with nothing
// read before, the error is returned. A refresh applies whole or not at
// all, so a Load never mixes two versions of the workspace halfway.
func (l *Loader) Load(ctx context.Context, agentID string) (Files, error) {
	if agentID == "" {
		return Files{}, fault.New(fault.Invalid, "workspace: no agent id")
	}
	st := l.state(agentID)
	st.mu.Lock()
	now := l.now()
	if !st.loaded || l.ttl < 0 || now.Sub(st.checkedAt) >= l.ttl {
		if err := l.refresh(ctx, agentID, st); err != nil {
			if !st.loaded {
				st.mu.Unlock()
				return Files{}, err
			}
			l.log.Error("workspace: refresh failed, keeping the workspace read before", "agentId", agentID, "error", err)
		}
		st.checkedAt = now
	}
	files := Files{Bootstrap: slices.Clone(st.files.Bootstrap), Skills: slices.Clone(st.files.Skills)}
	st.mu.Unlock()

	// Hooks run outside the lock on their own copy: a slow hook does not
	// hold other Loads of the agent, and no hook can alter the cache.
	for _, hook := range l.Hooks {
		files.Bootstrap = hook(agentID, slices.Clone(files.Bootstrap))
	}
	return files, nil
}

// state returns the agent's cache entry, creating it empty.
func (l *Loader) state(agentID string) *agentState {
	l.mu.Lock()
	defer l.mu.Unlock()
	st, ok := l.agents[agentID]
	if !ok {
		st = &agentState{}
		l.agents[agentID] = st
	}
	return st
}

// refresh lists the agent's workspace and reads what changed; it leaves st
// unchanged on error.
func (l *Loader) refresh(ctx context.Context, agentID string, st *agentState) error {
	prefix := Prefix(agentID)
	listed, err := l.list(ctx, prefix)
	if err != nil {
		return err
	}

	next := make(map[string]object, len(listed))
	var stale []Object // to Get
	for _, o := range listed {
		path := o.Key[len(prefix):]
		if _, isSkill := skillFolder(path); !isSkill && !isBootstrap(path) {
			continue
		}
		// An unchanged ETag and size mean unchanged content; without an
		// ETag there is no telling, so the object is read again.
		if old, ok := st.objects[o.Key]; ok && o.ETag != "" && old.etag == o.ETag && old.size == o.Size {
			next[o.Key] = old
			continue
		}
		stale = append(stale, o)
	}

	read, err := l.getAll(ctx, stale)
	if err != nil {
		return err
	}
	for i, o := range stale {
		data := read[i]
		if data == nil {
			continue // deleted since the listing
		}
		path := o.Key[len(prefix):]
		obj := object{etag: o.ETag, size: o.Size}
		if folder, isSkill := skillFolder(path); isSkill {
			obj.skill = parseSkill(folder, path, data)
		} else {
			obj.file = File{Name: path, Content: string(data)}
		}
		next[o.Key] = obj
	}

	var files Files
	for _, name := range BootstrapFiles {
		if obj, ok := next[prefix+name]; ok {
			files.Bootstrap = append(files.Bootstrap, obj.file)
		}
	}
	keys := make([]string, 0, len(next))
	for k := range next {
		keys = append(keys, k)
	}
	slices.Sort(keys) // folder order, whatever order the Store listed in
	for _, k := range keys {
		if _, isSkill := skillFolder(k[len(prefix):]); isSkill {
			files.Skills = append(files.Skills, next[k].skill)
		}
	}

	st.objects, st.files, st.loaded = next, files, true
	return nil
}

// list lists the prefix, with ETags and sizes when the Store has them. A
// NotFound listing (a store that reports a missing prefix so) is empty.
func (l *Loader) list(ctx context.Context, prefix string) ([]Object, error) {
	var listed []Object
	if ol, ok := l.store.(ObjectLister); ok {
		objs, err := ol.ListObjects(ctx, prefix)
		if err != nil && !fault.Is(err, fault.NotFound) {
			return nil, err
		}
		listed = objs
	} else {
		keys, err := l.store.List(ctx, prefix)
		if err != nil && !fault.Is(err, fault.NotFound) {
			return nil, err
		}
		for _, k := range keys {
			listed = append(listed, Object{Key: k})
		}
	}
	// Keep only keys under the prefix: a path is cut from each key below.
	return slices.DeleteFunc(listed, func(o Object) bool {
		return len(o.Key) <= len(prefix) || o.Key[:len(prefix)] != prefix
	}), nil
}

// getAll gets the objects, fetchConcurrency at a time. The result is
// parallel to objs; a nil entry is an object that no longer exists (an
// empty object reads as a non-nil empty slice). The first other error
// fails the whole read.
func (l *Loader) getAll(ctx context.Context, objs []Object) ([][]byte, error) {
	out := make([][]byte, len(objs))
	errs := make([]error, len(objs))
	sem := make(chan struct{}, fetchConcurrency)
	var wg sync.WaitGroup
	for i, o := range objs {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			data, err := l.store.Get(ctx, o.Key)
			switch {
			case fault.Is(err, fault.NotFound):
			case err != nil:
				errs[i] = err
			case data == nil:
				out[i] = []byte{}
			default:
				out[i] = data
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (l *Loader) now() time.Time {
	if l.Clock != nil {
		return l.Clock()
	}
	return time.Now()
}
