package bedrock

import (
	"strings"
	"testing"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/model"
)

// TestImagesUnsupported: a message with images is refused before any call,
// with an Invalid error that names the way out.
func TestImagesUnsupported(t *testing.T) {
	req := model.Request{Model: "anthropic.claude-3-5-sonnet", Messages: []model.Message{{Role: model.User, Content: "what?", Images: []model.Image{{MediaType: "image/png", Data: []byte("p")}}}}}
	_, err := buildInput(req)
	if fault.CodeOf(err) != fault.Invalid || !strings.Contains(err.Error(), "imageModel") {
		t.Errorf("buildInput = %v; want an Invalid error naming imageModel", err)
	}
}
