package dynamo

import (
	"context"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/tools/web"
)

// The web cache: pk "webcache#<key>" (key: the hex SHA-256 digest of the
// normalised request, web.FetchKey / web.SearchKey), sk "entry",
// the value as the binary attribute "data", expiring with ttl.
const (
	pkWebCache   = "webcache#"
	skWebCache   = "entry"
	attrWebData  = "data"
	maxWebCached = maxItemBytes - itemSlack // larger values are not cached
)

// WebCache is the web.Cache of web_fetch and web_search on the
// table, shared by every runner instance.
type WebCache struct{ s *Store }

var _ web.Cache = (*WebCache)(nil)

// WebCache is the web cache on s's table.
func (s *Store) WebCache() *WebCache { return &WebCache{s: s} }

func webCacheKey(k string) map[string]types.AttributeValue { return key(pkWebCache+k, skWebCache) }

// Get reads key with one eventually consistent GetItem (a value written a
// moment ago on another instance may be missed: that is one more fetch).
// An item past its ttl that DynamoDB has not deleted yet is a miss.
func (w *WebCache) Get(ctx context.Context, k string) ([]byte, bool, error) {
	if k == "" {
		return nil, false, fault.New(fault.Invalid, "web cache get: the key is required")
	}
	out, err := w.s.client.GetItem(ctx, &dynamodb.GetItemInput{TableName: &w.s.table, Key: webCacheKey(k)})
	if err != nil {
		return nil, false, classify(err, "web cache get")
	}
	if out.Item == nil || expired(out.Item, w.s.now()) {
		return nil, false, nil
	}
	data, ok := out.Item[attrWebData].(*types.AttributeValueMemberB)
	if !ok {
		return nil, false, nil
	}
	return data.Value, true, nil
}

// Put writes value under k with one PutItem, expiring ttl from now
// (rounded up to the second). A value too large for an item is skipped.
func (w *WebCache) Put(ctx context.Context, k string, value []byte, ttl time.Duration) error {
	if k == "" {
		return fault.New(fault.Invalid, "web cache put: the key is required")
	}
	if len(value) > maxWebCached {
		return nil
	}
	expires := w.s.now().Add(ttl + time.Second - 1).Unix()
	item := webCacheKey(k)
	item[attrWebData] = &types.AttributeValueMemberB{Value: value}
	item[attrTTL] = number(expires)
	_, err := w.s.client.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(w.s.table), Item: item})
	return classify(err, "web cache put")
}
