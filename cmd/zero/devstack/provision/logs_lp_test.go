package provision

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// TestLogPermissions: no role of the translated template has SAM's
// AWSLambdaBasicExecutionRole or any CloudWatch Logs action on "*", nothing
// may logs:CreateLogGroup (the template creates every group), and each
// function may create streams in and write to its own log group only.
func TestLogPermissions(t *testing.T) {
	t.Parallel()
	l := loadLP(t, nil)

	// The log groups' ARNs as CloudFormation gives them (Fn::GetAtt Arn
	// ends in ":*"), by their resolved names.
	groupOf := map[string]string{} // log group name -> logical id
	for _, id := range l.tmpl.ResourceIDs(typeLogGroup) {
		name, err := l.ev.ResolveString(l.tmpl.Resources[id].Properties["LogGroupName"])
		if err != nil {
			t.Fatalf("%s LogGroupName: %v", id, err)
		}
		groupOf[name] = id
		l.ev.Define(id, name, map[string]string{"Arn": logGroupARN(name) + ":*"})
	}

	// Every statement of every role: its inline policies and the
	// AWS::IAM::RolePolicy / AWS::IAM::Policy resources attached to it.
	roles := map[string][]statement{}
	for _, id := range l.tmpl.ResourceIDs(typeRole) {
		for _, arn := range strs(l.raw[id]["Properties"].(map[string]any)["ManagedPolicyArns"]) {
			if strings.Contains(arn, "AWSLambdaBasicExecutionRole") || strings.Contains(arn, "AWSLambdaBasicDurableExecutionRolePolicy") {
				t.Errorf("role %s has the managed policy %s (CloudWatch Logs on \"*\")", id, arn)
			}
		}
		roles[id] = append(roles[id], l.roleStatements(t, id, l.tmpl.Resources[id].Properties["Policies"])...)
	}
	for _, typ := range []string{"AWS::IAM::RolePolicy", "AWS::IAM::Policy"} {
		for _, id := range l.tmpl.ResourceIDs(typ) {
			props := l.tmpl.Resources[id].Properties
			targets := []any{props["RoleName"]}
			if list, ok := props["Roles"].([]any); ok {
				targets = list
			}
			sts := l.roleStatements(t, id, []any{map[string]any{"PolicyDocument": props["PolicyDocument"]}})
			for _, r := range targets {
				ref, _ := r.(map[string]any)["Ref"].(string)
				if _, ok := roles[ref]; !ok {
					t.Fatalf("%s %s: role %v is not a Ref of a role of the template", typ, id, r)
				}
				roles[ref] = append(roles[ref], sts...)
			}
		}
	}

	logActions := []string{"logs:CreateLogGroup", "logs:CreateLogStream", "logs:PutLogEvents", "logs:DeleteLogGroup", "logs:PutRetentionPolicy"}
	for role, sts := range roles {
		for _, st := range sts {
			if st.Effect != "Allow" {
				continue
			}
			for _, a := range logActions {
				if !anyMatch(st.Action, a, true) {
					continue
				}
				for _, r := range st.Resource {
					if !strings.HasPrefix(r, "arn:aws:logs:"+lpRegion+":"+lpAccount+":log-group:/aws/lambda/") || strings.HasSuffix(strings.TrimSuffix(r, ":*"), "*") {
						t.Errorf("role %s: %s on %q, not one function's log group", role, a, r)
					}
				}
			}
		}
		if a := "logs:CreateLogGroup"; len(resourcesMatching(sts, a)) > 0 {
			t.Errorf("role %s may %s on %q; the template creates every log group", role, a, resourcesMatching(sts, a))
		}
	}

	fns := l.tmpl.ResourceIDs(typeFunction)
	if len(fns) == 0 {
		t.Fatal("no functions")
	}
	for _, fn := range fns {
		role, err := roleOf(l.tmpl, fn)
		if err != nil {
			t.Fatal(err)
		}
		sts := roles[role]
		own := "/aws/lambda/" + lpStack + "-" + fn
		if _, ok := groupOf[own]; !ok {
			t.Errorf("function %s: no log group %s in the template", fn, own)
			continue
		}
		stream := logGroupARN(own) + ":log-stream:2026/11/26/[$LATEST]0123456789abcdef"
		for _, a := range []string{"logs:CreateLogStream", "logs:PutLogEvents"} {
			if !allows(sts, a, stream) {
				t.Errorf("function %s (role %s) may not %s on its own log group's stream %s", fn, role, a, stream)
			}
			others := []string{logGroupARN(own+"-other") + ":log-stream:x", logGroupARN("/aws/lambda/other") + ":log-stream:x"}
			for _, o := range fns {
				if o != fn {
					others = append(others, logGroupARN("/aws/lambda/"+lpStack+"-"+o)+":log-stream:x")
				}
			}
			for _, other := range others {
				if allowsAnyCondition(sts, a, other) {
					t.Errorf("function %s (role %s) may %s on %s, not its own log group", fn, role, a, other)
				}
			}
		}
	}
}

func logGroupARN(name string) string {
	return fmt.Sprintf("arn:aws:logs:%s:%s:log-group:%s", lpRegion, lpAccount, name)
}

// roleStatements evaluates a list of {PolicyDocument} (a role's Policies).
func (l *lpTemplate) roleStatements(t *testing.T, id string, policies any) []statement {
	t.Helper()
	v, err := l.ev.Resolve(policies)
	if err != nil {
		t.Fatalf("%s policies: %v", id, err)
	}
	var list []struct{ PolicyDocument policyDocument }
	raw, _ := json.Marshal(v)
	if err := json.Unmarshal(raw, &list); err != nil {
		t.Fatalf("%s policies: %v", id, err)
	}
	var out []statement
	for _, p := range list {
		out = append(out, p.PolicyDocument.statements()...)
	}
	return out
}

// resourcesMatching returns the resources of the Allow statements whose
// actions match action (wildcards included, conditions ignored).
func resourcesMatching(sts []statement, action string) []string {
	var out []string
	for _, st := range sts {
		if st.Effect == "Allow" && anyMatch(st.Action, action, true) {
			out = append(out, st.Resource...)
		}
	}
	return out
}

// allowsAnyCondition is allows counting conditional statements too: what
// must never be allowed must not be, whatever the condition.
func allowsAnyCondition(sts []statement, action, resource string) bool {
	for _, st := range sts {
		if st.Effect == "Allow" && anyMatch(st.Action, action, true) && anyMatch(st.Resource, resource, false) {
			return true
		}
	}
	return false
}
