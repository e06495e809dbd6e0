package tools

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
)

// Number is a numeric tool argument. Models send numbers as JSON numbers,
// sometimes with a fraction or as a numeric string; all are accepted and
// floored by Clamp (tools clamp out-of-range values, they do not refuse
// them). Anything else is an argument error.
type Number float64

// UnmarshalJSON accepts a JSON number or a string holding one.
func (n *Number) UnmarshalJSON(b []byte) error {
	var f float64
	if err := json.Unmarshal(b, &f); err == nil {
		*n = Number(f)
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		if f, err := strconv.ParseFloat(strings.TrimSpace(s), 64); err == nil && !math.IsNaN(f) {
			*n = Number(f)
			return nil
		}
	}
	return fmt.Errorf("want a number, got %s", b)
}

// Clamp returns n floored and clamped to [lo, hi]; def when n is nil.
func Clamp(n *Number, def, lo, hi int) int {
	if n == nil {
		return def
	}
	f := math.Floor(float64(*n))
	switch {
	case f < float64(lo):
		return lo
	case f > float64(hi):
		return hi
	}
	return int(f)
}

// Counter numbers a run's calls per key: the n-th send of a run to a
// session, or the n-th cron job it adds, has the same id on every attempt
// of the turn. Its zero value is ready; safe for concurrent use.
type Counter struct {
	mu sync.Mutex
	n  map[string]int
}

// Next returns how many times Next was called with key, this call
// included (1 on the first).
func (c *Counter) Next(key string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == nil {
		c.n = map[string]int{}
	}
	c.n[key]++
	return c.n[key]
}
