package dynamo

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/run"
)

// RunTTL is how long a run's record and events are kept after their last
// write. Finish rewrites the record after the run's last event, so the
// record outlives its events (unless a replay rewrites them later). Reads
// do not hide expired items (DynamoDB deletes them within days of their
// ttl): nothing depends on their absence.
const RunTTL = 30 * 24 * time.Hour

// Run item layout, on the session table:
//
//	pk "run#<runId>"  sk "record"                 the run.Record, fields named as its JSON tags
//	pk "run#<runId>"  sk "event#<seq, 10 digits>" one run.Event: seq, stream, ts, data (JSON text)
//
// Both carry ttl. One partition per run: Events is one Query, in seq order
// because the seq is zero-padded. No run item carries an index key
// attribute, so runs stay out of byAgent and bySessionId.
const (
	pkRun   = "run#"
	skEvent = "event#"
	// attrRunSession holds Record.SessionID: "sessionId" would put run
	// records in the bySessionId index (as for attrContextSession).
	attrRunSession = "runSessionId"
	attrRunID      = "runId" // implied by pk; not stored
	attrStatus     = "status"
	attrEndedAt    = "endedAt"
	attrSeq        = "seq"
	attrStream     = "stream"
	attrTS         = "ts"
	attrData       = "data"

	// maxTransactItems is DynamoDB's limit of items per transaction;
	// Start and Finish put the record and up to maxTransactItems-1 events
	// in one.
	maxTransactItems = 100
	// maxBatchWrite is DynamoDB's limit of requests per BatchWriteItem.
	maxBatchWrite = 25
)

// finishOverwrites are the record attributes Finish sets; every other
// attribute it has is only filled in when the stored record lacks it
// (if_not_exists), so StartedAt and the run's identity stay as Start wrote
// them.
var finishOverwrites = map[string]bool{attrStatus: true, attrEndedAt: true, attrTTL: true, "error": true, "usage": true, "model": true, "reply": true}

// RunStore is the run.Store and run.Reader of a Store's table. Get it with
// Store.Runs; it is a separate type because Store's Get and Finish are the
// session's and the turn's. Safe for concurrent use.
//
// AWS calls per method (n events):
//
//	Start   1 TransactWriteItems (the record, if_not_exists per attribute, and
//	        up to 99 events); 1 UpdateItem instead when n = 0; plus
//	        ceil((n-99)/25) BatchWriteItem beyond 99 events
//	Append  ceil(n/25) BatchWriteItem
//	Finish  1 TransactWriteItems (the record, conditioned on running, and the
//	        last up to 99 events); 1 UpdateItem instead when n = 0; the
//	        events before the last 99 first, in ceil((n-99)/25)
//	        BatchWriteItem. A replay (same status) adds 1 BatchWriteItem of
//	        its events: the failed condition returns the stored record, so
//	        telling a replay from a conflict or an unknown run costs no read
//	Get     1 GetItem, strongly consistent
//	GetMany 1 BatchGetItem, strongly consistent (up to 100 records)
//	Events  1 Query, strongly consistent (another only past 1 MB a page)
//	LastSeq 1 Query, strongly consistent, newest first, Limit 1
//
// A turn's commit (Store.CommitWith) writes a run's outcome in its own
// transaction instead of Finish, without Finish's condition.
//
// A BatchWriteItem's unprocessed items are sent again with backoff.
// Transactions cost twice the write units of plain writes: Start pays it
// to keep the record and its first events atomic and a retried Start
// unconditional; Finish to make the terminal status visible only with the
// last events.
type RunStore struct{ s *Store }

var (
	_ run.Store  = (*RunStore)(nil)
	_ run.Reader = (*RunStore)(nil)
)

// Runs returns the run store on s's table.
func (s *Store) Runs() *RunStore { return &RunStore{s: s} }

