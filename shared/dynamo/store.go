// Package dynamo is the DynamoDB implementation of turn.Store (with
// turn.Mover, Committer, Stops and Failures) and session.Store (with
// session.Deleter). It satisfies the engine's ports structurally, with the
// domain types (sessionstate, receipt, stopmark, outbox, run): it does not
// import shared/turn, and functions/runner asserts the fit at compile time.
//
// One table, keys pk (S, HASH) and sk (S, RANGE), TTL attribute ttl (epoch
// seconds), as template.yaml declares it. Per session key it keeps two items
// and per inbound message one (see item.go for the layout):
//
//	pk "session#<key>"  sk "entry"    the session.Entry, fields named as its JSON tags
//	pk "session#<key>"  sk "context"  the sessionstate.ModelContext: its inline messages as one JSON string, its base object's key and length
//	pk "msg#<id>"       sk "record"   the receipt.Receipt, with ttl = commit time + RecordTTL
//
// A sub-agent session's entry and context carry ttl = its
// session.Entry.ArchiveAt (agents.defaults.subagents.archiveAfterMinutes
// after its last turn): DynamoDB's TTL archives it, and every reader treats
// an entry (or context) whose ttl has passed as absent meanwhile.
//
// Two global secondary indexes, both sparse because only entry items carry
// their key attributes: byAgent (agentId, updatedAt; all attributes) serves
// List, bySessionId (sessionId; keys only) serves Lookup. Nothing scans.
//
// Calls per method in the normal case: Load one BatchGetItem (repeated only
// for keys DynamoDB reports unprocessed); Commit, CommitWith (with the
// run's outcome and the stop check; more than 96 events or 1 MB of them add
// BatchWriteItem calls), Move and Delete one TransactWriteItems; Finish and Progress one UpdateItem; Get one GetItem;
// Lookup one Query and one GetItem; List one Query; Update one GetItem and
// one PutItem, plus one PutItem per lost version race. Reads of the base
// table are strongly consistent; Lookup and List read eventually
// consistent indexes (Lookup then checks the entry with a consistent read).
//
// Errors are classified with shared/fault: a failed condition is
// fault.Conflict, throttling, 5xx and network failures fault.Unavailable,
// rejected input fault.Invalid, a missing record on Finish or entry on
// Get, Lookup and Update fault.NotFound, a missing table fault.Internal.
package dynamo

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/receipt"
	"github.com/zero-gateway/zero/shared/run"
	"github.com/zero-gateway/zero/shared/session"
	"github.com/zero-gateway/zero/shared/sessionstate"
	"github.com/zero-gateway/zero/shared/stopmark"
)

// RecordTTL is how long an idempotency record is kept. Reads treat a record
// past its ttl as absent, since DynamoDB deletes expired items lazily.
const RecordTTL = 30 * 24 * time.Hour

// Store is a turn.Store and session.Store on one DynamoDB table. Safe for
// concurrent use; the version check in Commit, Update and Move makes
// concurrent writers of one session safe (Commit and Move: one wins, the
// others get fault.Conflict; Update retries).
type Store struct {
	client *dynamodb.Client
	table  string
	now    func() time.Time // tests move the clock
}

// New returns a Store on table. The client carries region, endpoint and
// credentials; the table must exist with the layout above.
func New(client *dynamodb.Client, table string) *Store {
	return &Store{client: client, table: table, now: time.Now}
}

// Load reads the entry, context and stop mark of key and the record of
// messageID with one strongly consistent BatchGetItem. Missing items (and an expired
// record) come back as nil fields. A context item that no longer decodes is
// reported as absent: it is a cache the runner rebuilds from the transcript.
func (s *Store) Load(ctx context.Context, key, messageID string) (sessionstate.Snapshot, error) {
	if key == "" || messageID == "" {
		return sessionstate.Snapshot{}, fault.New(fault.Invalid, "load session: key and message id are required")
	}
	items, err := s.batchGet(ctx, []map[string]types.AttributeValue{entryKey(key), contextKey(key), recordKey(messageID), stopKey(key)}, "load session")
	if err != nil {
		return sessionstate.Snapshot{}, err
	}
	var snap sessionstate.Snapshot
	for _, it := range items {
		switch sortKey(it) {
		case skEntry:
			if expired(it, s.now()) {
				continue // archived: DynamoDB deletes it lazily
			}
			e, err := decodeEntry(it)
			if err != nil {
				return sessionstate.Snapshot{}, fault.Wrap(fault.Internal, err, "decode session entry of %s", key)
			}
			snap.Entry = &e
		case skContext:
			if c, err := decodeContext(it); err == nil && !expired(it, s.now()) {
				snap.Context = &c
			}
		case skStop:
			st, err := decodeStop(it)
			if err != nil {
				return sessionstate.Snapshot{}, fault.Wrap(fault.Internal, err, "decode stop mark of %s", key)
			}
			snap.Stop = &st
		case skRecord:
			r, err := decodeRecord(it)
			if err != nil {
				return sessionstate.Snapshot{}, fault.Wrap(fault.Internal, err, "decode record of %s", messageID)
			}
			if !expired(it, s.now()) {
				snap.Receipt = &r
			}
		}
	}
	return snap, nil
}

