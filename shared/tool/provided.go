package tool

// Provided reports whether ZERO implements the tool name today; a tool the
// policy allows but ZERO does not provide is never offered to a model.
func Provided(name string) bool {
	return normalize(name) == "session_status"
}
