package anthropic

import (
	"testing"

	"github.com/zero-gateway/zero/shared/rotating"
	"github.com/zero-gateway/zero/shared/rotating/rotatingtest"
	"github.com/zero-gateway/zero/shared/secret"
)

// TestRotatingClient: the key in force is sent; without a key only a
// server other than api.anthropic.com is reachable.
func TestRotatingClient(t *testing.T) {
	rotatingtest.FollowsKey(t, rotatingtest.Provider[*Client]{
		Name: "Anthropic",
		New: func(keys secret.Getter, baseURL string) *rotating.Model[*Client] {
			return NewRotatingClient(keys, Config{BaseURL: baseURL})
		},
		Reply:          `{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[{"type":"text","text":"ok"}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":1,"output_tokens":1}}`,
		DefaultBaseURL: DefaultBaseURL,
		KeyVar:         "ANTHROPIC_API_KEY",
	})
}
