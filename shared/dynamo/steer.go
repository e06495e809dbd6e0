package dynamo

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/steer"
)

// A steer-mode session's pending message (queue mode steer): pk
// "session#<key>", sk "steer#<messageId>", the steer.Pending fields as
// attributes and a ttl steer.TTLHours after the door wrote it. Only steer
// sessions have them: other sessions' turns never read them.
const skSteerPrefix = "steer#"

func steerKey(sessionKey, messageID string) map[string]types.AttributeValue {
	return key(pkSession+sessionKey, skSteerPrefix+messageID)
}

// RecordSteer writes key's pending message p with one PutItem (the ingest
// door, before it queues the message). Writing it again (a redelivered
// webhook) rewrites the same item.
func (s *Store) RecordSteer(ctx context.Context, key string, p steer.Pending) error {
	if key == "" || p.MessageID == "" {
		return fault.New(fault.Invalid, "record steer message: key and message id are required")
	}
	item, err := encodeStruct(p, steerKey(key, p.MessageID))
	if err != nil {
		return fault.Wrap(fault.Internal, err, "encode steer message %s", p.MessageID)
	}
	item[attrTTL] = number(s.now().Add(steer.TTLHours * time.Hour).Unix())
	_, err = s.client.PutItem(ctx, &dynamodb.PutItemInput{TableName: &s.table, Item: item})
	return classify(err, "record steer message of "+key)
}

// PendingSteer lists key's pending messages, oldest first, with one
// consistent Query (more pages only past 1 MB); expired items are left out.
func (s *Store) PendingSteer(ctx context.Context, key string) ([]steer.Pending, error) {
	in := &dynamodb.QueryInput{
		TableName:                &s.table,
		KeyConditionExpression:   aws.String("#pk = :pk AND begins_with(#sk, :prefix)"),
		ExpressionAttributeNames: map[string]string{"#pk": attrPK, "#sk": attrSK},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":pk":     &types.AttributeValueMemberS{Value: pkSession + key},
			":prefix": &types.AttributeValueMemberS{Value: skSteerPrefix},
		},
		ConsistentRead: aws.Bool(true),
	}
	var out []steer.Pending
	for {
		page, err := s.client.Query(ctx, in)
		if err != nil {
			return nil, classify(err, "read steer messages of "+key)
		}
		for _, item := range page.Items {
			if expired(item, s.now()) {
				continue
			}
			var p steer.Pending
			if err := attributevalue.UnmarshalMapWithOptions(item, &p, jsonTagsDecode); err != nil {
				return nil, fault.Wrap(fault.Internal, err, "decode steer message of %s", key)
			}
			out = append(out, p)
		}
		if len(page.LastEvaluatedKey) == 0 {
			break
		}
		in.ExclusiveStartKey = page.LastEvaluatedKey
	}
	// The sort key orders them by message id, not by arrival.
	slices.SortStableFunc(out, func(a, b steer.Pending) int { return cmp.Compare(a.At, b.At) })
	return out, nil
}

// Recorded reports which of ids have a live message record, with one
// consistent BatchGetItem per 100 ids.
func (s *Store) Recorded(ctx context.Context, ids []string) (map[string]bool, error) {
	keys := make([]map[string]types.AttributeValue, 0, len(ids))
	for _, id := range ids {
		keys = append(keys, recordKey(id))
	}
	out := map[string]bool{}
	for start := 0; start < len(keys); start += maxBatchGet {
		items, err := s.batchGet(ctx, keys[start:min(start+maxBatchGet, len(keys))], "read message records")
		if err != nil {
			return nil, err
		}
		for _, it := range items {
			if r, err := decodeRecord(it); err == nil && !expired(it, s.now()) {
				out[r.MessageID] = true
			}
		}
	}
	return out, nil
}

// DropSteer deletes key's pending messages ids with BatchWriteItem (25
// per call); deleting one that is gone succeeds.
func (s *Store) DropSteer(ctx context.Context, key string, ids []string) error {
	var reqs []types.WriteRequest
	for _, id := range ids {
		reqs = append(reqs, types.WriteRequest{DeleteRequest: &types.DeleteRequest{Key: steerKey(key, id)}})
	}
	for start := 0; start < len(reqs); start += maxBatchWrite {
		if err := s.Runs().batchWrite(ctx, reqs[start:min(start+maxBatchWrite, len(reqs))], "drop steer messages of "+key); err != nil {
			return err
		}
	}
	return nil
}

// SessionQueueMode is key's own queue mode (/queue, sessions.patch; ""
// for none, or no session) with one eventually consistent GetItem of the
// entry's queueMode alone: the ingest door's read, so a session's
// override acts at the door (interrupt marks, steer records). A /queue
// change a moment old may not be seen yet; the door's callers cache it
// for the config's TTL anyway (ingest.CachedModes).
func (s *Store) SessionQueueMode(ctx context.Context, key string) (string, error) {
	out, err := s.client.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: &s.table, Key: entryKey(key),
		ProjectionExpression:     aws.String("#q, #ttl"),
		ExpressionAttributeNames: map[string]string{"#q": "queueMode", "#ttl": attrTTL},
	})
	if err != nil {
		return "", classify(err, "read the queue mode of "+key)
	}
	if len(out.Item) == 0 || expired(out.Item, s.now()) {
		return "", nil
	}
	mode, _ := out.Item["queueMode"].(*types.AttributeValueMemberS)
	if mode == nil {
		return "", nil
	}
	return mode.Value, nil
}