// Start implements run.Store: a record that exists keeps every attribute
// it has (each is written with if_not_exists), so a retried Start needs no
// condition and no read. The record and the first 99 events are one
// transaction; more events follow in batches.
func (rs *RunStore) Start(ctx context.Context, rec run.Record, events []run.Event) error {
	if err := rec.CheckStart(); err != nil {
		return err
	}
	if err := run.CheckEvents(rec.RunID, events); err != nil {
		return err
	}
	what := "start run " + rec.RunID
	rec.Status = run.StatusRunning
	expires := rs.s.now().Add(RunTTL)
	item, err := encodeRun(rec, expires)
	if err != nil {
		return fault.Wrap(fault.Internal, err, "encode record of run %s", rec.RunID)
	}
	update := updateOf(item, func(string) bool { return false })
	first, rest := splitAt(events, maxTransactItems-1)
	if len(first) == 0 {
		_, err = rs.s.client.UpdateItem(ctx, &dynamodb.UpdateItemInput{
			TableName: &rs.s.table, Key: runKey(rec.RunID),
			UpdateExpression: update.expr, ExpressionAttributeNames: update.names, ExpressionAttributeValues: update.values,
		})
		if err != nil {
			return classify(err, what)
		}
	} else {
		tx := []types.TransactWriteItem{{Update: &types.Update{
			TableName: &rs.s.table, Key: runKey(rec.RunID),
			UpdateExpression: update.expr, ExpressionAttributeNames: update.names, ExpressionAttributeValues: update.values,
		}}}
		tx = append(tx, rs.eventPuts(rec.RunID, first, expires)...)
		if _, err := rs.s.client.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: tx}); err != nil {
			return classifyTransaction(err, what, txItemsOf(first))
		}
	}
	return rs.put(ctx, rec.RunID, rest, expires, what)
}

// Append implements run.Store with BatchWriteItem, 25 events a call.
func (rs *RunStore) Append(ctx context.Context, runID string, events []run.Event) error {
	if err := run.CheckEvents(runID, events); err != nil {
		return err
	}
	return rs.put(ctx, runID, events, rs.s.now().Add(RunTTL), "append events of run "+runID)
}

// Finish implements run.Store. The record update is conditioned on the
// stored status being running and commits with the last 99 events; a
// failed condition returns the stored record (ALL_OLD), which tells a
// replay (same status: its events are written again, nil) from a
// conflict (another status) and an unknown run (no record). Events
// before the last 99 are written first, so the terminal status is never
// visible before any event.
func (rs *RunStore) Finish(ctx context.Context, rec run.Record, events []run.Event) error {
	if err := rec.CheckFinish(); err != nil {
		return err
	}
	if err := run.CheckEvents(rec.RunID, events); err != nil {
		return err
	}
	what := fmt.Sprintf("finish run %s as %s", rec.RunID, rec.Status)
	expires := rs.s.now().Add(RunTTL)
	item, err := encodeRun(rec, expires)
	if err != nil {
		return fault.Wrap(fault.Internal, err, "encode record of run %s", rec.RunID)
	}
	head, last := splitAt(events, len(events)-(maxTransactItems-1))
	if err := rs.put(ctx, rec.RunID, head, expires, what); err != nil {
		return err
	}
	update := updateOf(item, func(name string) bool { return finishOverwrites[name] })
	update.names["#pk"] = attrPK
	update.values[":running"] = &types.AttributeValueMemberS{Value: run.StatusRunning}
	cond := aws.String("attribute_exists(#pk) AND " + update.placeholder[attrStatus] + " = :running")
	if len(last) == 0 {
		_, err = rs.s.client.UpdateItem(ctx, &dynamodb.UpdateItemInput{
			TableName: &rs.s.table, Key: runKey(rec.RunID), ConditionExpression: cond,
			UpdateExpression: update.expr, ExpressionAttributeNames: update.names, ExpressionAttributeValues: update.values,
			ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
		})
		var ccf *types.ConditionalCheckFailedException
		if errors.As(err, &ccf) {
			return rs.finishFailed(ctx, rec, nil, ccf.Item, true, expires, what)
		}
		return classify(err, what)
	}
	tx := []types.TransactWriteItem{{Update: &types.Update{
		TableName: &rs.s.table, Key: runKey(rec.RunID), ConditionExpression: cond,
		UpdateExpression: update.expr, ExpressionAttributeNames: update.names, ExpressionAttributeValues: update.values,
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	}}}
	tx = append(tx, rs.eventPuts(rec.RunID, last, expires)...)
	_, err = rs.s.client.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: tx})
	if err == nil {
		return nil
	}
	if old, returned, ok := recordConditionFailed(err); ok {
		return rs.finishFailed(ctx, rec, last, old, returned, expires, what)
	}
	return classifyTransaction(err, what, txItemsOf(last))
}

