package dynamo

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/receipt"
	"github.com/zero-gateway/zero/shared/session"
)

var (
	_ session.Store   = (*Store)(nil)
	_ session.Deleter = (*Store)(nil)
)

const (
	// maxUpdateAttempts bounds Update's read-apply-write rounds on a lost
	// version race before it gives up with fault.Conflict.
	maxUpdateAttempts = 8
	// listMargin is how many rows List asks for beyond the limit, to make
	// up for the reserved keys it drops, so one Query normally suffices.
	listMargin = 2
)

// Get returns the entry of key with one strongly consistent GetItem. A
// missing entry is fault.NotFound.
func (s *Store) Get(ctx context.Context, key string) (session.Entry, error) {
	if key == "" {
		return session.Entry{}, fault.New(fault.Invalid, "get session: key is required")
	}
	item, err := s.getEntry(ctx, key)
	if err != nil {
		return session.Entry{}, err
	}
	return decodeStoredEntry(item, key)
}

// Lookup returns the key and entry of the session whose sessionId is
// sessionID: one Query on the bySessionId index, then one strongly
// consistent GetItem of the entry it names, whose sessionId must still be
// sessionID (the index is eventually consistent: it may still name an entry
// a reset or move has since changed). An unknown id, or one no current
// entry carries, is fault.NotFound. A session just created may not be found
// until the index catches up (typically well under a second).
func (s *Store) Lookup(ctx context.Context, sessionID string) (string, session.Entry, error) {
	if sessionID == "" {
		return "", session.Entry{}, fault.New(fault.Invalid, "look up session: session id is required")
	}
	out, err := s.client.Query(ctx, &dynamodb.QueryInput{
		TableName:                 &s.table,
		IndexName:                 aws.String(indexBySession),
		KeyConditionExpression:    aws.String("#sid = :sid"),
		ExpressionAttributeNames:  map[string]string{"#sid": attrSessionID},
		ExpressionAttributeValues: map[string]types.AttributeValue{":sid": &types.AttributeValueMemberS{Value: sessionID}},
	})
	if err != nil {
		return "", session.Entry{}, classify(err, "look up session "+sessionID)
	}
	// Normally one candidate; more only while the index lags a move.
	for _, cand := range out.Items {
		key, ok := sessionKeyOf(cand)
		if !ok || sortKey(cand) != skEntry {
			continue
		}
		item, err := s.getEntry(ctx, key)
		if fault.Is(err, fault.NotFound) {
			continue
		}
		if err != nil {
			return "", session.Entry{}, err
		}
		e, err := decodeStoredEntry(item, key)
		if err != nil {
			return "", session.Entry{}, err
		}
		if e.SessionID == sessionID {
			return key, e, nil
		}
	}
	return "", session.Entry{}, fault.New(fault.NotFound, "no session has id %s", sessionID)
}

