package upstream

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/zero-gateway/zero/shared/compaction"
	"github.com/zero-gateway/zero/shared/contextstore"
	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/session"
	"github.com/zero-gateway/zero/shared/sessionstate"
	"github.com/zero-gateway/zero/shared/transcript"
)

// Sessions is the session table as an import writes it. Implementation:
// shared/dynamo.Store.
type Sessions interface {
	// Get returns the entry of key; a missing one is fault.NotFound.
	Get(ctx context.Context, key string) (session.Entry, error)
	// PutImported writes e and its context c under key, all or nothing,
	// only if key's entry is still prev (nil: absent), at prev.Version+1.
	PutImported(ctx context.Context, key string, prev *session.Entry, e session.Entry, c sessionstate.ModelContext) error
}

// Outcome is what Import did (or, dry, would do) with one session.
type Outcome int

const (
	Imported Outcome = iota + 1 // the key had no entry, or an older other session was replaced
	Extended                    // the same session: its transcript grew or its entry is newer
	Kept                        // nothing written: already imported, or the stored session is newer
)

func (o Outcome) String() string {
	return map[Outcome]string{Imported: "imported", Extended: "extended", Kept: "kept"}[o]
}

// Result is what Import did with one session, for the summary.
type Result struct {
	Outcome Outcome
	Why     string // for Kept, and for an Imported that replaced a session
	Bytes   int    // transcript bytes written
	// Read is the number of messages in the imported transcript; Written
	// the number written now (all of them for Imported, the new ones for
	// Extended, none for Kept); Stored the number in the stored transcript
	// after the import, read back (dry run: what it would hold).
	Read, Written, Stored int
}

// Importer moves upstream sessions into ZERO's table and bucket.
type Importer struct {
	Sessions Sessions
	Bucket   transcript.Bucket // where transcript parts go (Log's layout)
	DryRun   bool              // read and decide, write nothing
}

// Import imports one session and returns what it did. The rules: an
// entry under the same key with another sessionId is replaced only when
// the import's updatedAt is newer; the transcript at the session's path
// (session.TranscriptPath) is written only when what is stored there is a
// prefix of the import's (the rest goes in as one new part), so two
// transcripts never interleave; the entry gets ZERO's transcript position
// and its context rebuilt from the transcript (compaction.ContextOf, from
// its last compaction), written together. A second import of the same
// item is Kept. When the entry write fails, the part just written is
// removed: nothing is left half-written. After a write the transcript is
// read back: a stored transcript that does not hold every imported
// message is an error.
//
// Errors: an item whose key names another agent than the store it was
// read from (agent:<other>:...) is fault.Invalid, before anything is read
// or written (the caller reports it as skipped); a stored transcript that
// diverges from the import's, or an entry changed by a turn meanwhile, is
// fault.Conflict (nothing of it is written; run the import again).
func (im *Importer) Import(ctx context.Context, it Item) (Result, error) {
	if err := it.ownKey(); err != nil {
		return Result{}, err
	}
	read := it.Transcript.Messages
	var prev *session.Entry
	stored, err := im.Sessions.Get(ctx, it.Key)
	switch {
	case fault.Is(err, fault.NotFound):
	case err != nil:
		return Result{}, fmt.Errorf("read session %s: %w", it.Key, err)
	default:
		prev = &stored
		if stored.SessionID != it.Entry.SessionID && it.Entry.UpdatedAt <= stored.UpdatedAt {
			return Result{Outcome: Kept, Why: "the stored session " + stored.SessionID + " is newer", Read: read}, nil
		}
	}
	same := prev != nil && prev.SessionID == it.Entry.SessionID
	path := session.TranscriptPath(it.Key, it.Entry)
	parts, have, err := im.stored(ctx, path)
	if err != nil {
		return Result{}, err
	}
	stream := it.Transcript.Stream
	switch {
	case bytes.HasPrefix(stream, have):
	case same && bytes.HasPrefix(have, stream):
		return Result{Outcome: Kept, Why: "ZERO's turns went on past the import", Read: read, Stored: CountMessages(have)}, nil
	default:
		return Result{}, fault.New(fault.Conflict, "transcript %s: the stored one is not a prefix of the import's; not interleaving them", path)
	}
	add := stream[len(have):]
	if same && len(add) == 0 && it.Entry.UpdatedAt <= stored.UpdatedAt {
		return Result{Outcome: Kept, Why: "already imported", Read: read, Stored: read}, nil
	}
	e := im.entry(it, prev, int64(parts))
	if len(add) > 0 {
		e.TranscriptSeq++
	}
	res := Result{Outcome: Imported, Bytes: len(add), Read: read, Written: CountMessages(add), Stored: read}
	switch {
	case same:
		res.Outcome = Extended
	case prev != nil:
		res.Why = "replaced the older session " + prev.SessionID
	}
	if im.DryRun {
		return res, nil
	}
	if err := im.write(ctx, it.Key, prev, e, path, add, stream); err != nil {
		return Result{}, err
	}
	return im.check(ctx, path, res)
}

