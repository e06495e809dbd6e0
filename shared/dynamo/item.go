package dynamo

import (
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/zero-gateway/zero/shared/contextstore"
	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/receipt"
	"github.com/zero-gateway/zero/shared/session"
	"github.com/zero-gateway/zero/shared/sessionstate"
)

// Item layout. The entry and record items carry their Go fields as
// top-level attributes named as the JSON tags (so a new session.Entry field
// is stored without code here); empty fields are omitted and read back as
// zero values; nested structs (origin, deliveryContext, delivery) are maps.
const (
	attrPK       = "pk"
	attrSK       = "sk"
	attrTTL      = "ttl" // epoch seconds; DynamoDB's TTL attribute
	attrVersion  = "version"
	attrState    = "state"
	attrReply    = "reply"
	attrSent     = "sent"
	attrMessages = "messages" // context item: its inline []model.Message as one JSON string
	attrBase     = "base"     // context item: the key of its base object (contextstore)
	attrBaseLen  = "baseLen"  // context item: the messages in that base
	// attrContextSession is the context item's session id. It is not named
	// sessionId so that context items stay out of the bySessionId index;
	// attrLegacySession is the name items written before the index used.
	attrContextSession = "contextSessionId"
	attrLegacySession  = "sessionId"

	// Entry attributes the indexes key on (see template.yaml). Only entry
	// items carry them, so both indexes are sparse.
	attrAgent      = "agentId"
	attrUpdatedAt  = "updatedAt"
	attrSessionID  = "sessionId"
	indexByAgent   = "byAgent"     // agentId, updatedAt; projects every attribute
	indexBySession = "bySessionId" // sessionId; projects the keys only

	pkSession = "session#"
	pkMessage = "msg#"
	skEntry   = "entry"
	skContext = "context"
	skRecord  = "record"

	// maxItemBytes is DynamoDB's item size limit (names plus values),
	// "400 KB", read as the decimal 400,000 to be safe (moto rejects above
	// 405,000; AWS was measured between 409 and 410 KB).
	maxItemBytes = 400_000
	// itemSlack keeps the context item clear of the limit: key and
	// attribute names plus DynamoDB's per-attribute overhead.
	itemSlack = 1 << 10
)

func key(pk, sk string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{
		attrPK: &types.AttributeValueMemberS{Value: pk},
		attrSK: &types.AttributeValueMemberS{Value: sk},
	}
}

func entryKey(sessionKey string) map[string]types.AttributeValue {
	return key(pkSession+sessionKey, skEntry)
}

func contextKey(sessionKey string) map[string]types.AttributeValue {
	return key(pkSession+sessionKey, skContext)
}

func recordKey(messageID string) map[string]types.AttributeValue {
	return key(pkMessage+messageID, skRecord)
}

func sortKey(item map[string]types.AttributeValue) string {
	if s, ok := item[attrSK].(*types.AttributeValueMemberS); ok {
		return s.Value
	}
	return ""
}

// jsonTags makes attributevalue name attributes after the JSON tags and
// honour their omitempty.
func jsonTags(o *attributevalue.EncoderOptions) { o.TagKey = "json" }

func jsonTagsDecode(o *attributevalue.DecoderOptions) { o.TagKey = "json" }

// encodeStruct marshals v by its JSON tags, drops empty nested maps (the
// attributevalue encoder does not know omitzero) and adds the item key.
func encodeStruct(v any, k map[string]types.AttributeValue) (map[string]types.AttributeValue, error) {
	item, err := attributevalue.MarshalMapWithOptions(v, jsonTags)
	if err != nil {
		return nil, err
	}
	for name, av := range item {
		if m, ok := av.(*types.AttributeValueMemberM); ok && len(m.Value) == 0 {
			delete(item, name)
		}
	}
	for name, av := range k {
		item[name] = av
	}
	return item, nil
}

// encodeEntry leaves out an empty sessionId: DynamoDB rejects an empty
// string as an index key, and an absent one reads back as "".
func encodeEntry(sessionKey string, e session.Entry) (map[string]types.AttributeValue, error) {
	item, err := encodeStruct(e, entryKey(sessionKey))
	if err != nil {
		return nil, err
	}
	if e.SessionID == "" {
		delete(item, attrSessionID)
	}
	if e.ArchiveAt > 0 {
		item[attrTTL] = number(archiveTTL(e.ArchiveAt))
	}
	return item, nil
}