// List returns the entries of q.AgentID updated at or after q.ActiveSince,
// newest first, with one Query on the byAgent index (descending updatedAt,
// Limit = the limit plus a small margin for the reserved keys it drops);
// it queries again only when rows are still missing and more exist. The
// index is eventually consistent: a write of the last moments may be
// missing or show its previous state. An empty AgentID is fault.Invalid.
func (s *Store) List(ctx context.Context, q session.ListQuery) ([]session.Listed, error) {
	if q.AgentID == "" {
		return nil, fault.New(fault.Invalid, "list sessions: agent id is required")
	}
	limit := q.Limit
	if limit <= 0 {
		limit = session.DefaultListLimit
	}
	limit = min(limit, session.MaxListLimit)
	in := &dynamodb.QueryInput{
		TableName:                &s.table,
		IndexName:                aws.String(indexByAgent),
		KeyConditionExpression:   aws.String("#a = :a AND #u >= :since"),
		ExpressionAttributeNames: map[string]string{"#a": attrAgent, "#u": attrUpdatedAt},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":a":     &types.AttributeValueMemberS{Value: q.AgentID},
			":since": number(q.ActiveSince),
		},
		ScanIndexForward: aws.Bool(false),
	}
	var rows []session.Listed
	for {
		in.Limit = aws.Int32(int32(limit - len(rows) + listMargin))
		out, err := s.client.Query(ctx, in)
		if err != nil {
			return nil, classify(err, "list sessions of agent "+q.AgentID)
		}
		for _, item := range out.Items {
			key, ok := sessionKeyOf(item)
			if !ok || sortKey(item) != skEntry || key == session.KeyGlobal || key == session.KeyUnknown || expired(item, s.now()) {
				continue // archived entries (ttl passed) are gone for readers
			}
			e, err := decodeStoredEntry(item, key)
			if err != nil {
				return nil, err
			}
			rows = append(rows, session.Listed{Key: key, Entry: e})
			if len(rows) == limit {
				return rows, nil
			}
		}
		if len(out.LastEvaluatedKey) == 0 {
			return rows, nil
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
}

// Update applies fn to the entry of key (through session.Apply: Version
// one up, UpdatedAt never earlier) and writes it back with a PutItem
// conditioned on the version it read. Uncontended that is two calls: a
// strongly consistent GetItem and the PutItem. A lost race (the condition
// failed, or a transaction held the item) re-applies fn to the current
// entry, which the failed PutItem returns, after a short jittered backoff;
// after maxUpdateAttempts lost races it returns fault.Conflict. fn is
// called once per attempt, so it must be safe to call more than once; its
// error aborts Update unchanged, with nothing written. A missing entry
// (including one deleted meanwhile) is fault.NotFound, and fn is not
// called for it.
func (s *Store) Update(ctx context.Context, key string, fn func(*session.Entry) error) (session.Entry, error) {
	if key == "" {
		return session.Entry{}, fault.New(fault.Invalid, "update session: key is required")
	}
	var item map[string]types.AttributeValue // the current entry, when a failed write returned it
	backoff := 10 * time.Millisecond
	for attempt := 1; ; attempt++ {
		if item == nil {
			got, err := s.getEntry(ctx, key)
			if err != nil {
				return session.Entry{}, err
			}
			item = got
		}
		stored, err := decodeStoredEntry(item, key)
		if err != nil {
			return session.Entry{}, err
		}
		next, err := session.Apply(stored, fn)
		if err != nil {
			return session.Entry{}, err
		}
		newItem, err := encodeEntry(key, next)
		if err != nil {
			return session.Entry{}, fault.Wrap(fault.Internal, err, "encode session entry of %s", key)
		}
		cond, names, values := versionCondition(stored.Version)
		_, err = s.client.PutItem(ctx, &dynamodb.PutItemInput{
			TableName:                           &s.table,
			Item:                                newItem,
			ConditionExpression:                 aws.String(cond),
			ExpressionAttributeNames:            names,
			ExpressionAttributeValues:           values,
			ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
		})
		if err == nil {
			return next, nil
		}
		if codeOf(err) != fault.Conflict {
			return session.Entry{}, classify(err, "update session "+key)
		}
		if attempt == maxUpdateAttempts {
			return session.Entry{}, fault.Wrap(fault.Conflict, err, "update session %s: lost the version race %d times", key, attempt)
		}
		// A failed condition hands back the current item, saving a read.
		// Without one (the entry is gone, or a transaction held it) the
		// next round reads it.
		item = nil
		var ccf *types.ConditionalCheckFailedException
		if errors.As(err, &ccf) && len(ccf.Item) > 0 {
			item = ccf.Item
		}
		// Equal jitter, so two writers that collided drift apart.
		select {
		case <-ctx.Done():
			return session.Entry{}, fault.Wrap(fault.Unavailable, ctx.Err(), "update session %s", key)
		case <-time.After(backoff/2 + rand.N(backoff/2+1)):
		}
		backoff = min(2*backoff, 200*time.Millisecond)
	}
}

// versionCondition is the PutItem condition that the stored entry is still
// at version; an entry stored without a version (imported) counts as 0.
func versionCondition(version int64) (string, map[string]string, map[string]types.AttributeValue) {
	cond := "#v = :prev"
	if version == 0 {
		cond = "attribute_exists(pk) AND (attribute_not_exists(#v) OR #v = :prev)"
	}
	return cond, map[string]string{"#v": attrVersion}, map[string]types.AttributeValue{":prev": number(version)}
}

// Delete removes the entry and context of key with one TransactWriteItems
// of two unconditional Deletes, so neither outlives the other. Deleting a
// missing key succeeds; a concurrent transaction on the items (a turn
// committing) is fault.Conflict, and retrying is safe. The key's message
// records stay until their ttl.
func (s *Store) Delete(ctx context.Context, key string) error {
	if key == "" {
		return fault.New(fault.Invalid, "delete session: key is required")
	}
	_, err := s.client.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{
		TransactItems: []types.TransactWriteItem{
			{Delete: &types.Delete{TableName: &s.table, Key: entryKey(key)}},
			{Delete: &types.Delete{TableName: &s.table, Key: contextKey(key)}},
		},
	})
	if err != nil {
		return classifyTransaction(err, "delete session "+key, []txItem{{"session entry", ""}, {"context", ""}})
	}
	return nil
}

