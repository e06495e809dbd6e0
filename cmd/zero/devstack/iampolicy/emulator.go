package iampolicy

import "strings"

// apiAliases are API operations an emulator checks by their own name
// where AWS authorises them as another action: moto asks for
// dynamodb:TransactWriteItems and sqs:SendMessageBatch, AWS for the
// actions of the items (dynamodb:PutItem, ...) and sqs:SendMessage.
var apiAliases = map[string][]string{
	"dynamodb:putitem":            {"dynamodb:TransactWriteItems"},
	"dynamodb:updateitem":         {"dynamodb:TransactWriteItems"},
	"dynamodb:deleteitem":         {"dynamodb:TransactWriteItems"},
	"dynamodb:conditioncheckitem": {"dynamodb:TransactWriteItems"},
	"dynamodb:getitem":            {"dynamodb:TransactGetItems"},
	"sqs:sendmessage":             {"sqs:SendMessageBatch"},
	"sqs:deletemessage":           {"sqs:DeleteMessageBatch"},
	"sqs:changemessagevisibility": {"sqs:ChangeMessageVisibilityBatch"},
}

// ForEmulator derives from p the policy an emulator that checks actions
// only (moto: most services evaluate the resource as "*", and no
// condition keys are supplied) can enforce without refusing what p
// allows: each Allow statement with its actions (plus the emulator's
// names for the same operations, apiAliases) on Resource "*" and without
// its Condition. Deny statements are left out, since at Resource "*" a
// Deny scoped to one resource would deny the action everywhere. What this
// loses, resources, conditions and Deny, Check verifies on the recorded
// calls.
func ForEmulator(p Policy) Policy {
	out := Policy{Version: "2012-10-17"}
	for _, st := range p.Statement {
		if st.Effect != Allow {
			continue
		}
		e := Statement{Effect: Allow, Resource: Strings{"*"}, NotAction: st.NotAction}
		if len(st.Action) > 0 {
			seen := map[string]bool{}
			for _, a := range st.Action {
				for _, x := range append([]string{a}, apiAliases[strings.ToLower(a)]...) {
					if !seen[strings.ToLower(x)] {
						seen[strings.ToLower(x)] = true
						e.Action = append(e.Action, x)
					}
				}
			}
		}
		out.Statement = append(out.Statement, e)
	}
	if len(out.Statement) == 0 {
		// IAM refuses an empty document; this statement allows nothing.
		out.Statement = []Statement{{Effect: Allow, Action: Strings{"none:None"}, Resource: Strings{"*"}}}
	}
	return out
}
