package tool

// Unavailable reports whether name is a tool this deployment deliberately
// does not provide (exec, bash, process, browser, canvas, nodes: the
// registry's Unavailable entries), and the answer a call to it gets (a
// complete sentence for the model: why, and what replaces it). See
// docs/serverless.md, "Serverless replacements for seed features".
func Unavailable(name string) (answer string, ok bool) {
	e, found := registry.Lookup(normalize(name))
	if !found || e.Provided() {
		return "", false
	}
	return e.Unavailable, true
}
