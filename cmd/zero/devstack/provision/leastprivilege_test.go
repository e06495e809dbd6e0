package provision

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/cmd/zero/devstack/template"
)

// The least-privilege and hygiene facts of the translated template.yaml,
// checked on the policies as CloudFormation would evaluate them (no
// emulator needed): what each function's role may write, delete and
// invoke, the bucket's TLS-only policy and versioning, the log groups,
// retention of the stateful resources and the HTTP API's throttling.

const (
	lpAccount = "123456789012"
	lpRegion  = "us-east-1"
	lpStack   = "zt-lp"
	lpBucket  = "arn:aws:s3:::" + lpStack + "-transcriptbucket"
)

// statement is one evaluated IAM statement.
type statement struct {
	Effect    string
	Action    []string
	Resource  []string
	Principal any
	Condition map[string]any
}

// allows reports whether the statements allow action on resource (IAM
// wildcards: * any run of characters, "/" included, ? one character;
// actions case-insensitive). Statements with a Condition never count: a
// fact asserted here must not hang on one.
func allows(sts []statement, action, resource string) bool {
	for _, st := range sts {
		if st.Effect != "Allow" || len(st.Condition) > 0 {
			continue
		}
		if anyMatch(st.Action, action, true) && anyMatch(st.Resource, resource, false) {
			return true
		}
	}
	return false
}

func anyMatch(patterns []string, s string, fold bool) bool {
	for _, p := range patterns {
		if globMatch(p, s, fold) {
			return true
		}
	}
	return false
}

func globMatch(pattern, s string, fold bool) bool {
	re := regexp.QuoteMeta(pattern)
	re = strings.NewReplacer(`\*`, `.*`, `\?`, `.`).Replace(re)
	if fold {
		re = "(?i)" + re
	}
	return regexp.MustCompile("^" + re + "$").MatchString(s)
}

// resourcesFor lists the resource patterns of the Allow statements that
// name action exactly.
func resourcesFor(sts []statement, action string) []string {
	var out []string
	for _, st := range sts {
		for _, a := range st.Action {
			if st.Effect == "Allow" && strings.EqualFold(a, action) {
				out = append(out, st.Resource...)
			}
		}
	}
	return out
}

// lpTemplate is the translated template with its resources defined for
// the evaluator (physical names <stack>-<lower(id)>, ARNs by type) and its
// conditions evaluated with params over the defaults.
type lpTemplate struct {
	tmpl *template.Template
	// raw and params are Resources and Parameters as JSON, for what
	// template.Resource and template.Parameter do not keep.
	raw    map[string]map[string]any
	params map[string]map[string]any
	ev     *template.Evaluator
}

func loadLP(t *testing.T, params map[string]string) *lpTemplate {
	t.Helper()
	path := translatedTemplate(t)
	tmpl, err := template.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Resources  map[string]map[string]any
		Parameters map[string]map[string]any
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	vals := map[string]string{}
	for name, p := range tmpl.Parameters {
		switch {
		case hasKey(params, name):
			vals[name] = params[name]
		case testParams[name] != "":
			vals[name] = testParams[name]
		case p.Default != nil:
			vals[name] = template.ScalarString(p.Default)
		default:
			vals[name] = "123456" // a required parameter these facts do not depend on
		}
	}
	ev := template.NewEvaluator(vals, lpRegion, lpAccount, lpStack)
	if _, err := ev.Conditions(tmpl.Conditions); err != nil {
		t.Fatal(err)
	}
	for id, r := range tmpl.Resources {
		name := physicalName(lpStack, id)
		var arn string
		switch r.Type {
		case typeBucket:
			arn = "arn:aws:s3:::" + name
		case typeTable:
			arn = fmt.Sprintf("arn:aws:dynamodb:%s:%s:table/%s", lpRegion, lpAccount, name)
		case typeQueue:
			arn = fmt.Sprintf("arn:aws:sqs:%s:%s:%s.fifo", lpRegion, lpAccount, name)
		case typeFunction:
			name = lpStack + "-" + id
			arn = fmt.Sprintf("arn:aws:lambda:%s:%s:function:%s", lpRegion, lpAccount, name)
		default:
			arn = fmt.Sprintf("arn:aws:cloudformation:%s:%s:%s", lpRegion, lpAccount, name)
		}
		ev.Define(id, name, map[string]string{"Arn": arn, "QueueName": name + ".fifo"})
	}
	return &lpTemplate{tmpl: tmpl, raw: doc.Resources, params: doc.Parameters, ev: ev}
}

