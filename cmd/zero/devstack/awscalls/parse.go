package awscalls

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"

	"github.com/zero-gateway/zero/cmd/zero/devstack/iampolicy"
)

// Parse returns the API operation of an AWS request ("DynamoDB.Query")
// and the authorisations it needs. The service and region come from the
// SigV4 credential scope (Authorization header or presigned query);
// account fills ARNs the request does not carry. A call that needs no
// authorisation (sts:GetCallerIdentity) returns none; one it cannot parse
// returns an "unparsed:<service>" action on "*".
func Parse(req *http.Request, body []byte, account string) (string, []iampolicy.Request) {
	service, region := credentialScope(req)
	a := args{req: req, body: body, region: region, account: account}
	switch service {
	case "dynamodb":
		return parseDynamoDB(a)
	case "sqs":
		return parseSQS(a)
	case "s3":
		return parseS3(a)
	case "ssm":
		return parseSSM(a)
	case "scheduler":
		return parseScheduler(a)
	case "sts":
		op := operation(a)
		if op == "GetCallerIdentity" {
			return "STS." + op, nil
		}
		return "STS." + op, []iampolicy.Request{{Action: "sts:" + op, Resource: "*"}}
	case "":
		return "unsigned " + req.Method + " " + req.URL.Path, []iampolicy.Request{{Action: "unparsed:unsigned", Resource: "*"}}
	}
	return unparsed(service, req)
}

// args is what the service parsers read.
type args struct {
	req     *http.Request
	body    []byte
	region  string
	account string
}

func unparsed(service string, req *http.Request) (string, []iampolicy.Request) {
	return service + " " + req.Method + " " + req.URL.Path, []iampolicy.Request{{Action: "unparsed:" + service, Resource: "*"}}
}

// credentialScope reads service and region from the SigV4 credential
// scope: Credential=<key>/<date>/<region>/<service>/aws4_request.
func credentialScope(req *http.Request) (service, region string) {
	cred := req.URL.Query().Get("X-Amz-Credential")
	if auth := req.Header.Get("Authorization"); auth != "" {
		_, rest, _ := strings.Cut(auth, "Credential=")
		cred, _, _ = strings.Cut(rest, ",")
	}
	parts := strings.Split(cred, "/")
	if len(parts) < 5 {
		return "", ""
	}
	return parts[3], parts[2]
}

// operation is the API operation of a JSON (X-Amz-Target) or query
// protocol (Action=) request.
func operation(a args) string {
	if t := a.req.Header.Get("X-Amz-Target"); t != "" {
		_, op, _ := strings.Cut(t, ".")
		return op
	}
	if op := a.req.URL.Query().Get("Action"); op != "" {
		return op
	}
	if form, err := url.ParseQuery(string(a.body)); err == nil {
		return form.Get("Action")
	}
	return ""
}

// param reads a string parameter of a JSON or query protocol request.
func param(a args, name string) string {
	if strings.Contains(a.req.Header.Get("Content-Type"), "json") {
		var m map[string]any
		if json.Unmarshal(a.body, &m) == nil {
			s, _ := m[name].(string)
			return s
		}
		return ""
	}
	if v := a.req.URL.Query().Get(name); v != "" {
		return v
	}
	form, _ := url.ParseQuery(string(a.body))
	return form.Get(name)
}

// parseSSM maps Parameter Store calls to their parameters' ARNs.
func parseSSM(a args) (string, []iampolicy.Request) {
	op := operation(a)
	var body struct {
		Name  string
		Names []string
		Path  string
	}
	_ = json.Unmarshal(a.body, &body)
	names := body.Names
	if body.Name != "" {
		names = append(names, body.Name)
	}
	if body.Path != "" {
		names = append(names, body.Path)
	}
	if len(names) == 0 {
		return "SSM." + op, []iampolicy.Request{{Action: "ssm:" + op, Resource: "*"}}
	}
	var out []iampolicy.Request
	for _, n := range names {
		arn := n
		if !strings.HasPrefix(n, "arn:") {
			arn = "arn:aws:ssm:" + a.region + ":" + a.account + ":parameter/" + strings.TrimPrefix(n, "/")
		}
		out = append(out, iampolicy.Request{Action: "ssm:" + op, Resource: arn})
	}
	return "SSM." + op, out
}
