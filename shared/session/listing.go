package session

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/zero-gateway/zero/shared/fault"
)

// Lister is what a sessions listing reads (every Store is one): an
// agent's sessions by one index query, and a reserved session by key.
type Lister interface {
	Get(ctx context.Context, key string) (Entry, error)
	List(ctx context.Context, q ListQuery) ([]Listed, error)
}

// MessageReader reads the last n messages of the transcript at path,
// which has parts 1..parts, tool results left out (LastMessages over a
// PartReader, or a whole-transcript read where parts cannot be read).
type MessageReader func(ctx context.Context, path string, parts int64, n int) ([]json.RawMessage, error)

// Listing is one sessions listing: the query behind the gateway's
// sessions.list and the sessions_list tool, each of which checks its own
// arguments and shapes its own rows.
type Listing struct {
	// Agents are the agents whose sessions are listed: one List each.
	Agents []string
	// Reserved are reserved keys (KeyGlobal, KeyUnknown) listed when they
	// exist: one Get each. List never returns them.
	Reserved []string
	// ActiveSince keeps the sessions updated at or after it (epoch ms);
	// 0: any age.
	ActiveSince int64
	// Limit is the most sessions listed, 1..MaxListLimit.
	Limit int
	// Kinds keeps the sessions of these kinds (Kind); nil: every kind.
	Kinds []string
	// Keep, when set, is a further filter (a sandboxed caller's view).
	Keep func(key string, e Entry) bool
	// Keys is the key configuration kinds and transcript paths follow.
	Keys KeyConfig
	// Messages is how many of each session's last messages to read
	// (Found.Messages); 0: none.
	Messages int
	// Read reads them; required when Messages > 0.
	Read MessageReader
}

// Found is one session of a listing.
type Found struct {
	Key   string
	Entry Entry
	// Messages are its last messages when the listing asks for them ([]
	// for a session without a transcript part yet); else nil.
	Messages []json.RawMessage
}

// listingReads bounds the transcripts a listing reads at once.
const listingReads = 8

// ListSessions runs l and returns its sessions newest first (equal
// updatedAt in key order), at most l.Limit of them. Each agent is asked
// for l.Limit sessions, or MaxListLimit when sessions are filtered after
// the query (Kinds or Keep).
//
// The error rule, the same for every caller: a List, or a Get of a
// reserved key, that fails other than fault.NotFound fails the listing
// (wrapped with the agent or key; a missing reserved session is simply
// not listed). With Messages, every session's transcript is read, up to
// listingReads at once, even when one fails; the failed reads, each
// wrapped with its transcript path and joined in listing order
// (errors.Join), fail the listing. Messages without Read is a
// fault.Invalid error, before any read. A caller's answer keeps the
// fault codes and messages of the errors it wraps.
func ListSessions(ctx context.Context, store Lister, l Listing) ([]Found, error) {
	if l.Messages > 0 && l.Read == nil {
		return nil, fault.New(fault.Invalid, "this deployment has no transcript store: messageLimit cannot be served")
	}
	listed, err := l.candidates(ctx, store)
	if err != nil {
		return nil, err
	}
	found := l.filter(listed)
	if l.Messages > 0 {
		if err := l.readMessages(ctx, found); err != nil {
			return nil, err
		}
	}
	return found, nil
}

// candidates reads the sessions l may list, newest first: one List per
// agent (reserved keys dropped) and one Get per reserved key.
func (l Listing) candidates(ctx context.Context, store Lister) ([]Listed, error) {
	per := l.Limit
	if len(l.Kinds) > 0 || l.Keep != nil {
		per = MaxListLimit
	}
	var all []Listed
	for _, id := range l.Agents {
		listed, err := store.List(ctx, ListQuery{AgentID: id, ActiveSince: l.ActiveSince, Limit: per})
		if err != nil {
			return nil, fmt.Errorf("list the sessions of agent %q: %w", id, err)
		}
		all = append(all, slices.DeleteFunc(listed, func(s Listed) bool { return Reserved(s.Key) })...)
	}
	for _, key := range l.Reserved {
		e, err := store.Get(ctx, key)
		switch {
		case fault.Is(err, fault.NotFound):
		case err != nil:
			return nil, fmt.Errorf("read session %q: %w", key, err)
		case e.UpdatedAt >= l.ActiveSince:
			all = append(all, Listed{Key: key, Entry: e})
		}
	}
	slices.SortStableFunc(all, func(a, b Listed) int {
		return cmp.Or(cmp.Compare(b.Entry.UpdatedAt, a.Entry.UpdatedAt), cmp.Compare(a.Key, b.Key))
	})
	return all, nil
}

// filter keeps the sessions of the kinds asked for that Keep keeps, at
// most l.Limit.
func (l Listing) filter(listed []Listed) []Found {
	found := []Found{}
	for _, s := range listed {
		if len(l.Kinds) > 0 && !slices.Contains(l.Kinds, Kind(s.Key, l.Keys)) {
			continue
		}
		if l.Keep != nil && !l.Keep(s.Key, s.Entry) {
			continue
		}
		found = append(found, Found{Key: s.Key, Entry: s.Entry})
		if len(found) == l.Limit {
			break
		}
	}
	return found
}

// readMessages fills each session's last l.Messages messages, reading up
// to listingReads transcripts at once. A session without a transcript
// part yet costs nothing.
func (l Listing) readMessages(ctx context.Context, found []Found) error {
	var (
		wg    sync.WaitGroup
		errs  = make([]error, len(found))
		slots = make(chan struct{}, listingReads)
	)
	for i := range found {
		found[i].Messages = []json.RawMessage{}
		if found[i].Entry.TranscriptSeq == 0 {
			continue
		}
		wg.Go(func() {
			slots <- struct{}{}
			defer func() { <-slots }()
			path := TranscriptPath(found[i].Key, found[i].Entry)
			msgs, err := l.Read(ctx, path, found[i].Entry.TranscriptSeq, l.Messages)
			if err != nil {
				errs[i] = fmt.Errorf("%s: %w", path, err)
				return
			}
			found[i].Messages = msgs
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("read the sessions' messages: %w", err)
	}
	return nil
}