func hasKey(m map[string]string, k string) bool { _, ok := m[k]; return ok }

// statements evaluates the inline policies of a function's role.
func (l *lpTemplate) statements(t *testing.T, function string) []statement {
	t.Helper()
	role, ok := l.tmpl.Resources[function+"Role"]
	if !ok {
		t.Fatalf("no role %sRole in the template", function)
	}
	v, err := l.ev.Resolve(role.Properties["Policies"])
	if err != nil {
		t.Fatalf("%sRole Policies: %v", function, err)
	}
	var policies []struct{ PolicyDocument policyDocument }
	raw, _ := json.Marshal(v)
	if err := json.Unmarshal(raw, &policies); err != nil {
		t.Fatalf("%sRole Policies: %v", function, err)
	}
	var out []statement
	for _, p := range policies {
		out = append(out, p.PolicyDocument.statements()...)
	}
	return out
}

// policyDocument is an evaluated policy document; Action and Resource may
// be a string or a list.
type policyDocument struct {
	Statement []struct {
		Effect    string
		Action    any
		Resource  any
		Principal any
		Condition map[string]any
	}
}

func (d policyDocument) statements() []statement {
	var out []statement
	for _, st := range d.Statement {
		out = append(out, statement{Effect: st.Effect, Action: strs(st.Action), Resource: strs(st.Resource), Principal: st.Principal, Condition: st.Condition})
	}
	return out
}

func strs(v any) []string {
	switch x := v.(type) {
	case string:
		return []string{x}
	case []any:
		out := make([]string, 0, len(x))
		for _, e := range x {
			out = append(out, template.ScalarString(e))
		}
		return out
	}
	return nil
}

