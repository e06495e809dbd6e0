package provision

import (
	"fmt"
	"strings"
	"time"
	"unicode"

	"github.com/zero-gateway/zero/cmd/zero/devstack/template"
)

// functions reads the Lambda functions and resolves their environments.
// Names and ARNs are defined first so environments may refer to functions.
func (p *provisioner) functions() error {
	ids := p.tmpl.ResourceIDs(typeFunction)
	for _, id := range ids {
		name := p.res.StackName + "-" + id
		arn := fmt.Sprintf("arn:aws:lambda:%s:%s:function:%s", p.res.Region, p.res.AccountID, name)
		p.ev.Define(id, name, map[string]string{"Arn": arn})
	}
	for _, id := range ids {
		props := p.tmpl.Resources[id].Properties
		fn := Function{
			LogicalID:  id,
			Name:       p.res.StackName + "-" + id,
			SourceDir:  "./functions/" + kebabCase(id),
			Env:        map[string]string{},
			Timeout:    3 * time.Second,
			MemorySize: 128,
		}
		if v, ok := props["Timeout"]; ok {
			s, err := p.ev.ResolveString(v)
			if err != nil {
				return fmt.Errorf("function %s Timeout: %w", id, err)
			}
			var secs int
			if _, err := fmt.Sscan(s, &secs); err != nil || secs <= 0 {
				return fmt.Errorf("function %s Timeout %q: want positive seconds", id, s)
			}
			fn.Timeout = time.Duration(secs) * time.Second
		}
		if v, ok := props["MemorySize"]; ok {
			s, err := p.ev.ResolveString(v)
			if err == nil {
				_, _ = fmt.Sscan(s, &fn.MemorySize)
			}
		}
		if err := p.functionEnv(id, props, fn.Env); err != nil {
			return err
		}
		fn.ARN, _ = p.ev.Attr(id, "Arn")
		p.res.Functions[id] = fn
	}
	return nil
}

// functionEnv resolves Environment.Variables into env; a variable that
// resolves to AWS::NoValue (through Fn::If) is left out.
func (p *provisioner) functionEnv(id string, props map[string]any, env map[string]string) error {
	e, _ := props["Environment"].(map[string]any)
	vars, _ := e["Variables"].(map[string]any)
	for _, k := range sortedKeys(vars) {
		v, err := p.ev.Resolve(vars[k])
		switch v.(type) {
		case map[string]any, []any:
			err = fmt.Errorf("expected a scalar, got %T", v)
		}
		if err != nil {
			return fmt.Errorf("function %s environment %s: %w", id, k, err)
		}
		if v != nil {
			env[k] = template.ScalarString(v)
		}
	}
	return nil
}

// functionByRef maps a resolved FunctionName (name or ARN) to a logical id.
func (p *provisioner) functionByRef(ref string) (string, bool) {
	for id, fn := range p.res.Functions {
		if ref == fn.Name || ref == fn.ARN || ref == id {
			return id, true
		}
	}
	return "", false
}

func (p *provisioner) eventSources() error {
	for _, id := range p.tmpl.ResourceIDs(typeESM) {
		props, err := p.resolveProps(p.tmpl.Resources[id])
		if err != nil {
			return fmt.Errorf("event source mapping %s: %w", id, err)
		}
		srcARN := template.ScalarString(props["EventSourceArn"])
		var queue *Queue
		for _, q := range p.res.Queues {
			if q.ARN == srcARN {
				queue = &q
			}
		}
		if queue == nil {
			p.logf("skip %s (%s): source %s is not a local SQS queue", id, typeESM, srcARN)
			continue
		}
		fnID, ok := p.functionByRef(template.ScalarString(props["FunctionName"]))
		if !ok {
			return fmt.Errorf("event source mapping %s: function %q is not in the template", id, template.ScalarString(props["FunctionName"]))
		}
		es := EventSource{
			LogicalID: id, Function: fnID, Queue: queue.LogicalID,
			QueueURL: queue.URL, QueueARN: queue.ARN,
			BatchSize: 10, Enabled: true,
		}
		if v, ok := props["BatchSize"]; ok {
			if _, err := fmt.Sscan(template.ScalarString(v), &es.BatchSize); err != nil || es.BatchSize < 1 {
				return fmt.Errorf("event source mapping %s: BatchSize %v", id, v)
			}
		}
		if v, ok := props["Enabled"]; ok {
			es.Enabled = template.ScalarString(v) != "false"
		}
		if rts, ok := props["FunctionResponseTypes"].([]any); ok {
			for _, t := range rts {
				if template.ScalarString(t) == "ReportBatchItemFailures" {
					es.ReportBatchItemFailures = true
				}
			}
		}
		if sc, ok := props["ScalingConfig"].(map[string]any); ok {
			if v, ok := sc["MaximumConcurrency"]; ok {
				if _, err := fmt.Sscan(template.ScalarString(v), &es.MaximumConcurrency); err != nil || es.MaximumConcurrency < 2 {
					return fmt.Errorf("event source mapping %s: ScalingConfig.MaximumConcurrency %v (at least 2)", id, v)
				}
			}
		}
		for _, k := range sortedKeys(props) {
			switch k {
			case "EventSourceArn", "FunctionName", "BatchSize", "Enabled", "FunctionResponseTypes", "ScalingConfig":
			default:
				p.logf("%s: property %s not applied locally", id, k)
			}
		}
		p.res.EventSources = append(p.res.EventSources, es)
	}
	return nil
}

