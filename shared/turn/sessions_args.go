package turn

import (
	"encoding/json"
	"fmt"
)

// stringList is a list-of-strings argument; a single string is a list of
// one. (Numbers are tools.Number, clamped with tools.Clamp.)
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