// finishFailed handles a Finish whose condition failed: old is the stored
// record the failure returned (ALL_OLD; empty when there is none), unless
// returned is false, when it is read.
func (rs *RunStore) finishFailed(ctx context.Context, rec run.Record, events []run.Event, old map[string]types.AttributeValue, returned bool, expires time.Time, what string) error {
	if !returned {
		got, err := rs.getItem(ctx, rec.RunID)
		if err != nil && !fault.Is(err, fault.NotFound) {
			return err
		}
		old = got
	}
	if len(old) == 0 {
		return fault.New(fault.NotFound, "%s: no such run", what)
	}
	stored, err := decodeRun(old)
	if err != nil {
		return fault.Wrap(fault.Internal, err, "decode record of run %s", rec.RunID)
	}
	if stored.Status != rec.Status {
		return fault.New(fault.Conflict, "%s: already %s", what, stored.Status)
	}
	// A replay of a Finish that succeeded: the record stays as it is; its
	// events were written then and are written again, harmlessly.
	return rs.put(ctx, rec.RunID, events, expires, what)
}

// recordConditionFailed reports whether err is a transaction cancelled
// because the record's condition (item 0) failed (ok), with the stored
// record DynamoDB returned for it (empty when there is none) and whether
// it could return one: an emulator that sends no cancellation reasons
// cannot.
func recordConditionFailed(err error) (old map[string]types.AttributeValue, returned, ok bool) {
	var tce *types.TransactionCanceledException
	if !errors.As(err, &tce) {
		return nil, false, false
	}
	if len(tce.CancellationReasons) == 0 {
		// Only the record has a condition, so it is the one that failed.
		return nil, false, strings.Contains(tce.ErrorMessage(), "ConditionalCheckFailed")
	}
	r := tce.CancellationReasons[0]
	return r.Item, true, r.Code != nil && *r.Code == "ConditionalCheckFailed"
}

// Get implements run.Store with one strongly consistent GetItem.
func (rs *RunStore) Get(ctx context.Context, runID string) (run.Record, error) {
	if err := run.CheckID(runID); err != nil {
		return run.Record{}, err
	}
	item, err := rs.getItem(ctx, runID)
	if err != nil {
		return run.Record{}, err
	}
	rec, err := decodeRun(item)
	if err != nil {
		return run.Record{}, fault.Wrap(fault.Internal, err, "decode record of run %s", runID)
	}
	return rec, nil
}

// GetMany reads the records of runIDs (at most 100, duplicates allowed)
// with one strongly consistent BatchGetItem (more only for keys DynamoDB
// leaves unprocessed), for the gateway's sessions.runs. Runs without a
// record (never started, or expired after RunTTL) are left out; the rest
// come back in runIDs' order, each once. An invalid id is fault.Invalid,
// more than 100 ids fault.Invalid, a record that does not decode
// fault.Internal.
func (rs *RunStore) GetMany(ctx context.Context, runIDs []string) ([]run.Record, error) {
	if len(runIDs) > maxBatchGet {
		return nil, fault.New(fault.Invalid, "read runs: %d ids; at most %d", len(runIDs), maxBatchGet)
	}
	var keys []map[string]types.AttributeValue
	seen := map[string]bool{}
	for _, id := range runIDs {
		if err := run.CheckID(id); err != nil {
			return nil, err
		}
		if !seen[id] {
			seen[id] = true
			keys = append(keys, runKey(id))
		}
	}
	if len(keys) == 0 {
		return nil, nil
	}
	items, err := rs.s.batchGet(ctx, keys, "read runs")
	if err != nil {
		return nil, err
	}
	byID := make(map[string]run.Record, len(items))
	for _, it := range items {
		rec, err := decodeRun(it)
		if err != nil {
			return nil, fault.Wrap(fault.Internal, err, "decode a run record")
		}
		byID[rec.RunID] = rec
	}
	out := make([]run.Record, 0, len(byID))
	for _, id := range runIDs {
		if rec, ok := byID[id]; ok {
			out = append(out, rec)
			delete(byID, id)
		}
	}
	return out, nil
}