// TestLeastPrivilege: the Gateway deletes transcripts only, the Runner
// writes transcripts and exactly the workspace prefix (the file tools) and
// deletes only in the workspace, and Bedrock is limited to BedrockModels.
func TestLeastPrivilege(t *testing.T) {
	t.Parallel()
	const models = "anthropic.claude-sonnet-4-20250514-v1:0,amazon.nova-pro-v1:0"
	l := loadLP(t, map[string]string{"BedrockModels": models})
	ws := lpBucket + "/agents/main/workspace/"
	part := lpBucket + "/agents/main/sessions/0b5c3c3e-7e1f-4c49-9c35-0f1f7f0e6a11.jsonl.d/0000000001.jsonl"
	topicPart := lpBucket + "/agents/ops/sessions/0b5c3c3e-topic-42.jsonl.d/0000000003.jsonl"
	// What only the operator may write: every bootstrap file, the skills
	// (also ones whose folder is named like an agent-writable one), and
	// anything else at the workspace root.
	operator := []string{
		ws + "AGENTS.md", ws + "SOUL.md", ws + "TOOLS.md", ws + "IDENTITY.md", ws + "USER.md",
		ws + "HEARTBEAT.md", ws + "BOOTSTRAP.md", ws + "notes.md",
		ws + "skills/weather/SKILL.md", ws + "skills/sessions/SKILL.md", ws + "skills/memory/SKILL.md",
		ws + "skills/scratch/SKILL.md", ws + "skills/weather/scripts/run.sh",
	}
	agentWritable := []string{ws + "MEMORY.md", ws + "memory/2026-05-01.md", ws + "scratch/plan.md", ws + "scratch/a/b.txt"}

	t.Run("gateway deletes transcripts only", func(t *testing.T) {
		gw := l.statements(t, "Gateway")
		if got, want := resourcesFor(gw, "s3:DeleteObject"), []string{lpBucket + "/agents/*/sessions/*.jsonl"}; !equalStrings(got, want) {
			t.Fatalf("Gateway s3:DeleteObject resources = %q, want %q", got, want)
		}
		for _, key := range []string{part, topicPart} {
			if !allows(gw, "s3:DeleteObject", key) {
				t.Errorf("Gateway may not delete transcript part %s", key)
			}
		}
		for _, key := range append(operator, agentWritable...) {
			if allows(gw, "s3:DeleteObject", key) {
				t.Errorf("Gateway may delete workspace file %s", key)
			}
		}
	})

	t.Run("runner writes transcripts and exactly the workspace prefix", func(t *testing.T) {
		run := l.statements(t, "Runner")
		want := []string{lpBucket + "/agents/*/workspace/*"}
		if got := resourcesFor(run, "s3:DeleteObject"); !equalStrings(got, want) {
			t.Errorf("Runner s3:DeleteObject resources = %q, want %q", got, want)
		}
		for _, r := range resourcesFor(run, "s3:PutObject") {
			if r == lpBucket+"/*" || r == lpBucket+"/agents/*" {
				t.Errorf("Runner s3:PutObject on %s: wider than the workspace prefix", r)
			}
		}
		// The file tools write (and apply_patch deletes) anywhere in a
		// workspace, conditionally; the operator's files included.
		workspaceFiles := append(append([]string(nil), operator...), agentWritable...)
		for _, key := range append([]string{part, topicPart}, workspaceFiles...) {
			if !allows(run, "s3:PutObject", key) {
				t.Errorf("Runner may not write %s", key)
			}
			if !allows(run, "s3:GetObject", key) {
				t.Errorf("Runner may not read %s", key)
			}
		}
		for _, key := range workspaceFiles {
			if !allows(run, "s3:DeleteObject", key) {
				t.Errorf("Runner may not delete workspace file %s (apply_patch)", key)
			}
		}
		for _, key := range []string{part, topicPart, lpBucket + "/config/zero.json", lpBucket + "/agents/main/notes.md"} {
			if allows(run, "s3:DeleteObject", key) {
				t.Errorf("Runner may delete %s, outside the workspace", key)
			}
		}
	})

	t.Run("bedrock is limited to BedrockModels", func(t *testing.T) {
		run := l.statements(t, "Runner")
		for _, fn := range []string{"TelegramWebhook", "Runner", "Gateway"} {
			for _, st := range l.statements(t, fn) {
				for _, a := range st.Action {
					if !strings.HasPrefix(strings.ToLower(a), "bedrock:") || st.Effect != "Allow" {
						continue
					}
					if fn != "Runner" {
						t.Errorf("%s may %s", fn, a)
					}
					for _, r := range st.Resource {
						if r == "*" || strings.HasSuffix(r, "foundation-model/*") || strings.HasSuffix(r, ":*") {
							t.Errorf("%s: %s on %s: every model", fn, a, r)
						}
					}
				}
			}
		}
		for _, arn := range []string{
			"arn:aws:bedrock:us-east-1::foundation-model/amazon.nova-pro-v1:0",
			"arn:aws:bedrock:us-west-2::foundation-model/anthropic.claude-sonnet-4-20250514-v1:0", // where a US profile routes
			"arn:aws:bedrock:::foundation-model/anthropic.claude-sonnet-4-20250514-v1:0",          // a global profile's
			"arn:aws:bedrock:us-east-1:" + lpAccount + ":inference-profile/us.anthropic.claude-sonnet-4-20250514-v1:0",
		} {
			// Converse and ConverseStream (streamed answers).
			for _, action := range []string{"bedrock:InvokeModel", "bedrock:InvokeModelWithResponseStream"} {
				if !allows(run, action, arn) {
					t.Errorf("Runner may not %s %s", action, arn)
				}
			}
		}
		for _, arn := range []string{
			"arn:aws:bedrock:us-east-1::foundation-model/anthropic.claude-opus-4-20250514-v1:0",
			"arn:aws:bedrock:us-east-1::foundation-model/amazon.nova-pro-v1:0-extra",
			"arn:aws:bedrock:us-east-1:210987654321:inference-profile/us.amazon.nova-pro-v1:0",
		} {
			for _, action := range []string{"bedrock:InvokeModel", "bedrock:InvokeModelWithResponseStream"} {
				if allows(run, action, arn) {
					t.Errorf("Runner may %s %s", action, arn)
				}
			}
		}
		env, err := l.ev.Resolve(l.tmpl.Resources["Runner"].Properties["Environment"])
		if err != nil {
			t.Fatal(err)
		}
		if got := env.(map[string]any)["Variables"].(map[string]any)["ZERO_BEDROCK_MODELS"]; got != models {
			t.Errorf("Runner ZERO_BEDROCK_MODELS = %v, want the role's list %q", got, models)
		}

		none := loadLP(t, map[string]string{"BedrockModels": ""})
		for _, st := range none.statements(t, "Runner") {
			for _, a := range st.Action {
				if strings.HasPrefix(strings.ToLower(a), "bedrock:") {
					t.Errorf("BedrockModels empty, yet the Runner may %s on %q", a, st.Resource)
				}
			}
		}
	})
}

