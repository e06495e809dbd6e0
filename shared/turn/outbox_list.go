package turn

import (
	"cmp"
	"slices"

	"github.com/zero-gateway/zero/shared/fault"
)

// OutboxStates are the states an outbox item can be in, in their listing
// order.
var OutboxStates = []string{OutboxPending, OutboxSent, OutboxDead}

// ValidOutboxState reports a state that is none of OutboxStates as
// fault.Invalid.
func ValidOutboxState(state string) error {
	if !slices.Contains(OutboxStates, state) {
		return fault.New(fault.Invalid, "outbox: unknown state %q (want pending, sent or dead)", state)
	}
	return nil
}

// SortOutbox orders items as Outbox.List returns them: newest first (by
// CreatedAt), ties by id, descending.
func SortOutbox(items []OutboxItem) {
	slices.SortFunc(items, func(a, b OutboxItem) int {
		if c := cmp.Compare(b.CreatedAt, a.CreatedAt); c != 0 {
			return c
		}
		return cmp.Compare(b.ID, a.ID)
	})
}