func (rs *RunStore) getItem(ctx context.Context, runID string) (map[string]types.AttributeValue, error) {
	out, err := rs.s.client.GetItem(ctx, &dynamodb.GetItemInput{TableName: &rs.s.table, Key: runKey(runID), ConsistentRead: aws.Bool(true)})
	if err != nil {
		return nil, classify(err, "read run "+runID)
	}
	if len(out.Item) == 0 {
		return nil, fault.New(fault.NotFound, "no run %s", runID)
	}
	return out.Item, nil
}

// Events implements run.Reader with one strongly consistent Query of the
// run's partition, sk between the next event's and the last possible one
// (the record's sk, "record", sorts after "event#", so it is never read).
// A page DynamoDB cuts at 1 MB is continued, so the answer is short only
// at the end.
func (rs *RunStore) Events(ctx context.Context, runID string, afterSeq int64, limit int) ([]run.Event, error) {
	if err := run.CheckID(runID); err != nil {
		return nil, err
	}
	limit = run.ClampLimit(limit)
	afterSeq = max(afterSeq, 0)
	if afterSeq >= run.MaxSeq {
		return nil, nil
	}
	in := eventQuery(rs.s.table, runID, afterSeq)
	var evs []run.Event
	for {
		in.Limit = aws.Int32(int32(limit - len(evs)))
		out, err := rs.s.client.Query(ctx, in)
		if err != nil {
			return nil, classify(err, "read events of run "+runID)
		}
		for _, item := range out.Items {
			e, err := decodeEvent(runID, item)
			if err != nil {
				return nil, fault.Wrap(fault.Internal, err, "decode event of run %s", runID)
			}
			evs = append(evs, e)
		}
		if len(evs) >= limit || len(out.LastEvaluatedKey) == 0 {
			return evs, nil
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
}

// LastSeq implements run.Store: one strongly consistent Query, newest
// first, Limit 1, projecting the seq only.
func (rs *RunStore) LastSeq(ctx context.Context, runID string) (int64, error) {
	if err := run.CheckID(runID); err != nil {
		return 0, err
	}
	in := eventQuery(rs.s.table, runID, 0)
	in.ScanIndexForward = aws.Bool(false)
	in.Limit = aws.Int32(1)
	in.ProjectionExpression = aws.String("#seq")
	in.ExpressionAttributeNames = map[string]string{"#pk": attrPK, "#sk": attrSK, "#seq": attrSeq}
	out, err := rs.s.client.Query(ctx, in)
	if err != nil {
		return 0, classify(err, "read the last event of run "+runID)
	}
	if len(out.Items) == 0 {
		return 0, nil
	}
	seq, err := numberOf(out.Items[0], attrSeq)
	if err != nil {
		return 0, fault.Wrap(fault.Internal, err, "decode event of run %s", runID)
	}
	return seq, nil
}

func eventQuery(table, runID string, afterSeq int64) *dynamodb.QueryInput {
	return &dynamodb.QueryInput{
		TableName:                &table,
		KeyConditionExpression:   aws.String("#pk = :pk AND #sk BETWEEN :from AND :to"),
		ExpressionAttributeNames: map[string]string{"#pk": attrPK, "#sk": attrSK},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":pk":   &types.AttributeValueMemberS{Value: pkRun + runID},
			":from": &types.AttributeValueMemberS{Value: eventSK(afterSeq + 1)},
			":to":   &types.AttributeValueMemberS{Value: eventSK(run.MaxSeq)},
		},
		ConsistentRead: aws.Bool(true),
	}
}

// put writes events with BatchWriteItem, 25 a call, in seq order of the
// slice given.
func (rs *RunStore) put(ctx context.Context, runID string, events []run.Event, expires time.Time, what string) error {
	for chunk := range slices.Chunk(events, maxBatchWrite) {
		reqs := make([]types.WriteRequest, len(chunk))
		for i, e := range chunk {
			reqs[i] = types.WriteRequest{PutRequest: &types.PutRequest{Item: encodeEvent(runID, e, expires)}}
		}
		if err := rs.batchWrite(ctx, reqs, what); err != nil {
			return err
		}
	}
	return nil
}

// batchWrite sends reqs (at most 25) with BatchWriteItem, and the items
// DynamoDB leaves unprocessed (throttling) again with backoff, up to
// maxBatchRounds calls.
func (rs *RunStore) batchWrite(ctx context.Context, reqs []types.WriteRequest, what string) error {
	req := map[string][]types.WriteRequest{rs.s.table: reqs}
	backoff := 20 * time.Millisecond
	for round := 1; ; round++ {
		out, err := rs.s.client.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: req})
		if err != nil {
			return classify(err, what)
		}
		left := len(out.UnprocessedItems[rs.s.table])
		if left == 0 {
			return nil
		}
		if round == maxBatchRounds {
			return fault.New(fault.Unavailable, "%s: %d events still unprocessed after %d rounds", what, left, round)
		}
		req = out.UnprocessedItems
		select {
		case <-ctx.Done():
			return fault.Wrap(fault.Unavailable, ctx.Err(), "%s", what)
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, time.Second)
	}
}

