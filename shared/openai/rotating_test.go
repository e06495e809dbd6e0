package openai

import (
	"testing"

	"github.com/zero-gateway/zero/shared/rotating"
	"github.com/zero-gateway/zero/shared/rotating/rotatingtest"
	"github.com/zero-gateway/zero/shared/secret"
)

// TestRotatingClient: the key in force is sent; without a key only a
// server other than api.openai.com is reachable.
func TestRotatingClient(t *testing.T) {
	rotatingtest.FollowsKey(t, rotatingtest.Provider[*Client]{
		Name: "OpenAI",
		New: func(keys secret.Getter, baseURL string) *rotating.Model[*Client] {
			return NewRotatingClient(keys, Config{BaseURL: baseURL})
		},
		Reply:          `{"id":"c1","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`,
		DefaultBaseURL: DefaultBaseURL,
		KeyVar:         "OPENAI_API_KEY",
	})
}
