package devstack

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/zero-gateway/zero/cmd/zero/devstack/iampolicy"
	"github.com/zero-gateway/zero/shared/telegram/telegramtest"
)

// toolModel is an OpenAI-compatible model that, asked about "the other
// session", calls session_status on the sessionId it was given (and resets
// that session's model), then answers "done"; anything else it answers
// "hi". It checks the API key.
type toolModel struct {
	*httptest.Server
	mu     sync.Mutex
	target string // the sessionId session_status is called with
}

const toolModelKey = "sk-iam-test-0123456789"

func newToolModel(t *testing.T) *toolModel {
	m := &toolModel{}
	m.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Model    string `json:"model"`
			Messages []struct {
				Role    string          `json:"role"`
				Content json.RawMessage `json:"content"`
			} `json:"messages"`
		}
		if r.URL.Path != "/v1/chat/completions" || r.Header.Get("Authorization") != "Bearer "+toolModelKey || json.NewDecoder(r.Body).Decode(&req) != nil {
			t.Errorf("tool model: unexpected request %s %s", r.Method, r.URL.Path)
			http.Error(w, `{"error":{"message":"unexpected request","type":"invalid_request_error"}}`, http.StatusBadRequest)
			return
		}
		last := req.Messages[len(req.Messages)-1]
		msg := `{"role":"assistant","content":"hi"}`
		finish := "stop"
		switch {
		case last.Role == "tool":
			msg = `{"role":"assistant","content":"done"}`
		case strings.Contains(contentText(last.Content), "write a note"):
			// The file tools: a conditional PutObject in the workspace.
			msg = `{"role":"assistant","content":null,"tool_calls":[{"id":"call_w","type":"function","function":{"name":"write","arguments":"{\"path\":\"memory/iam.md\",\"content\":\"- noted\\n\"}"}}]}`
			finish = "tool_calls"
		case strings.Contains(contentText(last.Content), "the other session"):
			m.mu.Lock()
			args, _ := json.Marshal(map[string]string{"sessionKey": m.target, "model": "default"})
			m.mu.Unlock()
			msg = fmt.Sprintf(`{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"session_status","arguments":%q}}]}`, args)
			finish = "tool_calls"
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":"chatcmpl-iam","object":"chat.completion","created":1767225600,"model":%q,"choices":[{"index":0,"message":%s,"finish_reason":%q}],"usage":{"prompt_tokens":10,"completion_tokens":3,"total_tokens":13}}`, req.Model, msg, finish)
	}))
	t.Cleanup(m.Close)
	return m
}

// chatUpdate is the sample update from another private chat.
func chatUpdate(t *testing.T, id int, chat int64, text string) []byte {
	t.Helper()
	var u map[string]any
	if err := json.Unmarshal(update(t, id, text), &u); err != nil {
		t.Fatal(err)
	}
	msg := u["message"].(map[string]any)
	msg["chat"].(map[string]any)["id"] = chat
	msg["from"].(map[string]any)["id"] = chat
	out, _ := json.Marshal(u)
	return out
}

