package awscalls

import (
	"net/url"
	"strings"

	"github.com/zero-gateway/zero/cmd/zero/devstack/iampolicy"
)

// sqsActions are the actions AWS authorises SQS batch operations as.
var sqsActions = map[string]string{
	"SendMessageBatch":             "SendMessage",
	"DeleteMessageBatch":           "DeleteMessage",
	"ChangeMessageVisibilityBatch": "ChangeMessageVisibility",
}

// parseSQS maps an SQS call to its queue's ARN, taken from QueueUrl
// (…/<account>/<name>) or QueueName.
func parseSQS(a args) (string, []iampolicy.Request) {
	op := operation(a)
	action := op
	if base, ok := sqsActions[op]; ok {
		action = base
	}
	account, name := a.account, param(a, "QueueName")
	if q := param(a, "QueueUrl"); q != "" {
		if u, err := url.Parse(q); err == nil {
			parts := strings.Split(strings.Trim(u.Path, "/"), "/")
			name = parts[len(parts)-1]
			if len(parts) >= 2 {
				account = parts[len(parts)-2]
			}
		}
	}
	res := "*"
	if name != "" {
		res = "arn:aws:sqs:" + a.region + ":" + account + ":" + name
	}
	return "SQS." + op, []iampolicy.Request{{Action: "sqs:" + action, Resource: res}}
}
