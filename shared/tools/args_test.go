package tools_test

import (
	"encoding/json"
	"sync"
	"testing"

	"github.com/zero-gateway/zero/shared/tools"
)

// TestNumberAndClamp: numbers, fractions and numeric strings are
// accepted and clamped, never refused; anything else is an error.
func TestNumberAndClamp(t *testing.T) {
	tests := []struct {
		name    string
		arg     string // the JSON of {"n": ...}; "" leaves n out
		want    int
		wantErr bool
	}{
		{name: "absent: the default", want: 50},
		{name: "kept", arg: "7", want: 7},
		{name: "floored", arg: "2.9", want: 2},
		{name: "a numeric string", arg: `" 12 "`, want: 12},
		{name: "below the range", arg: "-3", want: 1},
		{name: "above the range", arg: "1e18", want: 200},
		{name: "a word", arg: `"ten"`, wantErr: true},
		{name: "a boolean", arg: "true", wantErr: true},
		{name: "a list", arg: "[1]", wantErr: true},
		{name: "NaN as a string", arg: `"NaN"`, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := `{}`
			if tt.arg != "" {
				doc = `{"n": ` + tt.arg + `}`
			}
			var a struct {
				N *tools.Number `json:"n"`
			}
			err := json.Unmarshal([]byte(doc), &a)
			if (err != nil) != tt.wantErr {
				t.Fatalf("Unmarshal(%s) error %v; want error %v", doc, err, tt.wantErr)
			}
			if err == nil {
				if got := tools.Clamp(a.N, 50, 1, 200); got != tt.want {
					t.Errorf("Clamp = %d; want %d", got, tt.want)
				}
			}
		})
	}
}

// TestCounter numbers calls per key, concurrently.
func TestCounter(t *testing.T) {
	var c tools.Counter
	var wg sync.WaitGroup
	for range 10 {
		wg.Add(1)
		go func() { defer wg.Done(); c.Next("a") }()
	}
	wg.Wait()
	if got := c.Next("a"); got != 11 {
		t.Errorf("Next(a) = %d; want 11", got)
	}
	if got := c.Next("b"); got != 1 {
		t.Errorf("Next(b) = %d; want 1", got)
	}
}