// TestIAMEnforcedLocally runs a tool turn through the real bootstraps,
// each signing with its own IAM user, and checks that the emulator
// refuses what a function's role does not allow; that the turn's calls
// were recorded with their resources (the stop mark's GetItem between
// steps, session_status's Query on the bySessionId index); that they are
// allowed by the template (startStack's CheckIAM); and that removing a
// permission from the template makes the check fail, naming the function,
// the operation and the resource.
func TestIAMEnforcedLocally(t *testing.T) {
	need(t, "AWS emulator", emuErr)
	needRIE(t)
	t.Parallel()
	tg := telegramtest.New(t, e2eToken)
	model := newToolModel(t)
	st := startStack(t, Options{
		Template: translatedTemplate(t),
		Prefix:   uniquePrefix(t, "iam"),
		Params: map[string]string{
			"TelegramBotId": "123456", "TelegramAPIBaseURL": tg.URL,
			"ZeroModel": "openai/gpt-4o-mini", "OpenAIBaseURL": model.URL + "/v1",
		},
		Secrets: map[string]string{
			"telegram-bot-token": e2eToken, "telegram-webhook-secret": e2eSecret,
			"gateway-token": e2eGatewayToken, "openai-api-key": toolModelKey,
		},
		Config:   []byte(`{session: {dmScope: "per-channel-peer"}, channels: {telegram: {allowFrom: ["*"], owners: ["*"]}}}`),
		PollWait: time.Second,
		Output:   &invocationLog{},
	})
	if st.emu == nil && st.adminCredentials() == nil {
		t.Log("the emulator does not enforce IAM (borrowed without an admin key): checking recorded calls only")
	} else {
		t.Run("the emulator refuses what the role does not allow", func(t *testing.T) { emulatorRefuses(t, st) })
	}

	if code := postUpdate(t, st, e2eSecret, chatUpdate(t, 1, 111, "hello")); code != http.StatusOK {
		t.Fatalf("webhook = %d, want 200", code)
	}
	tg.WaitSent(t, 1)
	model.mu.Lock()
	model.target = sessionIDOf(t, st, "111")
	model.mu.Unlock()
	if code := postUpdate(t, st, e2eSecret, chatUpdate(t, 2, 222, "how is the other session?")); code != http.StatusOK {
		t.Fatalf("webhook = %d, want 200", code)
	}
	if got := tg.WaitSent(t, 2)[1].Text; got != "done" {
		t.Errorf("tool turn reply = %q, want done", got)
	}

	if code := postUpdate(t, st, e2eSecret, chatUpdate(t, 3, 333, "write a note")); code != http.StatusOK {
		t.Fatalf("webhook = %d, want 200", code)
	}
	if got := tg.WaitSent(t, 3)[2].Text; got != "done" {
		t.Errorf("write turn reply = %q, want done", got)
	}

	calls := st.AWSCalls()
	t.Logf("recorded AWS calls:\n%s", callKeys(calls))
	table := st.Resources.Tables["SessionTable"].ARN
	note := "arn:aws:s3:::" + st.Resources.Buckets["TranscriptBucket"].Name + "/agents/main/workspace/memory/iam.md"
	for _, want := range []iampolicy.Call{
		{Function: "Runner", Operation: "S3.PutObject", Request: iampolicy.Request{Action: "s3:PutObject", Resource: note}},
		{Function: "Runner", Operation: "DynamoDB.GetItem", Request: iampolicy.Request{Action: "dynamodb:GetItem", Resource: table}},
		{Function: "Runner", Operation: "DynamoDB.Query", Request: iampolicy.Request{Action: "dynamodb:Query", Resource: table + "/index/bySessionId"}},
		{Function: "TelegramWebhook", Operation: "SQS.SendMessage", Request: iampolicy.Request{Action: "sqs:SendMessage", Resource: st.Resources.Queues["WorkQueue"].ARN}},
	} {
		// The context (the keys a DynamoDB call touched) varies per call.
		sameQuestion := func(c iampolicy.Call) bool {
			c.Context = nil
			return c.Key() == want.Key()
		}
		if !slices.ContainsFunc(calls, sameQuestion) {
			t.Errorf("no recorded call %s; recorded:\n%s", want.Key(), callKeys(calls))
		}
	}
	t.Run("a removed permission fails the check", func(t *testing.T) { removedPermissions(t, st, calls) })
}

// emulatorRefuses signs as the Gateway's own user: the emulator must
// refuse an action its role lacks (sqs:DeleteMessage is the runner's).
func emulatorRefuses(t *testing.T, st *Stack) {
	creds := st.Resources.Functions["Gateway"].Credentials
	if creds == nil {
		t.Fatal("the Gateway has no IAM user")
	}
	cfg := st.AWSConfig.Copy()
	cfg.Credentials = aws.NewCredentialsCache(staticCreds(*creds))
	if _, err := sts.NewFromConfig(cfg).GetCallerIdentity(context.Background(), &sts.GetCallerIdentityInput{}); err != nil {
		t.Fatalf("the Gateway's key is not known to the emulator: %v", err)
	}
	// moto answers a refused DynamoDB call with a 403 whose body is XML
	// (AccessDenied), which the SDK cannot decode: check the status.
	_, err := dynamodb.NewFromConfig(cfg).DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(st.Resources.Tables["SessionTable"].Name)})
	var re *smithyhttp.ResponseError
	if !errors.As(err, &re) || re.HTTPStatusCode() != http.StatusForbidden {
		t.Errorf("DeleteTable as the Gateway = %v, want 403", err)
	}
}

type staticCreds aws.Credentials

func (c staticCreds) Retrieve(context.Context) (aws.Credentials, error) {
	return aws.Credentials(c), nil
}

