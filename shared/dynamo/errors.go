package dynamo

import (
	"errors"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/zero-gateway/zero/shared/awserr"
	"github.com/zero-gateway/zero/shared/fault"
)

// codes are DynamoDB's own error codes; awserr handles the common ones.
var codes = map[string]fault.Code{
	"ConditionalCheckFailedException": fault.Conflict, "TransactionConflictException": fault.Conflict,
	"ProvisionedThroughputExceededException": fault.Unavailable, "RequestLimitExceeded": fault.Unavailable,
	"LimitExceededException": fault.Unavailable, "TransactionInProgressException": fault.Unavailable,
	"ReplicatedWriteConflictException": fault.Unavailable,
	"ValidationException":              fault.Invalid, "SerializationException": fault.Invalid,
	"ItemCollectionSizeLimitExceededException": fault.Invalid,
	// The table is missing: a deployment problem, not a missing item.
	"ResourceNotFoundException": fault.Internal,
}

// classify turns an SDK error into a fault class; it is the only place
// this package looks at DynamoDB error codes (besides classifyTransaction).
func classify(err error, what string) error { return awserr.Classify(err, codes, "%s", what) }

func codeOf(err error) fault.Code { return awserr.Code(err, codes) }

func isConditionFailed(err error) bool {
	var ccf *types.ConditionalCheckFailedException
	return errors.As(err, &ccf)
}

// txItem describes one item of a transaction for error messages: its name,
// and what a failed condition on it means ("" when it has none).
type txItem struct{ name, failed string }

// classifyCommit classifies a failed Commit (see classifyTransaction).
func classifyCommit(err error, key string, version int64, messageID string) error {
	return classifyTransaction(err, fmt.Sprintf("commit turn %s of %s", messageID, key), []txItem{
		{"session entry", fmt.Sprintf("session %s is not at version %d", key, version-1)},
		{"context", ""},
		{"message record", fmt.Sprintf("message %s is already committed", messageID)},
	})
}

// classifyTransaction reads the cancellation reasons of a failed
// TransactWriteItems whose items are described, in order, by items: a
// failed condition or a concurrent transaction on the same items is
// fault.Conflict (the message names which item), throttling is
// fault.Unavailable, a validation failure (an item too large) fault.Invalid.
// what says what was being done.
func classifyTransaction(err error, what string, items []txItem) error {
	var tce *types.TransactionCanceledException
	if !errors.As(err, &tce) {
		return classify(err, what)
	}
	name := func(i int) string {
		if i >= 0 && i < len(items) {
			return items[i].name
		}
		return fmt.Sprintf("item %d", i)
	}
	code, why := fault.Internal, []string(nil)
	rank := map[fault.Code]int{fault.Conflict: 4, fault.Invalid: 3, fault.Unavailable: 2, fault.Internal: 1}
	for i, r := range tce.CancellationReasons {
		c := ""
		if r.Code != nil {
			c = *r.Code
		}
		var rc fault.Code
		switch c {
		case "", "None":
			continue
		case "ConditionalCheckFailed":
			rc = fault.Conflict
			if i < len(items) && items[i].failed != "" {
				why = append(why, items[i].failed)
			}
		case "TransactionConflict":
			rc = fault.Conflict
			why = append(why, "a concurrent write to the "+name(i))
		case "ThrottlingError", "ProvisionedThroughputExceeded", "RequestLimitExceeded":
			rc = fault.Unavailable
			why = append(why, "throttled")
		case "ValidationError", "ItemCollectionSizeLimitExceeded":
			rc = fault.Invalid
			why = append(why, "invalid "+name(i))
		default:
			rc = fault.Internal
			why = append(why, c+" on the "+name(i))
		}
		if rank[rc] > rank[code] {
			code = rc
		}
	}
	if len(tce.CancellationReasons) == 0 && strings.Contains(tce.ErrorMessage(), "ConditionalCheckFailed") {
		code = fault.Conflict // an emulator that sends no reasons
	}
	msg := what
	if len(why) > 0 {
		msg += ": " + strings.Join(why, "; ")
	}
	return fault.Wrap(code, err, "%s", msg)
}