// archiveTTL is the ttl (epoch seconds) of an entry archived at
// archiveAtMS: the second it is reached, rounded up.
func archiveTTL(archiveAtMS int64) int64 { return (archiveAtMS + 999) / 1000 }

func decodeEntry(item map[string]types.AttributeValue) (session.Entry, error) {
	var e session.Entry
	err := attributevalue.UnmarshalMapWithOptions(item, &e, jsonTagsDecode)
	return e, err
}

func encodeRecord(r receipt.Receipt, expires time.Time) (map[string]types.AttributeValue, error) {
	item, err := encodeStruct(r, recordKey(r.MessageID))
	if err != nil {
		return nil, err
	}
	item[attrTTL] = number(expires.Unix())
	return item, nil
}

func decodeRecord(item map[string]types.AttributeValue) (receipt.Receipt, error) {
	var r receipt.Receipt
	err := attributevalue.UnmarshalMapWithOptions(item, &r, jsonTagsDecode)
	return r, err
}

// expired reports whether item carries a ttl that has passed.
func expired(item map[string]types.AttributeValue, now time.Time) bool {
	n, ok := item[attrTTL].(*types.AttributeValueMemberN)
	if !ok {
		return false
	}
	ttl, err := strconv.ParseInt(n.Value, 10, 64)
	return err == nil && ttl < now.Unix()
}

// encodeContext stores the context's inline messages as one JSON string
// attribute (compact: no per-message attribute names; one read), and its
// base object's key and length (contextstore.Split) when it has one.
// Nothing is dropped: a context whose item would pass DynamoDB's limit is
// fault.Invalid (the engine folds long contexts into a base object first).
// Errors are classified.
func encodeContext(sessionKey string, c sessionstate.ModelContext) (map[string]types.AttributeValue, error) {
	item := contextKey(sessionKey)
	item[attrContextSession] = &types.AttributeValueMemberS{Value: c.SessionID}
	msgs, err := contextstore.Encode(c.Messages)
	if err != nil {
		return nil, fault.Wrap(fault.Internal, err, "encode context of %s", sessionKey)
	}
	budget := maxItemBytes - itemSlack - len(pkSession) - len(sessionKey) - len(c.SessionID) - len(c.Base)
	if len(msgs) > budget {
		return nil, fault.New(fault.Invalid, "the inline context of %s is %d bytes, above the item's %d: fold it into a base object", sessionKey, len(msgs), budget)
	}
	item[attrMessages] = &types.AttributeValueMemberS{Value: string(msgs)}
	if c.Base != "" {
		item[attrBase] = &types.AttributeValueMemberS{Value: c.Base}
		item[attrBaseLen] = number(int64(c.BaseLen))
	}
	return item, nil
}

func decodeContext(item map[string]types.AttributeValue) (sessionstate.ModelContext, error) {
	var c sessionstate.ModelContext
	for _, name := range []string{attrContextSession, attrLegacySession} {
		if s, ok := item[name].(*types.AttributeValueMemberS); ok {
			c.SessionID = s.Value
			break
		}
	}
	raw, ok := item[attrMessages].(*types.AttributeValueMemberS)
	if !ok {
		return c, fmt.Errorf("context item has no %s string", attrMessages)
	}
	if err := json.Unmarshal([]byte(raw.Value), &c.Messages); err != nil {
		return c, fmt.Errorf("context messages: %w", err)
	}
	if len(c.Messages) == 0 {
		c.Messages = nil
	}
	if b, ok := item[attrBase].(*types.AttributeValueMemberS); ok {
		c.Base = b.Value
		n, ok := item[attrBaseLen].(*types.AttributeValueMemberN)
		if !ok {
			return c, fmt.Errorf("context item has %s and no %s", attrBase, attrBaseLen)
		}
		baseLen, err := strconv.Atoi(n.Value)
		if err != nil || baseLen < 0 {
			return c, fmt.Errorf("context item %s %q: not a count", attrBaseLen, n.Value)
		}
		c.BaseLen = baseLen
	}
	return c, nil
}
