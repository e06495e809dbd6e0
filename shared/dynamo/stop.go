package dynamo

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/stopmark"
)

// The stop mark of a session: pk "session#<key>", sk "stop", the
// stopmark.Mark fields as attributes. Load reads it with the entry, so a turn
// pays nothing for it; it expires with ttl a day after it was written.
const skStop = "stop"

func stopKey(sessionKey string) map[string]types.AttributeValue {
	return key(pkSession+sessionKey, skStop)
}

func decodeStop(item map[string]types.AttributeValue) (stopmark.Mark, error) {
	var s stopmark.Mark
	err := attributevalue.UnmarshalMapWithOptions(item, &s, jsonTagsDecode)
	return s, err
}

// MarkStop writes key's stop mark with one conditional PutItem, replacing
// an earlier mark of another message (a new /stop starts its counts
// afresh). A mark of the same message is left as it is: a redelivered
// /stop (a webhook retry, an API retry with the same idempotency key) must
// not re-arm a mark its turn already cleared, which would drop the
// session's messages until the mark expired. The channel functions call it
// the moment a /stop arrives.
func (s *Store) MarkStop(ctx context.Context, key string, st stopmark.Mark) error {
	if key == "" || st.MessageID == "" {
		return fault.New(fault.Invalid, "mark stop: key and message id are required")
	}
	item, err := encodeStruct(st, stopKey(key))
	if err != nil {
		return fault.Wrap(fault.Internal, err, "encode stop mark of %s", key)
	}
	item[attrTTL] = number(s.now().Add(24 * time.Hour).Unix())
	_, err = s.client.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: &s.table, Item: item,
		ConditionExpression:       aws.String("attribute_not_exists(pk) OR messageId <> :id"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":id": &types.AttributeValueMemberS{Value: st.MessageID}},
	})
	if isConditionFailed(err) {
		return nil // this /stop's mark is already there
	}
	return classify(err, "mark stop of "+key)
}

// StopMark reads key's stop mark with one consistent GetItem; nil if none.
func (s *Store) StopMark(ctx context.Context, key string) (*stopmark.Mark, error) {
	out, err := s.client.GetItem(ctx, &dynamodb.GetItemInput{TableName: &s.table, Key: stopKey(key), ConsistentRead: aws.Bool(true)})
	if err != nil {
		return nil, classify(err, "read stop mark of "+key)
	}
	if len(out.Item) == 0 {
		return nil, nil
	}
	st, err := decodeStop(out.Item)
	if err != nil {
		return nil, fault.Wrap(fault.Internal, err, "decode stop mark of %s", key)
	}
	return &st, nil
}

// CountStop adds one to the Aborted or Dropped count of stopMessageID's
// mark with one conditional UpdateItem; a mark replaced by a newer /stop
// (or gone) is left alone.
func (s *Store) CountStop(ctx context.Context, key, stopMessageID string, aborted bool) error {
	field := "dropped"
	if aborted {
		field = "aborted"
	}
	return s.updateStop(ctx, key, stopMessageID, "ADD #f :one", map[string]string{"#f": field},
		map[string]types.AttributeValue{":one": number(1)})
}

// StopDone clears Pending on stopMessageID's mark with one conditional
// UpdateItem; a mark replaced by a newer /stop is left alone.
func (s *Store) StopDone(ctx context.Context, key, stopMessageID string) error {
	return s.updateStop(ctx, key, stopMessageID, "SET #f = :no", map[string]string{"#f": "pending"},
		map[string]types.AttributeValue{":no": &types.AttributeValueMemberBOOL{Value: false}})
}

func (s *Store) updateStop(ctx context.Context, key, stopMessageID, expr string, names map[string]string, values map[string]types.AttributeValue) error {
	names["#m"] = "messageId"
	values[":m"] = &types.AttributeValueMemberS{Value: stopMessageID}
	_, err := s.client.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: &s.table, Key: stopKey(key),
		UpdateExpression:          aws.String(expr),
		ConditionExpression:       aws.String("#m = :m"),
		ExpressionAttributeNames:  names,
		ExpressionAttributeValues: values,
	})
	if isConditionFailed(err) {
		return nil
	}
	return classify(err, "update stop mark of "+key)
}

// stopCheck is the ConditionCheck of a commit that a pending /stop of
// another message refuses (sessionstate.Extra.Stop): it passes when the mark is
// absent, not pending, the committing message's own, or expired.
func (s *Store) stopCheck(key string, c stopmark.Check) types.TransactWriteItem {
	return types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{
		TableName: &s.table, Key: stopKey(key),
		ConditionExpression:      aws.String("attribute_not_exists(#pk) OR attribute_not_exists(#p) OR #p = :no OR #m = :self OR #at <= :since"),
		ExpressionAttributeNames: map[string]string{"#pk": attrPK, "#p": "pending", "#m": "messageId", "#at": "at"},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":no":    &types.AttributeValueMemberBOOL{Value: false},
			":self":  &types.AttributeValueMemberS{Value: c.MessageID},
			":since": number(c.NowMS - stopmark.Expiry),
		},
	}}
}

// stopRefused reports whether the failed commit err was refused by its
// stop check, item at of the transaction. Without cancellation reasons
// (some emulators) it reads the mark.
func (s *Store) stopRefused(ctx context.Context, err error, at int, key string, c stopmark.Check) bool {
	var tce *types.TransactionCanceledException
	if !errors.As(err, &tce) {
		return false
	}
	if len(tce.CancellationReasons) > at {
		code := tce.CancellationReasons[at].Code
		return code != nil && *code == "ConditionalCheckFailed"
	}
	if len(tce.CancellationReasons) > 0 || !strings.Contains(tce.ErrorMessage(), "ConditionalCheckFailed") {
		return false
	}
	mark, rerr := s.StopMark(ctx, key)
	return rerr == nil && mark.Active(c.MessageID, c.NowMS)
}