// Move writes e under to, deletes the entry and context of from and
// commits r (State Committed, ttl as in Commit) in one TransactWriteItems:
// all or nothing. Conditions: to has no entry, from's entry is at
// fromVersion, and r.MessageID has no live record; any failing (or a
// concurrent transaction on these items) is fault.Conflict. e.Version must
// be 1 and from and to must differ (fault.Invalid otherwise). A stale
// context under to, if any, is left: its sessionId tells the runner it is
// not this session's.
func (s *Store) Move(ctx context.Context, from string, fromVersion int64, to string, e session.Entry, r receipt.Receipt) error {
	switch {
	case from == "" || to == "" || r.MessageID == "":
		return fault.New(fault.Invalid, "move session: keys and message id are required")
	case from == to:
		return fault.New(fault.Invalid, "move session %s onto itself", from)
	case e.Version != 1:
		return fault.New(fault.Invalid, "move session %s to %s: entry version %d, want 1", from, to, e.Version)
	}
	now := s.now()
	entryItem, err := encodeEntry(to, e)
	if err != nil {
		return fault.Wrap(fault.Internal, err, "encode session entry of %s", to)
	}
	r.State = receipt.Committed
	recordItem, err := encodeRecord(r, now.Add(RecordTTL))
	if err != nil {
		return fault.Wrap(fault.Internal, err, "encode record of %s", r.MessageID)
	}
	_, err = s.client.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{
		TransactItems: []types.TransactWriteItem{
			{Put: &types.Put{TableName: &s.table, Item: entryItem, ConditionExpression: aws.String("attribute_not_exists(pk)")}},
			{Delete: &types.Delete{
				TableName: &s.table, Key: entryKey(from),
				ConditionExpression:       aws.String("#v = :from"),
				ExpressionAttributeNames:  map[string]string{"#v": attrVersion},
				ExpressionAttributeValues: map[string]types.AttributeValue{":from": number(fromVersion)},
			}},
			{Delete: &types.Delete{TableName: &s.table, Key: contextKey(from)}},
			{Put: s.recordPut(recordItem, now)},
		},
	})
	if err != nil {
		return classifyTransaction(err, fmt.Sprintf("move session %s to %s (turn %s)", from, to, r.MessageID), []txItem{
			{"new session entry", fmt.Sprintf("session %s already exists", to)},
			{"old session entry", fmt.Sprintf("session %s is not at version %d", from, fromVersion)},
			{"old context", ""},
			{"message record", fmt.Sprintf("message %s is already committed", r.MessageID)},
		})
	}
	return nil
}

// getEntry reads the entry item of key with a strongly consistent GetItem;
// a missing item is fault.NotFound.
func (s *Store) getEntry(ctx context.Context, key string) (map[string]types.AttributeValue, error) {
	out, err := s.client.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: &s.table, Key: entryKey(key), ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return nil, classify(err, "read session "+key)
	}
	if len(out.Item) == 0 || expired(out.Item, s.now()) {
		return nil, fault.New(fault.NotFound, "no session %s", key)
	}
	return out.Item, nil
}

func decodeStoredEntry(item map[string]types.AttributeValue, key string) (session.Entry, error) {
	e, err := decodeEntry(item)
	if err != nil {
		return session.Entry{}, fault.Wrap(fault.Internal, err, "decode session entry of %s", key)
	}
	return e, nil
}

// sessionKeyOf returns the session key of an item whose pk is
// "session#<key>".
func sessionKeyOf(item map[string]types.AttributeValue) (string, bool) {
	pk, ok := item[attrPK].(*types.AttributeValueMemberS)
	if !ok {
		return "", false
	}
	return strings.CutPrefix(pk.Value, pkSession)
}
