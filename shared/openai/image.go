package openai

import (
	"encoding/base64"

	sdk "github.com/openai/openai-go/v3"

	"github.com/zero-gateway/zero/shared/model"
)

// userWithImages is a user message with images: content parts, each image
// an image_url part whose url is a data URL (data:<type>;base64,<bytes>),
// then the text part when the text is not empty.
func userWithImages(m model.Message) sdk.ChatCompletionMessageParamUnion {
	parts := make([]sdk.ChatCompletionContentPartUnionParam, 0, len(m.Images)+1)
	for _, img := range m.Images {
		url := "data:" + img.MediaType + ";base64," + base64.StdEncoding.EncodeToString(img.Data)
		parts = append(parts, sdk.ImageContentPart(sdk.ChatCompletionContentPartImageImageURLParam{URL: url}))
	}
	if m.Content != "" {
		parts = append(parts, sdk.TextContentPart(m.Content))
	}
	return sdk.UserMessage(parts)
}
