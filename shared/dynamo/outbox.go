package dynamo

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/outbox"
)

// Outbox items live in one partition, so listing them is one (paged)
// Query: pk "outbox", sk "item#<id>". What never changes (id, kind,
// session key, delivery, text, createdAt) is one JSON string attribute
// "data"; what delivery changes is top-level, so Progress and Settle are
// one UpdateItem each: state, sent, attempts, retries, lastError and
// changedAt (the item's updatedAt, not named so: updatedAt keys the
// byAgent index).
// A sent item expires after RecordTTL; pending and dead ones stay.
const (
	pkOutbox       = "outbox"
	skOutboxItem   = "item#"
	attrAttempts   = "attempts"
	attrLastError  = "lastError"
	attrChangedAt  = "changedAt"
	attrRetries    = "retries"
	outboxNotFound = "no outbox item %q"
)

// Outbox is the outbox.Store on the table (Store.Outbox).
type Outbox struct{ s *Store }

var _ outbox.Store = (*Outbox)(nil)

// Outbox is the announce outbox on the same table.
func (s *Store) Outbox() *Outbox { return &Outbox{s: s} }

func outboxKey(id string) map[string]types.AttributeValue { return key(pkOutbox, skOutboxItem+id) }

// Put creates the item (pending) with one PutItem conditioned on its
// absence; an existing item is kept and Put returns nil.
func (o *Outbox) Put(ctx context.Context, item outbox.Item) error {
	if strings.TrimSpace(item.ID) == "" {
		return fault.New(fault.Invalid, "outbox: an item needs an id")
	}
	fixed := item
	fixed.State, fixed.Sent, fixed.Attempts, fixed.Retries, fixed.LastError, fixed.UpdatedAt = "", 0, 0, 0, "", 0
	data, err := json.Marshal(fixed)
	if err != nil {
		return fault.Wrap(fault.Internal, err, "encode outbox item %s", item.ID)
	}
	av := outboxKey(item.ID)
	av[attrData] = &types.AttributeValueMemberS{Value: string(data)}
	av[attrState] = &types.AttributeValueMemberS{Value: outbox.Pending}
	av[attrSent] = number(int64(item.Sent))
	av[attrAttempts] = number(int64(item.Attempts))
	av[attrRetries] = number(int64(item.Retries))
	av[attrChangedAt] = number(item.UpdatedAt)
	if item.LastError != "" {
		av[attrLastError] = &types.AttributeValueMemberS{Value: item.LastError}
	}
	_, err = o.s.client.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: &o.s.table, Item: av,
		ConditionExpression:      aws.String("attribute_not_exists(#pk)"),
		ExpressionAttributeNames: map[string]string{"#pk": attrPK},
	})
	if isConditionFailed(err) {
		return nil // a replayed announce: the first item stands
	}
	return classify(err, "put outbox item "+item.ID)
}

// Get reads one item (a strongly consistent GetItem); fault.NotFound
// when absent.
func (o *Outbox) Get(ctx context.Context, id string) (outbox.Item, error) {
	out, err := o.s.client.GetItem(ctx, &dynamodb.GetItemInput{TableName: &o.s.table, Key: outboxKey(id), ConsistentRead: aws.Bool(true)})
	if err != nil {
		return outbox.Item{}, classify(err, "get outbox item "+id)
	}
	if len(out.Item) == 0 {
		return outbox.Item{}, fault.New(fault.NotFound, outboxNotFound, id)
	}
	return decodeOutbox(out.Item)
}

// Progress sets the item's sent count with one conditional UpdateItem;
// fault.NotFound when the item is absent.
func (o *Outbox) Progress(ctx context.Context, id string, sent int) error {
	_, err := o.s.client.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: &o.s.table, Key: outboxKey(id),
		UpdateExpression:          aws.String("SET #sent = :sent"),
		ConditionExpression:       aws.String("attribute_exists(#pk)"),
		ExpressionAttributeNames:  map[string]string{"#pk": attrPK, "#sent": attrSent},
		ExpressionAttributeValues: map[string]types.AttributeValue{":sent": number(int64(sent))},
	})
	if isConditionFailed(err) {
		return fault.New(fault.NotFound, outboxNotFound, id)
	}
	return classify(err, "record progress of outbox item "+id)
}

// Settle sets state, attempts, lastError and the change time with one
// UpdateItem conditioned on the item existing and not being sent (sent is
// final: Settle of a sent item changes nothing and returns nil). Settling
// sent also sets the item's ttl, RecordTTL from now. fault.NotFound when
// the item is absent, fault.Invalid for an unknown state.
func (o *Outbox) Settle(ctx context.Context, id, state string, attempts int, lastError string, nowMS int64) error {
	if err := outbox.ValidState(state); err != nil {
		return err
	}
	set := "SET #state = :state, #attempts = :attempts, #changed = :changed"
	values := map[string]types.AttributeValue{
		":state": &types.AttributeValueMemberS{Value: state}, ":attempts": number(int64(attempts)),
		":changed": number(nowMS), ":sent": &types.AttributeValueMemberS{Value: outbox.Sent},
	}
	names := map[string]string{"#pk": attrPK, "#state": attrState, "#attempts": attrAttempts, "#changed": attrChangedAt, "#lastError": attrLastError}
	if state == outbox.Sent {
		set += ", #ttl = :ttl"
		names["#ttl"] = attrTTL
		values[":ttl"] = number(o.s.now().Add(RecordTTL).Unix())
	}
	update := set + " REMOVE #lastError"
	if lastError != "" {
		update = set + ", #lastError = :lastError"
		values[":lastError"] = &types.AttributeValueMemberS{Value: lastError}
	}
	_, err := o.s.client.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: &o.s.table, Key: outboxKey(id), UpdateExpression: aws.String(update),
		ConditionExpression:                 aws.String("attribute_exists(#pk) AND #state <> :sent"),
		ExpressionAttributeNames:            names,
		ExpressionAttributeValues:           values,
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	})
	if isConditionFailed(err) {
		// The old item, returned with the failure, tells sent from missing.
		var ccf *types.ConditionalCheckFailedException
		if errors.As(err, &ccf) && len(ccf.Item) > 0 {
			return nil
		}
		return fault.New(fault.NotFound, outboxNotFound, id)
	}
	return classify(err, "settle outbox item "+id)
}

