package awscalls

import (
	"encoding/xml"
	"net/http"
	"net/url"
	"sort"
	"strings"

	"github.com/zero-gateway/zero/cmd/zero/devstack/iampolicy"
)

// s3Params are query parameters that select no sub-resource.
var s3Params = map[string]bool{
	"x-id": true, "list-type": true, "prefix": true, "delimiter": true, "max-keys": true,
	"continuation-token": true, "start-after": true, "encoding-type": true, "fetch-owner": true, "marker": true,
}

// s3ListContext are ListObjects' parameters that are S3 condition keys.
var s3ListContext = map[string]string{"prefix": "s3:prefix", "delimiter": "s3:delimiter", "max-keys": "s3:max-keys"}

// parseS3 maps a path-style S3 request (/bucket/key) to the bucket's or
// object's ARN and the action AWS authorises it as.
func parseS3(a args) (string, []iampolicy.Request) {
	path := strings.TrimPrefix(a.req.URL.Path, "/")
	bucket, key, _ := strings.Cut(path, "/")
	q := a.req.URL.Query()
	sub := subresource(q)
	obj := func(action, k string) iampolicy.Request {
		return iampolicy.Request{Action: action, Resource: "arn:aws:s3:::" + bucket + "/" + k}
	}
	m := a.req.Method
	switch {
	case bucket == "":
		return "S3.ListBuckets", []iampolicy.Request{{Action: "s3:ListAllMyBuckets", Resource: "*"}}
	case key == "" && sub == "" && (m == http.MethodGet || m == http.MethodHead):
		ctx := map[string][]string{}
		for p, k := range s3ListContext {
			if q.Has(p) {
				ctx[k] = []string{q.Get(p)}
			}
		}
		op := map[bool]string{true: "S3.ListObjectsV2", false: "S3.ListObjects"}[q.Get("list-type") == "2"]
		if m == http.MethodHead {
			op = "S3.HeadBucket"
		}
		return op, []iampolicy.Request{{Action: "s3:ListBucket", Resource: "arn:aws:s3:::" + bucket, Context: ctx}}
	case key == "" && sub == "delete" && m == http.MethodPost:
		var d struct {
			Keys []string `xml:"Object>Key"`
		}
		_ = xml.Unmarshal(a.body, &d)
		out := make([]iampolicy.Request, 0, len(d.Keys))
		for _, k := range d.Keys {
			out = append(out, obj("s3:DeleteObject", k))
		}
		return "S3.DeleteObjects", out
	case key != "" && sub == "":
		return s3Object(a, bucket, key, obj)
	}
	return "S3." + m + " " + bucket + "?" + sub, []iampolicy.Request{{Action: "unparsed:s3", Resource: "arn:aws:s3:::" + path}}
}

// s3Object maps an object request without a sub-resource.
func s3Object(a args, bucket, key string, obj func(string, string) iampolicy.Request) (string, []iampolicy.Request) {
	switch a.req.Method {
	case http.MethodGet:
		return "S3.GetObject", []iampolicy.Request{obj("s3:GetObject", key)}
	case http.MethodHead:
		return "S3.HeadObject", []iampolicy.Request{obj("s3:GetObject", key)}
	case http.MethodDelete:
		return "S3.DeleteObject", []iampolicy.Request{obj("s3:DeleteObject", key)}
	case http.MethodPut:
		src := a.req.Header.Get("X-Amz-Copy-Source")
		if src == "" {
			return "S3.PutObject", []iampolicy.Request{obj("s3:PutObject", key)}
		}
		src, _ = url.PathUnescape(strings.TrimPrefix(src, "/"))
		src, _, _ = strings.Cut(src, "?")
		return "S3.CopyObject", []iampolicy.Request{
			obj("s3:PutObject", key),
			{Action: "s3:GetObject", Resource: "arn:aws:s3:::" + src},
		}
	}
	return "S3." + a.req.Method + " object", []iampolicy.Request{obj("unparsed:s3", key)}
}

// subresource names the request's sub-resource query parameters
// ("versioning", "delete", ...), "" when there is none.
func subresource(q url.Values) string {
	var subs []string
	for k := range q {
		if !s3Params[k] {
			subs = append(subs, k)
		}
	}
	sort.Strings(subs)
	return strings.Join(subs, "&")
}
