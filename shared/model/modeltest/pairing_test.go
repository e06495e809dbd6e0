package modeltest

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Wire shorthands: Chat Completions sends one "tool" message per result,
// the Messages and Converse APIs one user message with every result.
func wu(results ...string) WireMessage { return WireMessage{Role: "user", Results: results} }
func wa(calls ...string) WireMessage   { return WireMessage{Role: "assistant", Calls: calls} }
func wt(id string) WireMessage         { return WireMessage{Role: "tool", Results: []string{id}} }

func TestCheckPairing(t *testing.T) {
	tests := []struct {
		name    string
		wire    []WireMessage
		want    Unpaired
		wantBad bool
	}{
		{name: "no tools", wire: []WireMessage{{Role: "system"}, wu(), wa(), wu()}},
		{name: "tool messages answer every call", wire: []WireMessage{{Role: "system"}, wu(), wa("a", "b"), wt("b"), wt("a"), wu()}},
		{name: "a user message answers every call", wire: []WireMessage{wu(), wa("a", "b"), wu("b", "a"), wa()}},
		{
			name:    "a call with no tool message",
			wire:    []WireMessage{{Role: "system"}, wu(), wa("a"), wu()},
			want:    Unpaired{Message: 2, After: 3, IDs: []string{"a"}},
			wantBad: true,
		},
		{
			name:    "tool messages that answer only some calls",
			wire:    []WireMessage{wu(), wa("a", "b", "c"), wt("b"), wu()},
			want:    Unpaired{Message: 1, After: 3, IDs: []string{"a", "c"}},
			wantBad: true,
		},
		{
			name:    "a user message that answers only some calls",
			wire:    []WireMessage{wu(), wa("a", "b"), wu("a")},
			want:    Unpaired{Message: 1, After: 3, IDs: []string{"b"}},
			wantBad: true,
		},
		{
			name:    "a conversation that ends on calls",
			wire:    []WireMessage{wu(), wa("a")},
			want:    Unpaired{Message: 1, After: 2, IDs: []string{"a"}},
			wantBad: true,
		},
		{
			name:    "a result in the first message",
			wire:    []WireMessage{wu("a")},
			want:    Unpaired{Orphan: true, Message: 0, Result: 0, IDs: []string{"a"}},
			wantBad: true,
		},
		{
			name:    "a tool message after a user message",
			wire:    []WireMessage{wu(), wa("a"), wt("a"), wu(), wt("a")},
			want:    Unpaired{Orphan: true, Message: 4, Result: 0, IDs: []string{"a"}},
			wantBad: true,
		},
		{
			name:    "results that answer another call, and one twice",
			wire:    []WireMessage{wu(), wa("a"), wu("a", "x", "a")},
			want:    Unpaired{Orphan: true, Message: 2, Result: 1, IDs: []string{"x", "a"}},
			wantBad: true,
		},
		{
			name:    "a second tool message for one call",
			wire:    []WireMessage{wu(), wa("a"), wt("a"), wt("a")},
			want:    Unpaired{Orphan: true, Message: 3, Result: 0, IDs: []string{"a"}},
			wantBad: true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, bad := CheckPairing(tc.wire)
			if bad != tc.wantBad {
				t.Fatalf("CheckPairing = %+v, %v; want broken = %v", got, bad, tc.wantBad)
			}
			if diff := cmp.Diff(tc.want, got); bad && diff != "" {
				t.Errorf("CheckPairing (-want +got):\n%s", diff)
			}
		})
	}
}