func (rs *RunStore) eventPuts(runID string, events []run.Event, expires time.Time) []types.TransactWriteItem {
	tx := make([]types.TransactWriteItem, len(events))
	for i, e := range events {
		tx[i] = types.TransactWriteItem{Put: &types.Put{TableName: &rs.s.table, Item: encodeEvent(runID, e, expires)}}
	}
	return tx
}

// txItemsOf describes a run transaction (the record, then events) for
// classifyTransaction.
func txItemsOf(events []run.Event) []txItem {
	items := []txItem{{"run record", ""}}
	for _, e := range events {
		items = append(items, txItem{fmt.Sprintf("event %d", e.Seq), ""})
	}
	return items
}

// splitAt splits events at i, clamped to 0..len.
func splitAt(events []run.Event, i int) ([]run.Event, []run.Event) {
	i = min(max(i, 0), len(events))
	return events[:i], events[i:]
}

// update is an UpdateExpression with its placeholders.
type update struct {
	expr        *string
	names       map[string]string
	values      map[string]types.AttributeValue
	placeholder map[string]string // attribute name -> its #name
}

// updateOf is the SET of every attribute of item but the key: overwritten
// when overwrite says so, else if_not_exists (kept when stored). Names go
// through placeholders: status and ttl are reserved words.
func updateOf(item map[string]types.AttributeValue, overwrite func(name string) bool) update {
	u := update{names: map[string]string{}, values: map[string]types.AttributeValue{}, placeholder: map[string]string{}}
	var names []string
	for name := range item {
		if name != attrPK && name != attrSK {
			names = append(names, name)
		}
	}
	slices.Sort(names) // a stable expression, for logs and tests
	sets := make([]string, len(names))
	for i, name := range names {
		n, v := "#a"+strconv.Itoa(i), ":a"+strconv.Itoa(i)
		u.names[n], u.values[v], u.placeholder[name] = name, item[name], n
		if overwrite(name) {
			sets[i] = n + " = " + v
		} else {
			sets[i] = fmt.Sprintf("%s = if_not_exists(%s, %s)", n, n, v)
		}
	}
	u.expr = aws.String("SET " + strings.Join(sets, ", "))
	return u
}

func runKey(runID string) map[string]types.AttributeValue { return key(pkRun+runID, skRecord) }

func eventSK(seq int64) string { return fmt.Sprintf("%s%010d", skEvent, seq) }

// encodeRun is the record item of r: its fields by JSON tags (empty ones
// left out), sessionId renamed, the runId left to the key, and ttl.
func encodeRun(r run.Record, expires time.Time) (map[string]types.AttributeValue, error) {
	item, err := encodeStruct(r, runKey(r.RunID))
	if err != nil {
		return nil, err
	}
	delete(item, attrRunID)
	if sid, ok := item[attrSessionID]; ok {
		delete(item, attrSessionID)
		item[attrRunSession] = sid
	}
	item[attrTTL] = number(expires.Unix())
	return item, nil
}

