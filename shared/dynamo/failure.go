package dynamo

import (
	"context"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/zero-gateway/zero/shared/fault"
)

// The last failed attempt of a message: pk "msg#<id>", sk "failure",
// attributes sessionKey, error (operator-facing, never the message text),
// attempts, at (epoch ms) and noticeAt (epoch ms, once the sender was
// told in the current run of receives: RecordFailure removes it when the
// receive count goes back, as a redriven message's does). It lives as
// long as the dead-letter queue keeps messages
// (FailureTTL), so `zero dlq list` can name why each one is there.
const skFailure = "failure"

// FailureTTL outlives the dead-letter queue's 14-day retention.
const FailureTTL = 15 * 24 * time.Hour

// FailureKey is the table key of messageID's failure item, for readers
// such as `zero dlq list`.
func FailureKey(messageID string) map[string]types.AttributeValue {
	return key(pkMessage+messageID, skFailure)
}

// RecordFailure writes messageID's failed attempt and reports, from the
// item's previous values, whether the sender was told in this run of
// receives. One UpdateItem conditioned on the stored attempt being lower
// (or absent) keeps noticeAt; when the condition fails the receive count
// went back (a redriven message starts again at 1): a second UpdateItem
// writes the attempt, removes noticeAt and reports false.
func (s *Store) RecordFailure(ctx context.Context, sessionKey, messageID string, attempt int, reason string) (bool, error) {
	if messageID == "" {
		return false, fault.New(fault.Invalid, "record failure: message id is required")
	}
	now := s.now()
	in := &dynamodb.UpdateItemInput{
		TableName:                &s.table,
		Key:                      FailureKey(messageID),
		UpdateExpression:         aws.String("SET sessionKey = :k, #err = :e, attempts = :a, #at = :at, #ttl = :ttl"),
		ConditionExpression:      aws.String("attribute_not_exists(attempts) OR attempts < :a"),
		ExpressionAttributeNames: map[string]string{"#err": "error", "#at": "at", "#ttl": attrTTL},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":k": &types.AttributeValueMemberS{Value: sessionKey}, ":e": &types.AttributeValueMemberS{Value: reason},
			":a": number(int64(attempt)), ":at": number(now.UnixMilli()), ":ttl": number(now.Add(FailureTTL).Unix()),
		},
		ReturnValues: types.ReturnValueAllOld,
	}
	out, err := s.client.UpdateItem(ctx, in)
	if isConditionFailed(err) {
		// A new run of receives: its last attempt tells the sender again.
		in.UpdateExpression = aws.String(*in.UpdateExpression + " REMOVE noticeAt")
		in.ConditionExpression, in.ReturnValues = nil, types.ReturnValueNone
		_, err = s.client.UpdateItem(ctx, in)
		return false, classify(err, "record failure of "+messageID)
	}
	if err != nil {
		return false, classify(err, "record failure of "+messageID)
	}
	_, told := out.Attributes["noticeAt"]
	return told, nil
}

// Told sets noticeAt on messageID's failure item with one UpdateItem.
func (s *Store) Told(ctx context.Context, messageID string) error {
	if messageID == "" {
		return fault.New(fault.Invalid, "record failure notice: message id is required")
	}
	now := s.now()
	_, err := s.client.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 &s.table,
		Key:                       FailureKey(messageID),
		UpdateExpression:          aws.String("SET noticeAt = :now, #ttl = if_not_exists(#ttl, :ttl)"),
		ExpressionAttributeNames:  map[string]string{"#ttl": attrTTL},
		ExpressionAttributeValues: map[string]types.AttributeValue{":now": number(now.UnixMilli()), ":ttl": number(now.Add(FailureTTL).Unix())},
	})
	return classify(err, "record failure notice of "+messageID)
}