// TestTemplateHygiene: a TLS-only bucket, retained table and bucket, a log
// group with retention for every function, and HTTP API throttling that
// never refuses Telegram's 40 connections.
func TestTemplateHygiene(t *testing.T) {
	t.Parallel()
	l := loadLP(t, nil)

	t.Run("bucket refuses non-TLS requests", func(t *testing.T) {
		var found bool
		for _, id := range l.tmpl.ResourceIDs("AWS::S3::BucketPolicy") {
			props, err := l.ev.Resolve(l.tmpl.Resources[id].Properties)
			if err != nil {
				t.Fatal(err)
			}
			var p struct {
				Bucket         string
				PolicyDocument policyDocument
			}
			raw, _ := json.Marshal(props)
			if err := json.Unmarshal(raw, &p); err != nil {
				t.Fatal(err)
			}
			if p.Bucket != lpStack+"-transcriptbucket" {
				continue
			}
			for _, st := range p.PolicyDocument.statements() {
				cond, _ := st.Condition["Bool"].(map[string]any)
				if st.Effect == "Deny" && st.Principal == "*" && anyMatch(st.Action, "s3:GetObject", true) && anyMatch(st.Action, "s3:ListBucket", true) &&
					template.ScalarString(cond["aws:SecureTransport"]) == "false" &&
					anyMatch(st.Resource, lpBucket, false) && anyMatch(st.Resource, lpBucket+"/agents/main/sessions/x.jsonl", false) {
					found = true
				}
			}
		}
		if !found {
			t.Fatal("no bucket policy statement denies every principal every S3 action on the bucket and its objects when aws:SecureTransport is false")
		}
	})

	t.Run("table and bucket are retained", func(t *testing.T) {
		for _, id := range []string{"SessionTable", "TranscriptBucket"} {
			r := l.raw[id]
			if r["DeletionPolicy"] != "Retain" || r["UpdateReplacePolicy"] != "Retain" {
				t.Errorf("%s: DeletionPolicy %v, UpdateReplacePolicy %v; want Retain for both", id, r["DeletionPolicy"], r["UpdateReplacePolicy"])
			}
		}
	})

	t.Run("bucket keeps old versions, for a bounded time", func(t *testing.T) {
		props, err := l.ev.Resolve(l.tmpl.Resources["TranscriptBucket"].Properties)
		if err != nil {
			t.Fatal(err)
		}
		m, _ := props.(map[string]any)
		versioning, _ := m["VersioningConfiguration"].(map[string]any)
		if got := template.ScalarString(versioning["Status"]); got != "Enabled" {
			t.Errorf("versioning %q, want Enabled: an overwritten or deleted workspace file must be restorable", got)
		}
		lifecycle, _ := m["LifecycleConfiguration"].(map[string]any)
		rules, _ := lifecycle["Rules"].([]any)
		got := map[string]map[string]string{}
		for _, r := range rules {
			facts := flatFacts(r)
			got[facts["Id"]] = facts
		}
		want := map[string]map[string]string{
			// contexts/: the current base expires; its noncurrent version
			// goes a day later.
			"ExpireContextBases": {"Id": "ExpireContextBases", "Status": "Enabled", "Prefix": "contexts/", "ExpirationInDays": "30",
				"NoncurrentVersionExpiration.NoncurrentDays": "1"},
			// Everywhere, no prefix: old versions for 30 days, then gone.
			"ExpireOldVersions": {"Id": "ExpireOldVersions", "Status": "Enabled",
				"NoncurrentVersionExpiration.NoncurrentDays": "30", "ExpiredObjectDeleteMarker": "true"},
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("lifecycle rules (-want +got):\n%s", diff)
		}
	})

	t.Run("every function has a log group with retention", func(t *testing.T) {
		groups := map[string]string{} // name -> retention
		for _, id := range l.tmpl.ResourceIDs("AWS::Logs::LogGroup") {
			props, err := l.ev.Resolve(l.tmpl.Resources[id].Properties)
			if err != nil {
				t.Fatalf("%s: %v", id, err)
			}
			m := props.(map[string]any)
			groups[template.ScalarString(m["LogGroupName"])] = template.ScalarString(m["RetentionInDays"])
		}
		fns := l.tmpl.ResourceIDs(typeFunction)
		if len(fns) == 0 {
			t.Fatal("no functions")
		}
		for _, fn := range fns {
			name := "/aws/lambda/" + lpStack + "-" + fn
			if got := groups[name]; got != "30" {
				t.Errorf("log group %s: retention %q, want the LogRetentionDays default 30", name, got)
			}
		}
	})

	t.Run("HTTP API throttling", func(t *testing.T) {
		stages := l.tmpl.ResourceIDs("AWS::ApiGatewayV2::Stage")
		if len(stages) != 1 {
			t.Fatalf("stages = %v, want one", stages)
		}
		props, err := l.ev.Resolve(l.tmpl.Resources[stages[0]].Properties)
		if err != nil {
			t.Fatal(err)
		}
		var st struct {
			DefaultRouteSettings struct{ ThrottlingRateLimit, ThrottlingBurstLimit any }
			RouteSettings        map[string]struct{ ThrottlingRateLimit, ThrottlingBurstLimit any }
		}
		raw, _ := json.Marshal(props)
		if err := json.Unmarshal(raw, &st); err != nil {
			t.Fatal(err)
		}
		num := func(v any) int {
			var n int
			fmt.Sscan(template.ScalarString(v), &n)
			return n
		}
		if num(st.DefaultRouteSettings.ThrottlingRateLimit) < 1 || num(st.DefaultRouteSettings.ThrottlingBurstLimit) < 1 {
			t.Errorf("default route throttling = %+v, want a rate and a burst", st.DefaultRouteSettings)
		}
		wh, ok := st.RouteSettings["POST /webhooks/telegram"]
		if !ok {
			t.Fatalf("no route settings for the webhook: %+v", st.RouteSettings)
		}
		// Telegram opens up to max_connections (40) at once.
		if b := num(wh.ThrottlingBurstLimit); b <= 40 {
			t.Errorf("webhook burst %d, want above Telegram's max_connections 40", b)
		}
		// ... and no stack parameter can bring it down to that.
		if min := num(l.params["WebhookThrottleBurst"]["MinValue"]); min <= 40 {
			t.Errorf("WebhookThrottleBurst MinValue %d, want above 40", min)
		}
	})
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// flatFacts flattens a resolved template object one level deep into
// "Key" and "Key.Sub" scalars.
func flatFacts(v any) map[string]string {
	out := map[string]string{}
	m, _ := v.(map[string]any)
	for k, x := range m {
		sub, ok := x.(map[string]any)
		if !ok {
			out[k] = template.ScalarString(x)
			continue
		}
		for k2, y := range sub {
			out[k+"."+k2] = template.ScalarString(y)
		}
	}
	return out
}
