package builtin

import "github.com/zero-gateway/zero/shared/tools"

// unavailableEntries are the tools of the upstream inventory that ZERO's
// serverless deployment deliberately does not provide, each with the
// answer a call to it gets: why, and what to use instead. They are never
// offered to a model; a model that calls one anyway (from habit or an old
// transcript) reads this answer as the tool error. See
// docs/serverless.md, "Serverless replacements for seed features".
func unavailableEntries() []tools.Entry {
	return []tools.Entry{
		{Name: "exec", Group: "group:runtime", Profiles: profiles(coding), Unavailable: execAnswer},
		{Name: "bash", Group: "group:runtime", Profiles: profiles(coding), Unavailable: execAnswer},
		{Name: "process", Group: "group:runtime", Profiles: profiles(coding), Unavailable: processAnswer},
		{Name: "browser", Group: "group:ui", Unavailable: browserAnswer},
		{Name: "canvas", Group: "group:ui", Unavailable: canvasAnswer},
		{Name: "nodes", Group: "group:nodes", Unavailable: nodesAnswer},
	}
}

// The answers of the unavailable tools.
const (
	execAnswer    = "exec is unavailable in this serverless deployment: the runner's Lambda holds the deployment's own AWS role (the session table, the bucket, the queues, the secrets), so a command run there could use it; ZERO runs no model-chosen commands. " + useFileTools
	processAnswer = "process is unavailable in this serverless deployment: there are no background processes to manage (a Lambda invocation ends with its turn and nothing outlives it), and exec is unavailable too. " + useFileTools
	browserAnswer = "browser is unavailable in this serverless deployment: the runner is a small Go Lambda without a browser engine, and a headless browser per turn would cost seconds and hundreds of MB. Use web_fetch (readable content of one page, SSRF-guarded) and web_search instead."
	canvasAnswer  = "canvas is unavailable in this serverless deployment: it draws on a paired node's screen, and this deployment pairs no nodes. Answer in the chat (Markdown) instead."
	nodesAnswer   = "nodes is unavailable in this serverless deployment: companion devices pair with a long-running gateway over a persistent connection, which a Lambda behind an HTTP API does not keep. Use message for notifications and cron for scheduled work instead."
	useFileTools  = "Use the workspace file tools (read, write, edit, apply_patch) for files, web_fetch for HTTP, and cron for scheduled work."
)
