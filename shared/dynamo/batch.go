package dynamo

import (
	"context"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/zero-gateway/zero/shared/fault"
)

// maxBatchRounds bounds how often batchGet re-asks for unprocessed keys.
const maxBatchRounds = 8

// maxBatchGet is DynamoDB's limit of keys per BatchGetItem.
const maxBatchGet = 100

// batchGet reads keys (at most 100) with strongly consistent reads and
// returns the items that exist, in no particular order. Keys DynamoDB
// leaves unprocessed (throttling, size) are asked for again with backoff;
// only then does it make more than one call. what names the operation in
// errors ("load session").
func (s *Store) batchGet(ctx context.Context, keys []map[string]types.AttributeValue, what string) ([]map[string]types.AttributeValue, error) {
	req := map[string]types.KeysAndAttributes{s.table: {Keys: keys, ConsistentRead: aws.Bool(true)}}
	var items []map[string]types.AttributeValue
	backoff := 20 * time.Millisecond
	for round := 1; ; round++ {
		out, err := s.client.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: req})
		if err != nil {
			return nil, classify(err, what)
		}
		items = append(items, out.Responses[s.table]...)
		if len(out.UnprocessedKeys) == 0 || len(out.UnprocessedKeys[s.table].Keys) == 0 {
			return items, nil
		}
		if round == maxBatchRounds {
			return nil, fault.New(fault.Unavailable, "%s: %d keys still unprocessed after %d rounds", what, len(out.UnprocessedKeys[s.table].Keys), round)
		}
		req = out.UnprocessedKeys
		select {
		case <-ctx.Done():
			return nil, fault.Wrap(fault.Unavailable, ctx.Err(), "%s", what)
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, time.Second)
	}
}