func decodeRun(item map[string]types.AttributeValue) (run.Record, error) {
	var r run.Record
	if err := attributevalue.UnmarshalMapWithOptions(item, &r, jsonTagsDecode); err != nil {
		return r, err
	}
	if sid, ok := item[attrRunSession].(*types.AttributeValueMemberS); ok {
		r.SessionID = sid.Value
	}
	pk, _ := item[attrPK].(*types.AttributeValueMemberS)
	if pk == nil || !strings.HasPrefix(pk.Value, pkRun) {
		return r, fmt.Errorf("run record without a run pk")
	}
	r.RunID = strings.TrimPrefix(pk.Value, pkRun)
	return r, nil
}

// encodeEvent is the item of event e of runID. Data is kept as its JSON
// text: one string attribute, read back byte for byte.
func encodeEvent(runID string, e run.Event, expires time.Time) map[string]types.AttributeValue {
	item := key(pkRun+runID, eventSK(e.Seq))
	item[attrSeq] = number(e.Seq)
	item[attrStream] = &types.AttributeValueMemberS{Value: e.Stream}
	item[attrTS] = number(e.TS)
	if len(e.Data) > 0 {
		item[attrData] = &types.AttributeValueMemberS{Value: string(e.Data)}
	}
	item[attrTTL] = number(expires.Unix())
	return item
}

func decodeEvent(runID string, item map[string]types.AttributeValue) (run.Event, error) {
	e := run.Event{RunID: runID}
	var err error
	if e.Seq, err = numberOf(item, attrSeq); err != nil {
		return e, err
	}
	if e.TS, err = numberOf(item, attrTS); err != nil {
		return e, err
	}
	stream, ok := item[attrStream].(*types.AttributeValueMemberS)
	if !ok {
		return e, fmt.Errorf("event %d has no %s string", e.Seq, attrStream)
	}
	e.Stream = stream.Value
	if data, ok := item[attrData].(*types.AttributeValueMemberS); ok && data.Value != "" {
		e.Data = []byte(data.Value)
	}
	return e, nil
}

func numberOf(item map[string]types.AttributeValue, name string) (int64, error) {
	n, ok := item[name].(*types.AttributeValueMemberN)
	if !ok {
		return 0, fmt.Errorf("no %s number", name)
	}
	return strconv.ParseInt(n.Value, 10, 64)
}

// maxCommitEventBytes bounds the event data a turn's commit carries, so
// the transaction stays far below DynamoDB's 4 MB with the entry, context
// (at most one item) and record beside it.
const maxCommitEventBytes = 1 << 20

// outcomeItems are the transaction items of a run outcome in a turn's
// commit (Store.CommitWith), at most room of them: the record's Update,
// without condition (the commit's message record makes it happen once;
// fields a stored record has are kept but for those Finish overwrites),
// then the last events that fit room and maxCommitEventBytes. The events
// before those are written first, with BatchWriteItem: a follower may see
// them before the terminal status, never the status before them.
func (rs *RunStore) outcomeItems(ctx context.Context, o run.Outcome, room int, now time.Time) ([]types.TransactWriteItem, error) {
	rec := o.Record
	if err := rec.CheckFinish(); err != nil {
		return nil, err
	}
	if err := run.CheckEvents(rec.RunID, o.Events); err != nil {
		return nil, err
	}
	expires := now.Add(RunTTL)
	item, err := encodeRun(rec, expires)
	if err != nil {
		return nil, fault.Wrap(fault.Internal, err, "encode record of run %s", rec.RunID)
	}
	keep, size := 0, 0
	for i := len(o.Events) - 1; i >= 0 && keep < room-1; i-- {
		if size += len(o.Events[i].Data); size > maxCommitEventBytes {
			break
		}
		keep++
	}
	head, last := splitAt(o.Events, len(o.Events)-keep)
	if err := rs.put(ctx, rec.RunID, head, expires, "write events of run "+rec.RunID); err != nil {
		return nil, err
	}
	update := updateOf(item, func(name string) bool { return finishOverwrites[name] })
	tx := []types.TransactWriteItem{{Update: &types.Update{
		TableName: &rs.s.table, Key: runKey(rec.RunID),
		UpdateExpression: update.expr, ExpressionAttributeNames: update.names, ExpressionAttributeValues: update.values,
	}}}
	return append(tx, rs.eventPuts(rec.RunID, last, expires)...), nil
}
