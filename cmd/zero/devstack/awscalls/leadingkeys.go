package awscalls

import (
	"encoding/json"
	"regexp"
	"sort"
	"strings"
)

// LeadingKeys is the condition key of the partition-key values a DynamoDB
// request touches (IAM's dynamodb:LeadingKeys).
const LeadingKeys = "dynamodb:LeadingKeys"

// partitionKey is the attribute name of the single table's partition key
// (template.yaml's SessionTable: pk HASH). The recorder does not read the
// table's schema; every table the stack creates is keyed so.
const partitionKey = "pk"

// unknownKey stands for a partition-key value the recorder could not read
// (a binary key, a Query it cannot parse, a Query of an index, whose
// LeadingKeys the local check does not model): it matches no
// LeadingKeys pattern but "*", so a statement conditioned on the key
// fails the check loudly rather than passing unchecked.
const unknownKey = "<unparsed>"

// attrValue is a DynamoDB attribute value as the JSON protocol writes it;
// only the scalar kinds a partition key may hold are read (S and N; a
// binary key reads as unknownKey).
type attrValue struct {
	S *string
	N *string
}

// item is a key or item map.
type item map[string]attrValue

// pk returns the item's partition-key value, or unknownKey.
func (it item) pk() string {
	v, ok := it[partitionKey]
	switch {
	case !ok:
		return unknownKey
	case v.S != nil:
		return *v.S
	case v.N != nil:
		return *v.N
	}
	return unknownKey
}

// keySet returns the sorted distinct partition keys of items as a
// condition context, nil for none.
func keySet(items ...item) map[string][]string {
	seen := map[string]bool{}
	var vals []string
	for _, it := range items {
		if k := it.pk(); !seen[k] {
			seen[k] = true
			vals = append(vals, k)
		}
	}
	if len(vals) == 0 {
		return nil
	}
	sort.Strings(vals)
	return map[string][]string{LeadingKeys: vals}
}

// singleItemKeys is the LeadingKeys of a GetItem, PutItem, UpdateItem or
// DeleteItem: its Key's (PutItem: its Item's) partition key.
func singleItemKeys(body []byte) map[string][]string {
	var b struct{ Key, Item item }
	_ = json.Unmarshal(body, &b)
	if b.Key == nil {
		b.Key = b.Item
	}
	return keySet(b.Key)
}

// batchEntry is one table's entry of a BatchGetItem (Keys) or one write
// request of a BatchWriteItem (PutRequest.Item, DeleteRequest.Key).
type batchEntry struct {
	Keys          []item
	PutRequest    *struct{ Item item }
	DeleteRequest *struct{ Key item }
}

// batchKeys is the LeadingKeys of one table's entry of a batch: all its
// items' partition keys. raw is a BatchGetItem's {"Keys": [...]} or a
// BatchWriteItem's list of write requests.
func batchKeys(raw json.RawMessage) map[string][]string {
	var items []item
	var get batchEntry
	if json.Unmarshal(raw, &get) == nil {
		items = append(items, get.Keys...)
	}
	var writes []batchEntry
	if json.Unmarshal(raw, &writes) == nil {
		for _, w := range writes {
			switch {
			case w.PutRequest != nil:
				items = append(items, w.PutRequest.Item)
			case w.DeleteRequest != nil:
				items = append(items, w.DeleteRequest.Key)
			}
		}
	}
	return keySet(items...)
}

// transactKeys is the LeadingKeys of one transaction item (Put: its Item,
// the others their Key).
func transactKeys(raw json.RawMessage) map[string][]string {
	var op struct{ Key, Item item }
	_ = json.Unmarshal(raw, &op)
	if op.Key == nil {
		op.Key = op.Item
	}
	return keySet(op.Key)
}

// equality is one "<name> = <:value>" clause of a key condition.
var (
	equality = regexp.MustCompile(`^\(*\s*([#\w.]+)\s*=\s*(:\w+)\s*\)*$`)
	and      = regexp.MustCompile(`(?i)\s+AND\s+`)
)

// queryKeys is the LeadingKeys of a Query of the base table: the value
// its key condition (KeyConditionExpression, or the legacy KeyConditions)
// requires the partition key to equal; unknownKey when neither names one.
func queryKeys(body []byte) map[string][]string {
	var b struct {
		KeyConditionExpression    string
		ExpressionAttributeNames  map[string]string
		ExpressionAttributeValues map[string]attrValue
		KeyConditions             map[string]struct {
			ComparisonOperator string
			AttributeValueList []attrValue
		}
	}
	_ = json.Unmarshal(body, &b)
	if c, ok := b.KeyConditions[partitionKey]; ok && c.ComparisonOperator == "EQ" && len(c.AttributeValueList) == 1 {
		return keySet(item{partitionKey: c.AttributeValueList[0]})
	}
	for _, clause := range and.Split(b.KeyConditionExpression, -1) {
		m := equality.FindStringSubmatch(strings.TrimSpace(clause))
		if m == nil {
			continue
		}
		name := m[1]
		if alias, ok := b.ExpressionAttributeNames[name]; ok {
			name = alias
		}
		if v, ok := b.ExpressionAttributeValues[m[2]]; ok && name == partitionKey {
			return keySet(item{partitionKey: v})
		}
	}
	return keySet(item{})
}
