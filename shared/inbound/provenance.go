package inbound

// Provenance says who asked for a run: what the run's tools may reach
// past its own conversation depends on it (shared/tools, the gate).
type Provenance string

const (
	// Owner: an owner of the channel (channels.<name>.owners), or the
	// operator (the gateway's bearer token: the CLI, the control page).
	Owner Provenance = "owner"
	// Sender: an admitted sender who is not an owner (allowFrom).
	Sender Provenance = "sender"
	// Untrusted: text no person vouched for — a hook payload, a cron job
	// a tool created, agent-to-agent text, content fetched in the run.
	Untrusted Provenance = "untrusted"
)

// Vouched is the provenance a message states at its door: Untrusted or
// Owner where its door knows, "" where the runner decides from the
// configuration in force (a channel message: Owner for an owner, else
// Sender). Valid reports whether p is one of those.
func (p Provenance) Valid() bool {
	switch p {
	case "", Owner, Sender, Untrusted:
		return true
	}
	return false
}