// check reads the transcript at path back and counts its messages into
// res: fewer than the import read is an error, never a quiet gap.
func (im *Importer) check(ctx context.Context, path string, res Result) (Result, error) {
	back, err := transcript.NewLog(im.Bucket).Read(ctx, path)
	if err != nil {
		return Result{}, fmt.Errorf("read back transcript %s: %w", path, err)
	}
	if res.Stored = CountMessages(back); res.Stored != res.Read {
		return res, fmt.Errorf("transcript %s holds %d messages after the import, the upstream one %d", path, res.Stored, res.Read)
	}
	return res, nil
}

// ownKey refuses an item of agent A's store whose key names agent B:
// importing it would write into B's sessions (and under A's transcript
// folder) on the word of A's store. Keys that name no agent (cron:,
// hook:, the reserved keys) belong to the store they are in.
func (it Item) ownKey() error {
	if !strings.HasPrefix(it.Key, "agent:") {
		return nil
	}
	if other := session.AgentOf(it.Key); other != it.AgentID {
		return fault.New(fault.Invalid, "the key names agent %q, but it is in agent %q's store; not imported (import it from agent %s's own store)", other, it.AgentID, other)
	}
	return nil
}

// entry is the entry to store for it over prev: the import's fields (the
// stored ones when the same session is stored newer), ZERO's position in
// a transcript of parts parts, the next version.
func (im *Importer) entry(it Item, prev *session.Entry, parts int64) session.Entry {
	e := it.Entry
	if prev != nil && prev.SessionID == e.SessionID && prev.UpdatedAt >= e.UpdatedAt {
		e = *prev
	}
	e.AgentID = it.AgentID
	e.TranscriptSeq = parts
	e.LastEntryID = it.Transcript.LastID
	e.Version = 1
	if prev != nil {
		e.Version = prev.Version + 1
		e.UpdatedAt = max(e.UpdatedAt, prev.UpdatedAt)
	}
	return e
}

// stored returns the number of parts and the transcript stored at path.
func (im *Importer) stored(ctx context.Context, path string) (int, []byte, error) {
	keys, err := im.Bucket.List(ctx, path+".d/")
	if err != nil {
		return 0, nil, fmt.Errorf("list transcript %s: %w", path, err)
	}
	have, err := transcript.NewLog(im.Bucket).Read(ctx, path)
	if err != nil {
		return 0, nil, fmt.Errorf("read transcript %s: %w", path, err)
	}
	return len(keys), have, nil
}

// write stores add as part e.TranscriptSeq (when not empty), then the
// entry and its context; a failed entry write removes that part again.
func (im *Importer) write(ctx context.Context, key string, prev *session.Entry, e session.Entry, path string, add, stream []byte) error {
	log := transcript.NewLog(im.Bucket)
	if len(add) > 0 {
		var lines []any
		for _, l := range bytes.Split(bytes.TrimSuffix(add, []byte("\n")), []byte("\n")) {
			lines = append(lines, json.RawMessage(l))
		}
		if err := log.WritePart(ctx, path, e.TranscriptSeq, lines); err != nil {
			return fmt.Errorf("write transcript part %d of %s: %w", e.TranscriptSeq, path, err)
		}
	}
	msgs := compaction.ContextOf(stream)
	split, err := contextstore.New(im.Bucket).Fold(ctx, contextstore.Folder(e.AgentID, e.SessionID), contextstore.Split{}, msgs)
	if err != nil {
		return fmt.Errorf("store the context of %s: %w", key, err)
	}
	c := sessionstate.ModelContext{SessionID: e.SessionID, Base: split.Base, BaseLen: split.BaseLen, Messages: split.Tail}
	err = im.Sessions.PutImported(ctx, key, prev, e, c)
	if err == nil {
		return nil
	}

	if r, ok := im.Bucket.(transcript.Remover); ok && len(add) > 0 {
		if rerr := r.Remove(ctx, transcript.PartKey(path, e.TranscriptSeq)); rerr != nil {
			return fmt.Errorf("write session %s: %w (and removing its new transcript part failed: %v)", key, err, rerr)
		}
	}
	return fmt.Errorf("write session %s: %w", key, err)
}
