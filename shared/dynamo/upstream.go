package dynamo

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/session"
	"github.com/zero-gateway/zero/shared/sessionstate"
)

// PutImported writes an imported session: entry e under key and its
// rebuilt context c, in one TransactWriteItems, all or nothing. prev is the
// entry the importer read: nil means key must have no entry; otherwise the
// stored entry must still be at prev.Version (an entry stored without a
// version counts as 0). e.Version must be one above it (1 when prev is
// nil). A failed condition, or a concurrent transaction on the items, is
// fault.Conflict and changes nothing.
func (s *Store) PutImported(ctx context.Context, key string, prev *session.Entry, e session.Entry, c sessionstate.ModelContext) error {
	want := int64(1)
	if prev != nil {
		want = prev.Version + 1
	}
	switch {
	case key == "":
		return fault.New(fault.Invalid, "import session: key is required")
	case e.Version != want:
		return fault.New(fault.Invalid, "import session %s: entry version %d, want %d", key, e.Version, want)
	}
	entryItem, err := encodeEntry(key, e)
	if err != nil {
		return fault.Wrap(fault.Internal, err, "encode session entry of %s", key)
	}
	contextItem, err := encodeContext(key, c)
	if err != nil {
		return err
	}
	put := &types.Put{TableName: &s.table, Item: entryItem, ConditionExpression: aws.String("attribute_not_exists(pk)")}
	if prev != nil {
		cond, names, values := versionCondition(prev.Version)
		put.ConditionExpression, put.ExpressionAttributeNames, put.ExpressionAttributeValues = aws.String(cond), names, values
	}
	_, err = s.client.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{
		TransactItems: []types.TransactWriteItem{
			{Put: put},
			{Put: &types.Put{TableName: &s.table, Item: contextItem}},
		},
	})
	if err != nil {
		return classifyTransaction(err, "import session "+key, []txItem{
			{"session entry", fmt.Sprintf("session %s changed since it was read", key)},
			{"context", ""},
		})
	}
	return nil
}

// Entries calls fn with every entry of agentID updated at or after since
// (epoch ms; 0: all), newest first, paging the byAgent index to its end
// (never a scan). Reserved keys and archived entries are skipped, as List
// does. fn's error stops the walk and is returned.
func (s *Store) Entries(ctx context.Context, agentID string, since int64, fn func(key string, e session.Entry) error) error {
	if agentID == "" {
		return fault.New(fault.Invalid, "list sessions: agent id is required")
	}
	in := &dynamodb.QueryInput{
		TableName:                &s.table,
		IndexName:                aws.String(indexByAgent),
		KeyConditionExpression:   aws.String("#a = :a AND #u >= :since"),
		ExpressionAttributeNames: map[string]string{"#a": attrAgent, "#u": attrUpdatedAt},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":a":     &types.AttributeValueMemberS{Value: agentID},
			":since": number(since),
		},
		ScanIndexForward: aws.Bool(false),
	}
	for {
		out, err := s.client.Query(ctx, in)
		if err != nil {
			return classify(err, "list sessions of agent "+agentID)
		}
		for _, item := range out.Items {
			key, ok := sessionKeyOf(item)
			if !ok || sortKey(item) != skEntry || session.Reserved(key) || expired(item, s.now()) {
				continue
			}
			e, err := decodeStoredEntry(item, key)
			if err != nil {
				return err
			}
			if err := fn(key, e); err != nil {
				return err
			}
		}
		if len(out.LastEvaluatedKey) == 0 {
			return nil
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
}