// Revive sets a dead item pending with one UpdateItem conditioned on
// state dead (adding 1 to retries, setting changedAt) and returns the new
// item. When the condition fails, the old item returned with the failure
// tells why: pending is returned as it is (idempotent), sent is
// fault.Conflict, none is fault.NotFound.
func (o *Outbox) Revive(ctx context.Context, id string, nowMS int64) (outbox.Item, error) {
	out, err := o.s.client.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: &o.s.table, Key: outboxKey(id),
		UpdateExpression:    aws.String("SET #state = :pending, #changed = :changed ADD #retries :one"),
		ConditionExpression: aws.String("#state = :dead"),
		ExpressionAttributeNames: map[string]string{
			"#state": attrState, "#changed": attrChangedAt, "#retries": attrRetries,
		},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":pending": &types.AttributeValueMemberS{Value: outbox.Pending},
			":dead":    &types.AttributeValueMemberS{Value: outbox.Dead},
			":changed": number(nowMS), ":one": number(1),
		},
		ReturnValues:                        types.ReturnValueAllNew,
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	})
	if isConditionFailed(err) {
		var ccf *types.ConditionalCheckFailedException
		if !errors.As(err, &ccf) || len(ccf.Item) == 0 {
			return outbox.Item{}, fault.New(fault.NotFound, outboxNotFound, id)
		}
		old, derr := decodeOutbox(ccf.Item)
		if derr != nil || old.State == outbox.Pending {
			return old, derr
		}
		return outbox.Item{}, fault.New(fault.Conflict, "outbox item %q is %s; only a dead item can be retried", id, old.State)
	}
	if err != nil {
		return outbox.Item{}, classify(err, "revive outbox item "+id)
	}
	return decodeOutbox(out.Attributes)
}

// List queries the outbox partition (strongly consistent, paged), leaves
// out expired sent items, filters by state ("" all) and returns the
// newest limit (all when limit <= 0) in outbox.Sort's order. Cost:
// the whole partition is read; sent items expire, so it holds the last
// RecordTTL's announces and whatever is pending or dead.
func (o *Outbox) List(ctx context.Context, state string, limit int) ([]outbox.Item, error) {
	in := &dynamodb.QueryInput{
		TableName:                &o.s.table,
		KeyConditionExpression:   aws.String("#pk = :pk AND begins_with(#sk, :prefix)"),
		ExpressionAttributeNames: map[string]string{"#pk": attrPK, "#sk": attrSK},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":pk": &types.AttributeValueMemberS{Value: pkOutbox}, ":prefix": &types.AttributeValueMemberS{Value: skOutboxItem},
		},
		ConsistentRead: aws.Bool(true),
	}
	now := o.s.now()
	var items []outbox.Item
	for {
		out, err := o.s.client.Query(ctx, in)
		if err != nil {
			return nil, classify(err, "list outbox items")
		}
		for _, av := range out.Items {
			if expired(av, now) {
				continue
			}
			item, err := decodeOutbox(av)
			if err != nil {
				return nil, err
			}
			if state == "" || item.State == state {
				items = append(items, item)
			}
		}
		if len(out.LastEvaluatedKey) == 0 {
			break
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
	outbox.Sort(items)
	if limit > 0 && len(items) > limit {
		items = items[:limit]
	}
	return items, nil
}

// decodeOutbox reads an outbox item: its data, then the delivery fields.
func decodeOutbox(av map[string]types.AttributeValue) (outbox.Item, error) {
	var item outbox.Item
	if err := decodeData(av, &item, "outbox item "+sortKey(av)); err != nil {
		return item, err
	}
	if s, ok := av[attrState].(*types.AttributeValueMemberS); ok {
		item.State = s.Value
	}
	if s, ok := av[attrLastError].(*types.AttributeValueMemberS); ok {
		item.LastError = s.Value
	}
	item.Sent = int(outboxNumber(av[attrSent]))
	item.Attempts = int(outboxNumber(av[attrAttempts]))
	item.Retries = int(outboxNumber(av[attrRetries]))
	item.UpdatedAt = outboxNumber(av[attrChangedAt])
	return item, nil
}

// outboxNumber is a number attribute's value; 0 when absent or not a number.
func outboxNumber(av types.AttributeValue) int64 {
	n, ok := av.(*types.AttributeValueMemberN)
	if !ok {
		return 0
	}
	v, _ := strconv.ParseInt(n.Value, 10, 64)
	return v
}
