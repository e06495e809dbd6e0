package files

import (
	"context"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/zero-gateway/zero/shared/fault"
)

// Session is one run's access to one workspace. It remembers the ETag of
// each file the run read or wrote; writes are conditional on it. Safe for
// concurrent use.
type Session struct {
	store  Store
	prefix string // the workspace's key prefix, ending in "/"

	mu   sync.Mutex
	seen map[string]string // path -> ETag the run last saw
}

// NewSession returns a run's view of the workspace at prefix (for example
// workspace.Prefix(agentID)).
func NewSession(store Store, prefix string) *Session {
	return &Session{store: store, prefix: prefix, seen: map[string]string{}}
}

// Excerpt is what Read returns: lines From..To (1-based) of a file.
type Excerpt struct {
	Path       string
	From, To   int
	TotalLines int
	Text       string
	Truncated  bool // cut at MaxReadBytes before To reached the limit
}

// Written reports a write: the path and its new size.
type Written struct {
	Path    string
	Bytes   int
	Created bool
}

func (s *Session) remember(path, etag string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if etag == "" {
		delete(s.seen, path)
		return
	}
	s.seen[path] = etag
}

func (s *Session) lastSeen(path string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	etag, ok := s.seen[path]
	return etag, ok
}

// fetch reads path and checks it against the ETag the run saw, if any: a
// file changed or deleted since is a conflict.
func (s *Session) fetch(ctx context.Context, path string) (Object, error) {
	obj, err := s.store.Fetch(ctx, s.prefix+path)
	seen, ok := s.lastSeen(path)
	switch {
	case fault.Is(err, fault.NotFound) && ok:
		return Object{}, fault.Wrap(fault.Conflict, err, "%s was deleted since you read it; read it again", path)
	case fault.Is(err, fault.NotFound):
		return Object{}, notFound(path, err)
	case err != nil:
		return Object{}, describe(err, "read %s", path)
	case ok && seen != obj.ETag:
		return Object{}, changed(path, nil)
	case len(obj.Data) > MaxFileBytes:
		return Object{}, fault.New(fault.Invalid, "%s is %d bytes, over the %d-byte limit of the file tools", path, len(obj.Data), MaxFileBytes)
	}
	return obj, nil
}

// Read returns limit lines of path from line offset (1-based; 0 means 1,
// a limit of 0 DefaultReadLines), stopping at the last whole line within
// MaxReadBytes. It records the file's ETag for later writes.
func (s *Session) Read(ctx context.Context, path string, offset, limit int) (Excerpt, error) {
	p, err := Clean(path)
	if err != nil {
		return Excerpt{}, err
	}
	obj, err := s.store.Fetch(ctx, s.prefix+p)
	switch {
	case fault.Is(err, fault.NotFound):
		return Excerpt{}, notFound(p, err)
	case err != nil:
		return Excerpt{}, describe(err, "read %s", p)
	case len(obj.Data) > MaxFileBytes:
		return Excerpt{}, fault.New(fault.Invalid, "%s is %d bytes, over the %d-byte limit of the file tools", p, len(obj.Data), MaxFileBytes)
	case !utf8.Valid(obj.Data):
		return Excerpt{}, fault.New(fault.Invalid, "%s is not UTF-8 text", p)
	}
	s.remember(p, obj.ETag)
	return excerpt(p, string(obj.Data), max(offset, 1), limit), nil
}

// excerpt cuts lines from..from+limit-1 of content, within MaxReadBytes.
func excerpt(path, content string, from, limit int) Excerpt {
	if limit <= 0 {
		limit = DefaultReadLines
	}
	lines := splitLines(content)
	ex := Excerpt{Path: path, From: from, TotalLines: len(lines), To: from - 1}
	var b strings.Builder
	for i := from - 1; i >= 0 && i < len(lines) && i < from-1+limit; i++ {
		if b.Len()+len(lines[i])+1 > MaxReadBytes && b.Len() > 0 {
			ex.Truncated = true
			break
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(lines[i])
		ex.To = i + 1
	}
	ex.Text = b.String()
	return ex
}

// splitLines returns content's lines without their newlines; a final
// newline does not start another line.
func splitLines(content string) []string {
	if content == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(content, "\n"), "\n")
}

// Write stores content at path: a new file is created (If-None-Match: *);
// an existing one is replaced only if the run read it and it has not
// changed since (If-Match). An existing file the run never read is a
// conflict: read it first.
func (s *Session) Write(ctx context.Context, path, content string) (Written, error) {
	p, err := writable(path)
	if err != nil {
		return Written{}, err
	}
	if len(content) > MaxFileBytes {
		return Written{}, tooLarge(p, len(content))
	}
	seen, _ := s.lastSeen(p)
	if err := s.put(ctx, p, []byte(content), seen); err != nil {
		return Written{}, err
	}
	return Written{Path: p, Bytes: len(content), Created: seen == ""}, nil
}

// put writes data conditionally (ifMatch "" creates) and remembers the new
// ETag; a failed condition is the conflict the model can act on.
func (s *Session) put(ctx context.Context, path string, data []byte, ifMatch string) error {
	etag, err := s.store.Put(ctx, s.prefix+path, data, ifMatch)
	switch {
	case fault.Is(err, fault.Conflict) && ifMatch == "":
		return fault.Wrap(fault.Conflict, err, "%s already exists and you have not read it; read it first, then write it", path)
	case fault.Is(err, fault.Conflict):
		return changed(path, err)
	case err != nil:
		return describe(err, "write %s", path)
	}
	s.remember(path, etag)
	return nil
}

// Edit replaces the one occurrence of oldText in path with newText. No
// occurrence, or more than one, is an error that changes nothing; so is a
// file changed since the run read it. The write is If-Match the version
// edited.
func (s *Session) Edit(ctx context.Context, path, oldText, newText string) (Written, error) {
	p, err := writable(path)
	if err != nil {
		return Written{}, err
	}
	if oldText == "" {
		return Written{}, fault.New(fault.Invalid, "oldText is empty; give the exact text to replace")
	}
	obj, err := s.fetch(ctx, p)
	if err != nil {
		return Written{}, err
	}
	content := string(obj.Data)
	switch n := strings.Count(content, oldText); {
	case n == 0:
		return Written{}, fault.New(fault.Invalid, "oldText was not found in %s; it must match exactly, whitespace included (read the file again)", p)
	case n > 1:
		return Written{}, fault.New(fault.Invalid, "oldText occurs %d times in %s; include more surrounding text so it matches once", n, p)
	}
	updated := strings.Replace(content, oldText, newText, 1)
	if len(updated) > MaxFileBytes {
		return Written{}, tooLarge(p, len(updated))
	}
	if err := s.put(ctx, p, []byte(updated), obj.ETag); err != nil {
		return Written{}, err
	}
	return Written{Path: p, Bytes: len(updated)}, nil
}

// Claim creates the empty marker ReservedDir+name once: true when this
// call created it, false when it already existed. The memory flush uses it
// to run at most once per message across retries.
func (s *Session) Claim(ctx context.Context, name string) (bool, error) {
	p, err := Clean(ReservedDir + name)
	if err != nil {
		return false, err
	}
	_, err = s.store.Put(ctx, s.prefix+p, []byte{}, "")
	switch {
	case fault.Is(err, fault.Conflict):
		return false, nil
	case err != nil:
		return false, describe(err, "claim %s", p)
	}
	return true, nil
}
