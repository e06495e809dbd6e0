package turn

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/zero-gateway/zero/shared/agent"
)

// number is a numeric tool argument. Models send numbers as JSON numbers,
// sometimes with a fraction or as a numeric string; all are accepted and
// floored (the session tools clamp out-of-range values, they do not
// refuse them). Anything else is an argument error.
type number float64

func (n *number) UnmarshalJSON(b []byte) error {
	var f float64
	if err := json.Unmarshal(b, &f); err == nil {
		*n = number(f)
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		if f, err := strconv.ParseFloat(strings.TrimSpace(s), 64); err == nil && !math.IsNaN(f) {
			*n = number(f)
			return nil
		}
	}
	return fmt.Errorf("want a number, got %s", b)
}

// clamp returns n floored and clamped to [lo, hi]; def when n is nil.
func clamp(n *number, def, lo, hi int) int {
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

// stringList is a list-of-strings argument; a single string is a list of
// one.
type stringList []string

func (l *stringList) UnmarshalJSON(b []byte) error {
	var one string
	if err := json.Unmarshal(b, &one); err == nil {
		*l = stringList{one}
		return nil
	}
	var many []string
	if err := json.Unmarshal(b, &many); err != nil {
		return fmt.Errorf("want a list of strings, got %s", b)
	}
	*l = many
	return nil
}

// toolResultBudget is the size the session tools keep their JSON results
// under, so the loop never cuts one in the middle (agent.Loop cuts longer
// results, which would leave invalid JSON): they leave out the least
// recent rows or messages instead and say so.
const toolResultBudget = agent.DefaultMaxToolResultBytes - 256

// fitted encodes items one by one and keeps as many as fit in budget
// bytes (at least one), taking them from the front (fromEnd false) or
// from the back (fromEnd true). It reports how many were left out.
func fitted[T any](items []T, budget int, fromEnd bool) ([]json.RawMessage, int, error) {
	encoded := make([]json.RawMessage, len(items))
	for i, it := range items {
		b, err := json.Marshal(it)
		if err != nil {
			return nil, 0, err
		}
		encoded[i] = b
	}
	if fromEnd {
		slices.Reverse(encoded)
	}
	kept, size := 0, 0
	for _, b := range encoded {
		if kept > 0 && size+len(b)+1 > budget {
			break
		}
		size += len(b) + 1
		kept++
	}
	out := encoded[:kept]
	if fromEnd {
		slices.Reverse(out)
	}
	return out, len(items) - kept, nil
}

// jsonResult encodes a tool's result object.
func jsonResult(v any) (string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", fmt.Errorf("encode the result: %w", err)
	}
	return string(b), nil
}
