package tool

import "slices"

// provided are the tools ZERO implements today, sorted. sessions_list,
// sessions_history and sessions_send are offered only where the session
// store can read other sessions (always, deployed); sessions_send also
// needs the work queue (the runner has it when ZERO_QUEUE_URL is set), as
// does sessions_spawn.
var provided = []string{"agents_list", "session_status", "sessions_history", "sessions_list", "sessions_send", "sessions_spawn"}

// Provided reports whether ZERO implements the tool name today; a tool the
// policy allows but ZERO does not provide is never offered to a model.
func Provided(name string) bool {
	_, ok := slices.BinarySearch(provided, normalize(name))
	return ok
}