// removedPermissions evaluates the recorded calls against the template's
// policies with one permission taken away.
func removedPermissions(t *testing.T, st *Stack, calls []iampolicy.Call) {
	table := st.Resources.Tables["SessionTable"].ARN
	queue := st.Resources.Queues["WorkQueue"].ARN
	for _, tc := range []struct {
		name     string
		function string
		// drop takes the permission away from the function's policy.
		drop func(iampolicy.Policy) iampolicy.Policy
		// want and reason are a violation's start and its reason; the
		// call's context (dynamodb:LeadingKeys=...) may sit between.
		want, reason string
	}{
		{"runner without GetItem", "Runner", dropAction("dynamodb:GetItem", table),
			"Runner: DynamoDB.GetItem needs dynamodb:GetItem on " + table, "no statement allows it"},
		{"runner without the bySessionId index", "Runner", dropAction("dynamodb:Query", table+"/index/bySessionId"),
			"Runner: DynamoDB.Query needs dynamodb:Query on " + table + "/index/bySessionId", "no statement allows it"},
		{"webhook without SendMessage", "TelegramWebhook", dropAction("sqs:SendMessage", queue),
			"TelegramWebhook: SQS.SendMessage needs sqs:SendMessage on " + queue, "no statement allows it"},
		{"runner with a Deny on the table", "Runner", denyAll(table),
			"Runner: DynamoDB.GetItem needs dynamodb:GetItem on " + table, "denied by statement"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			policies := st.Policies()
			if err := iampolicy.Err(iampolicy.Check(policies, calls)); err != nil {
				t.Fatalf("the template's policies already fail: %v", err)
			}
			policies[tc.function] = tc.drop(policies[tc.function])
			err := iampolicy.Err(iampolicy.Check(policies, calls))
			want := regexp.MustCompile(regexp.QuoteMeta(tc.want) + `( \([^)]*\))*: ` + regexp.QuoteMeta(tc.reason))
			if err == nil || !want.MatchString(err.Error()) {
				t.Errorf("check with the permission removed = %v\nwant it to name: %s: %s", err, tc.want, tc.reason)
			}
		})
	}
}

// dropAction removes action from the statements that allow it on resource.
func dropAction(action, resource string) func(iampolicy.Policy) iampolicy.Policy {
	return func(p iampolicy.Policy) iampolicy.Policy {
		out := iampolicy.Policy{Version: p.Version}
		for _, st := range p.Statement {
			one := iampolicy.Policy{Statement: []iampolicy.Statement{st}}
			if one.Evaluate(iampolicy.Request{Action: action, Resource: resource}).Allowed {
				st.Action = slices.DeleteFunc(slices.Clone(st.Action), func(a string) bool { return iampolicy.Match(a, action, true) })
				if len(st.Action) == 0 {
					continue
				}
			}
			out.Statement = append(out.Statement, st)
		}
		return out
	}
}

// denyAll adds a Deny of every DynamoDB action on resource.
func denyAll(resource string) func(iampolicy.Policy) iampolicy.Policy {
	return func(p iampolicy.Policy) iampolicy.Policy {
		deny := iampolicy.Statement{Effect: iampolicy.Deny, Action: iampolicy.Strings{"dynamodb:*"}, Resource: iampolicy.Strings{resource}}
		return iampolicy.Merge(p, iampolicy.Policy{Statement: []iampolicy.Statement{deny}})
	}
}

// sessionIDOf reads the sessionId of the session whose key ends in peer.
func sessionIDOf(t *testing.T, st *Stack, peer string) string {
	t.Helper()
	out, err := dynamodb.NewFromConfig(st.AWSConfig).Scan(context.Background(), &dynamodb.ScanInput{
		TableName:        aws.String(st.Resources.Tables["SessionTable"].Name),
		FilterExpression: aws.String("sk = :e"),
		ExpressionAttributeValues: map[string]ddbtypes.AttributeValue{
			":e": &ddbtypes.AttributeValueMemberS{Value: "entry"},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, item := range out.Items {
		pk, _ := item["pk"].(*ddbtypes.AttributeValueMemberS)
		id, _ := item["sessionId"].(*ddbtypes.AttributeValueMemberS)
		if pk != nil && id != nil && strings.HasSuffix(pk.Value, ":"+peer) {
			return id.Value
		}
		if pk != nil {
			keys = append(keys, pk.Value)
		}
	}
	t.Fatalf("no session entry of peer %s among %v", peer, keys)
	return ""
}

func callKeys(calls []iampolicy.Call) string {
	var keys []string
	for _, c := range calls {
		keys = append(keys, "  "+c.Key())
	}
	slices.Sort(keys)
	return strings.Join(keys, "\n")
}
