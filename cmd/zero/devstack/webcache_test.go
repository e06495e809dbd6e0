package devstack

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/cmd/zero/devstack/awscalls"
	"github.com/zero-gateway/zero/cmd/zero/devstack/iampolicy"
	"github.com/zero-gateway/zero/shared/run"
	"github.com/zero-gateway/zero/shared/telegram/telegramtest"
	"github.com/zero-gateway/zero/shared/tools/web"
	"github.com/zero-gateway/zero/shared/webfetch"
)

const webBraveKey = "BSA-e2e-0123456789"

// fakeBrave speaks the Brave Search web search API as the runner's
// adapter calls it (GET /res/v1/web/search?q=…&count=…, the key in
// X-Subscription-Token) and refuses what Brave refuses: another path or
// method (404), a wrong key (401), an empty q or a count outside 1-20
// (422). It counts the searches it answered.
type fakeBrave struct {
	*httptest.Server
	mu      sync.Mutex
	queries []string // "q|count" of each answered search
}

func newFakeBrave(t *testing.T) *fakeBrave {
	b := &fakeBrave{}
	b.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q, count := r.URL.Query().Get("q"), r.URL.Query().Get("count")
		n, err := strconv.Atoi(count)
		switch {
		case r.Method != http.MethodGet || r.URL.Path != "/res/v1/web/search":
			http.Error(w, `{"type":"ErrorResponse","error":{"status":404,"code":"RESOURCE_NOT_FOUND"}}`, http.StatusNotFound)
			return
		case r.Header.Get("X-Subscription-Token") != webBraveKey:
			http.Error(w, `{"type":"ErrorResponse","error":{"status":401,"code":"SUBSCRIPTION_TOKEN_INVALID"}}`, http.StatusUnauthorized)
			return
		case strings.TrimSpace(q) == "" || err != nil || n < 1 || n > 20:
			http.Error(w, `{"type":"ErrorResponse","error":{"status":422,"code":"VALIDATION"}}`, http.StatusUnprocessableEntity)
			return
		}
		b.mu.Lock()
		b.queries = append(b.queries, q+"|"+count)
		b.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"type":"search","query":{"original":%q},"web":{"type":"search","results":[
			{"title":"Serverless Go on Lambda","url":"https://example.org/go-lambda","description":"How to run Go on AWS Lambda.","page_age":"2025-01-01"},
			{"title":"Second result","url":"https://example.org/2","description":"two"}]}}`, q)
	}))
	t.Cleanup(b.Close)
	return b
}

func (b *fakeBrave) searches() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.queries)
}

// TestWebCacheEndToEnd runs the web tools' cache through the real runner
// binary under the local IAM check: the scripted model calls web_search
// twice with the same query (differently spaced and cased); the first
// asks the fake Brave and stores the result, the second is served from
// the session table (Brave sees one search). The runner's GetItem and
// PutItem of the cache item webcache#<sha256> are recorded on the
// table's ARN, and startStack's CheckIAM passes them. web_fetch cannot
// reach a fake (the production SSRF guard refuses every test address,
// loopback and 192.0.2/24 alike, and the runner has no bypass): its call
// is refused by the guard after the cache lookup, which is recorded too.
func TestWebCacheEndToEnd(t *testing.T) {
	need(t, "AWS emulator", emuErr)
	needRIE(t)
	t.Parallel()
	tg := telegramtest.New(t, e2eToken)
	m := newReachModel(t)
	brave := newFakeBrave(t)
	opts := modelStackOptions(t, "webcache", tg.URL, m.URL,
		fmt.Sprintf(`{tools: {web: {search: {enabled: true}}}, channels: {telegram: {allowFrom: ["%d"], owners: ["%d"]}}}`, reachOwner, reachOwner))
	opts.Secrets["openai-api-key"] = reachModelKey
	opts.Secrets["brave-api-key"] = webBraveKey
	opts.ExtraEnv = append(opts.ExtraEnv, "BRAVE_API_BASE_URL="+brave.URL)
	st := startStack(t, opts)

	update := 7000
	call := func(order string) string {
		t.Helper()
		update++
		chatSay(t, st, update, reachOwner, "CALL "+order)
		return toolResultOf(t, st, run.NewID(fmt.Sprintf("telegram:%s:%d", reachBotID, update)))
	}
	first := call(`web_search {"query":"serverless go","count":3}`)
	second := call(`web_search {"query":"  Serverless   GO ","count":3}`)
	for i, result := range []string{first, second} {
		if !strings.Contains(result, "Serverless Go on Lambda") || strings.Contains(result, `"isError":true`) {
			t.Errorf("search %d's tool result is %q; want the fake's results", i+1, result)
		}
	}
	if diff := cmp.Diff([]string{"serverless go|3"}, brave.searches()); diff != "" {
		t.Errorf("searches Brave answered (-want +got); the second must come from the cache:\n%s", diff)
	}
	page := brave.URL + "/article"
	if fetched := call(`web_fetch {"url":"` + page + `","maxChars":1000}`); !strings.Contains(fetched, "refused") {
		t.Errorf("web_fetch of the loopback fake = %q; want the SSRF guard's refusal", fetched)
	}
	waitSent(t, tg, reachOwner, "tool said:", 3)

	searchItem := "webcache#" + web.SearchKey("serverless go", 3)
	fetchItem := "webcache#" + web.FetchKey(webfetch.Request{URL: page, MaxChars: 1000})
	cacheCalls := recordedWebCacheCalls(t, st, searchItem, fetchItem)
	if err := st.CheckIAM(); err != nil {
		t.Errorf("the web tools' AWS calls are not all allowed by the runner's role: %v", err)
	}
	t.Run("the check sees the cache calls", func(t *testing.T) {
		table := st.Resources.Tables["SessionTable"].ARN
		policies := st.Policies()
		policies["Runner"] = dropAction("dynamodb:PutItem", table)(policies["Runner"])
		err := iampolicy.Err(iampolicy.Check(policies, cacheCalls))
		if err == nil || !strings.Contains(err.Error(), "Runner: DynamoDB.PutItem needs dynamodb:PutItem on "+table) || !strings.Contains(err.Error(), searchItem) {
			t.Errorf("the cache calls checked against a runner role without PutItem = %v; want a violation naming the PutItem of %s", err, searchItem)
		}
	})
}

// recordedWebCacheCalls checks that the runner's cache calls were
// recorded on the session table's ARN with their item's key — a GetItem
// and a PutItem of the search, a GetItem and no PutItem of the refused
// fetch — and returns every recorded call on a webcache# item.
func recordedWebCacheCalls(t *testing.T, st *Stack, searchItem, fetchItem string) []iampolicy.Call {
	t.Helper()
	table := st.Resources.Tables["SessionTable"].ARN
	on := func(item string) map[string][]string { return map[string][]string{awscalls.LeadingKeys: {item}} }
	calls := st.AWSCalls()
	for _, want := range []iampolicy.Call{
		{Function: "Runner", Operation: "DynamoDB.GetItem", Request: iampolicy.Request{Action: "dynamodb:GetItem", Resource: table, Context: on(searchItem)}},
		{Function: "Runner", Operation: "DynamoDB.PutItem", Request: iampolicy.Request{Action: "dynamodb:PutItem", Resource: table, Context: on(searchItem)}},
		{Function: "Runner", Operation: "DynamoDB.GetItem", Request: iampolicy.Request{Action: "dynamodb:GetItem", Resource: table, Context: on(fetchItem)}},
	} {
		if !slices.ContainsFunc(calls, func(c iampolicy.Call) bool { return c.Key() == want.Key() }) {
			t.Errorf("no recorded call %s; recorded:\n%s", want.Key(), callKeys(calls))
		}
	}
	var cache []iampolicy.Call
	for _, c := range calls {
		keys := c.Context[awscalls.LeadingKeys]
		if slices.ContainsFunc(keys, func(k string) bool { return strings.HasPrefix(k, "webcache#") }) {
			cache = append(cache, c)
		}
		if c.Operation == "DynamoDB.PutItem" && slices.Contains(keys, fetchItem) {
			t.Errorf("the refused web_fetch was cached; only successes are")
		}
	}
	return cache
}

// waitSent waits until chat got n messages containing want.
func waitSent(t *testing.T, tg *telegramtest.Server, chat int64, want string, n int) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for countSent(tg, chat, want) < n {
		if time.Now().After(deadline) {
			t.Fatalf("chat %d got %d messages with %q, want %d", chat, countSent(tg, chat, want), want, n)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