// Commit writes e, c and r (stored with State Committed and a fresh ttl) in
// one TransactWriteItems: all or nothing. Conditions: the stored entry's
// version is e.Version-1 (no entry when e.Version is 1) and no live record
// of r.MessageID exists; either failing is fault.Conflict, as is a
// concurrent transaction on the same items. The SDK reuses one
// ClientRequestToken across its own retries, so a retried call that had
// already succeeded does not turn into a conflict.
//
// A context whose inline messages would not fit one item is fault.Invalid
// and nothing is written: the store never drops a message (the engine
// folds a long context into a contextstore base first).
func (s *Store) Commit(ctx context.Context, key string, e session.Entry, c sessionstate.ModelContext, r receipt.Receipt) error {
	items, err := s.commitItems(key, e, c, r, s.now())
	if err != nil {
		return err
	}
	if _, err := s.client.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items}); err != nil {
		return classifyCommit(err, key, e.Version, r.MessageID)
	}
	return nil
}

// commitItems are the transaction items of Commit: the entry (version
// checked), the context, the record and a Done record per collected id.
func (s *Store) commitItems(key string, e session.Entry, c sessionstate.ModelContext, r receipt.Receipt, now time.Time) ([]types.TransactWriteItem, error) {
	switch {
	case key == "" || r.MessageID == "":
		return nil, fault.New(fault.Invalid, "commit turn: key and message id are required")
	case e.Version < 1:
		return nil, fault.New(fault.Invalid, "commit turn of %s: entry version %d, want >= 1", key, e.Version)
	case len(r.Collected) > maxCollected:
		return nil, fault.New(fault.Invalid, "commit turn %s: %d collected messages, at most %d", r.MessageID, len(r.Collected), maxCollected)
	}
	entryItem, err := encodeEntry(key, e)
	if err != nil {
		return nil, fault.Wrap(fault.Internal, err, "encode session entry of %s", key)
	}
	contextItem, err := encodeContext(key, c)
	if err != nil {
		return nil, err
	}
	if ttl, ok := entryItem[attrTTL]; ok {
		contextItem[attrTTL] = ttl // an archived session's context goes with its entry
	}
	r.State = receipt.Committed
	recordItem, err := encodeRecord(r, now.Add(RecordTTL))
	if err != nil {
		return nil, fault.Wrap(fault.Internal, err, "encode record of %s", r.MessageID)
	}
	entryPut := &types.Put{TableName: &s.table, Item: entryItem}
	if e.Version == 1 {
		// No entry, or an archived one TTL has not deleted yet.
		entryPut.ConditionExpression = aws.String("attribute_not_exists(pk) OR #ttl < :now")
		entryPut.ExpressionAttributeNames = map[string]string{"#ttl": attrTTL}
		entryPut.ExpressionAttributeValues = map[string]types.AttributeValue{":now": number(now.Unix())}
	} else {
		entryPut.ConditionExpression = aws.String("#v = :prev")
		entryPut.ExpressionAttributeNames = map[string]string{"#v": attrVersion}
		entryPut.ExpressionAttributeValues = map[string]types.AttributeValue{":prev": number(e.Version - 1)}
	}
	items := []types.TransactWriteItem{
		{Put: entryPut},
		{Put: &types.Put{TableName: &s.table, Item: contextItem}},
		{Put: s.recordPut(recordItem, now)},
	}
	for _, id := range r.Collected {
		done, err := encodeRecord(receipt.Receipt{MessageID: id, SessionKey: key, State: receipt.Done, CollectedInto: r.MessageID}, now.Add(RecordTTL))
		if err != nil {
			return nil, fault.Wrap(fault.Internal, err, "encode record of %s", id)
		}
		items = append(items, types.TransactWriteItem{Put: s.recordPut(done, now)})
	}
	return items, nil
}

// maxCollected bounds the messages one turn answers together: a
// transaction holds at most 100 items, three of them the turn's own.
const maxCollected = 90

// recordPut is the transaction Put of a new message record: it succeeds
// only if the message has no record, or one whose ttl has passed (TTL
// deletes lazily; Load treats such a record as absent too).
func (s *Store) recordPut(item map[string]types.AttributeValue, now time.Time) *types.Put {
	return &types.Put{
		TableName: &s.table, Item: item,
		ConditionExpression:       aws.String("attribute_not_exists(pk) OR #ttl < :now"),
		ExpressionAttributeNames:  map[string]string{"#ttl": attrTTL},
		ExpressionAttributeValues: map[string]types.AttributeValue{":now": number(now.Unix())},
	}
}

