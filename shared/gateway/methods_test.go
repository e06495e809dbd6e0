package gateway

import (
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestMethods pins the API's surface: the methods the table serves. A
// method added or removed is a change of the API (and of this list).
func TestMethods(t *testing.T) {
	want := []string{
		"agent", "agent.events", "agent.wait",
		"chat.history", "chat.send", "chat.transcript",
		"config.get", "config.patch", "config.schema",
		"cron.add", "cron.list", "cron.remove", "cron.run", "cron.runs", "cron.status", "cron.update",
		"outbox.list", "outbox.retry",
		"sessions.delete", "sessions.list", "sessions.patch", "sessions.resolve", "sessions.runs",
		"status",
	}
	if diff := cmp.Diff(want, Methods()); diff != "" {
		t.Errorf("Methods() (-want +got):\n%s", diff)
	}
}

// TestMethodsAreServed: every method of the table is dispatched (a call
// is never "unknown method", whatever its params), and a name outside it
// is.
func TestMethodsAreServed(t *testing.T) {
	f := newFixture(t, "")
	for _, name := range Methods() {
		t.Run(name, func(t *testing.T) {
			r := f.call(name, map[string]any{"notAParam": true})
			if r.Error != nil && r.Error.Message == `unknown method "`+name+`"` {
				t.Fatalf("%s is in the table but answered %+v", name, r.Error)
			}
		})
	}
	t.Run("not in the table", func(t *testing.T) {
		f.call("sessions.lists", nil).wantError(t, http.StatusBadRequest, "invalid", `unknown method "sessions.lists"`)
	})
}
