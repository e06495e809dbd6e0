package tool

// unavailable are the tools of the inventory that ZERO's serverless
// deployment deliberately does not provide, each with the answer a call
// to it gets: why, and what to use instead. They are never offered to a
// model; a model that calls one anyway (from habit or an old transcript)
// reads this answer as the tool error. See docs/serverless.md, "Serverless
// replacements for seed features".
var unavailable = map[string]string{
	"exec":    execAnswer,
	"bash":    execAnswer,
	"process": "process is unavailable in this serverless deployment: there are no background processes to manage (a Lambda invocation ends with its turn and nothing outlives it), and exec is unavailable too. " + fileTools,
	"browser": "browser is unavailable in this serverless deployment: the runner is a small Go Lambda without a browser engine, and a headless browser per turn would cost seconds and hundreds of MB. Use web_fetch (readable content of one page, SSRF-guarded) and web_search instead.",
	"canvas":  "canvas is unavailable in this serverless deployment: it draws on a paired node's screen, and this deployment pairs no nodes. Answer in the chat (Markdown) instead.",
	"nodes":   "nodes is unavailable in this serverless deployment: companion devices pair with a long-running gateway over a persistent connection, which a Lambda behind an HTTP API does not keep. Use message for notifications and cron for scheduled work instead.",
}

const execAnswer = "exec is unavailable in this serverless deployment: the runner's Lambda holds the deployment's own AWS role (the session table, the bucket, the queues, the secrets), so a command run there could use it; ZERO runs no model-chosen commands. " + fileTools

const fileTools = "Use the workspace file tools (read, write, edit, apply_patch) for files, web_fetch for HTTP, and cron for scheduled work."

// Unavailable reports whether name is a tool this deployment deliberately
// does not provide, and the answer a call to it gets (a complete sentence
// for the model: why, and what replaces it).
func Unavailable(name string) (answer string, ok bool) {
	answer, ok = unavailable[normalize(name)]
	return answer, ok
}