// openAPIMethods maps OpenAPI operation keys to route methods.
var openAPIMethods = map[string]string{
	"get": "GET", "put": "PUT", "post": "POST", "delete": "DELETE",
	"patch": "PATCH", "head": "HEAD", "options": "OPTIONS",
	"x-amazon-apigateway-any-method": "ANY",
}

// routes reads HTTP API routes from the OpenAPI Body that the SAM translator
// writes into AWS::ApiGatewayV2::Api; each operation's integration URI names
// the function (…/functions/<function ARN>/invocations).
func (p *provisioner) routes() error {
	for _, id := range p.tmpl.ResourceIDs(typeHTTPAPI) {
		body, ok := p.tmpl.Resources[id].Properties["Body"].(map[string]any)
		if !ok {
			p.logf("skip %s (%s): no OpenAPI Body to read routes from", id, typeHTTPAPI)
			continue
		}
		paths, _ := body["paths"].(map[string]any)
		for _, path := range sortedKeys(paths) {
			ops, _ := paths[path].(map[string]any)
			for _, op := range sortedKeys(ops) {
				method, ok := openAPIMethods[op]
				if !ok {
					continue
				}
				opm, _ := ops[op].(map[string]any)
				integ, _ := opm["x-amazon-apigateway-integration"].(map[string]any)
				if integ == nil {
					continue
				}
				uri, err := p.ev.ResolveString(integ["uri"])
				if err != nil {
					return fmt.Errorf("%s route %s %s: %w", id, method, path, err)
				}
				fnID, ok := functionFromIntegrationURI(uri, p.functionByRef)
				if !ok {
					p.logf("skip route %s %s: integration %s is not a local function", method, path, uri)
					continue
				}
				if v := template.ScalarString(integ["payloadFormatVersion"]); v != "" && v != "2.0" {
					return fmt.Errorf("%s route %s %s: payload format %s is not supported locally (only 2.0)", id, method, path, v)
				}
				p.res.Routes = append(p.res.Routes, Route{Method: method, Path: path, Function: fnID})
			}
		}
	}
	return nil
}

func functionFromIntegrationURI(uri string, lookup func(string) (string, bool)) (string, bool) {
	const start, end = "/functions/", "/invocations"
	i := strings.Index(uri, start)
	j := strings.LastIndex(uri, end)
	if i < 0 || j < i+len(start) {
		return lookup(uri)
	}
	return lookup(uri[i+len(start) : j])
}

// kebabCase turns a logical id into a directory name: TelegramWebhook ->
// telegram-webhook, HTTPProxy -> http-proxy.
func kebabCase(s string) string {
	rs := []rune(s)
	var b strings.Builder
	for i, r := range rs {
		if unicode.IsUpper(r) {
			prevLower := i > 0 && (unicode.IsLower(rs[i-1]) || unicode.IsDigit(rs[i-1]))
			nextLower := i > 0 && i+1 < len(rs) && unicode.IsUpper(rs[i-1]) && unicode.IsLower(rs[i+1])
			if prevLower || nextLower {
				b.WriteByte('-')
			}
			b.WriteRune(unicode.ToLower(r))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}