// Finish sets the record of messageID to Done and removes its reply, with
// one conditional UpdateItem. It is idempotent: finishing a Done record
// succeeds. A missing (or expired) record is fault.NotFound. key is not
// needed: records are keyed by message id alone.
func (s *Store) Finish(ctx context.Context, key, messageID string) error {
	if messageID == "" {
		return fault.New(fault.Invalid, "finish turn: message id is required")
	}
	_, err := s.client.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                &s.table,
		Key:                      recordKey(messageID),
		UpdateExpression:         aws.String("SET #state = :done REMOVE #reply"),
		ConditionExpression:      aws.String("attribute_exists(pk) AND (attribute_not_exists(#ttl) OR #ttl >= :now)"),
		ExpressionAttributeNames: map[string]string{"#state": attrState, "#reply": attrReply, "#ttl": attrTTL},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":done": &types.AttributeValueMemberS{Value: receipt.Done},
			":now":  number(s.now().Unix()),
		},
	})
	if isConditionFailed(err) {
		return fault.Wrap(fault.NotFound, err, "finish turn: message %s has no record", messageID)
	}
	return classify(err, fmt.Sprintf("finish turn %s", messageID))
}

// Progress sets the sent count of the committed record of messageID with one
// UpdateItem. A missing (or expired) record is fault.NotFound, a Done one
// fault.Conflict.
func (s *Store) Progress(ctx context.Context, key, messageID string, sent int) error {
	if messageID == "" {
		return fault.New(fault.Invalid, "record reply progress: message id is required")
	}
	_, err := s.client.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                           &s.table,
		Key:                                 recordKey(messageID),
		UpdateExpression:                    aws.String("SET #sent = :sent"),
		ConditionExpression:                 aws.String("attribute_exists(pk) AND (attribute_not_exists(#ttl) OR #ttl >= :now) AND #state = :committed"),
		ExpressionAttributeNames:            map[string]string{"#sent": attrSent, "#state": attrState, "#ttl": attrTTL},
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":sent":      number(int64(sent)),
			":committed": &types.AttributeValueMemberS{Value: receipt.Committed},
			":now":       number(s.now().Unix()),
		},
	})
	if isConditionFailed(err) {
		// The old item, returned with the failure, tells done from missing.
		var ccf *types.ConditionalCheckFailedException
		if errors.As(err, &ccf) && len(ccf.Item) > 0 && !expired(ccf.Item, s.now()) {
			if r, derr := decodeRecord(ccf.Item); derr == nil && r.State == receipt.Done {
				return fault.Wrap(fault.Conflict, err, "record reply progress: message %s is already done", messageID)
			}
		}
		return fault.Wrap(fault.NotFound, err, "record reply progress: message %s has no committed record", messageID)
	}
	return classify(err, fmt.Sprintf("record reply progress of %s", messageID))
}

func number(n int64) types.AttributeValue {
	return &types.AttributeValueMemberN{Value: strconv.FormatInt(n, 10)}
}

// CommitsRunsOf implements turn.Committer: true for the RunStore of this
// store's table and client (Store.Runs).
func (s *Store) CommitsRunsOf(rs run.Store) bool {
	r, ok := rs.(*RunStore)
	return ok && r.s.client == s.client && r.s.table == s.table
}

// CommitWith implements turn.Committer with Commit's one
// TransactWriteItems, which also carries
//   - for x.Stop, a ConditionCheck on the session's stop mark: no mark,
//     or one that is not pending, is x.Stop.MessageID's own, or is past
//     stopmark.Expiry. A failed check is fault.Conflict wrapping
//     stopmark.ErrPending (when the emulator sends no cancellation
//     reasons, one consistent read of the mark tells it from the other
//     conditions);
//   - for x.Run, the run's record (an Update without condition: fields the
//     stored record has are kept except those Finish sets) and its events,
//     as many as fit the transaction's 100 items and about 1 MB; earlier
//     ones are written first with BatchWriteItem (RunStore.Append's cost).
//
// A plain turn's commit, outcome and stop check included, is one call.
func (s *Store) CommitWith(ctx context.Context, key string, e session.Entry, c sessionstate.ModelContext, r receipt.Receipt, x sessionstate.Extra) error {
	now := s.now()
	items, err := s.commitItems(key, e, c, r, now)
	if err != nil {
		return err
	}
	stopAt := -1
	if x.Stop != nil {
		stopAt = len(items)
		items = append(items, s.stopCheck(key, *x.Stop))
	}
	if x.Run != nil {
		runItems, err := s.Runs().outcomeItems(ctx, *x.Run, maxTransactItems-len(items), now)
		if err != nil {
			return err
		}
		items = append(items, runItems...)
	}
	_, err = s.client.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
	if err == nil {
		return nil
	}
	if stopAt >= 0 && s.stopRefused(ctx, err, stopAt, key, *x.Stop) {
		return fault.Wrap(fault.Conflict, stopmark.ErrPending, "commit turn %s of %s", r.MessageID, key)
	}
	return classifyCommit(err, key, e.Version, r.MessageID)
}
