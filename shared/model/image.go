package model

import "strings"

// Image is a picture sent to a model: its bytes and media type.
type Image struct {
	MediaType string `json:"mediaType"` // ImageMediaTypes has the accepted ones
	Data      []byte `json:"data"`
}

// ImageMediaTypes are the image types every image-capable provider
// accepts (OpenAI, Anthropic).
var ImageMediaTypes = []string{"image/png", "image/jpeg", "image/gif", "image/webp"}

// imageProviders are the providers whose adapters send Images: the
// OpenAI-compatible adapter (image_url data URLs) and the Anthropic one
// (base64 image blocks). Bedrock's and the echo model do not.
var imageProviders = map[string]bool{"openai": true, "anthropic": true}

// SendsImages reports whether ZERO's adapter for ref's provider can send
// images at all: the check for an explicitly configured image model.
func SendsImages(ref Ref) bool { return imageProviders[ref.Provider] }

// visionPrefixes are name prefixes of well-known models that accept images
// (lower-cased; a router's vendor prefix is ignored).
var visionPrefixes = []string{"gpt-4o", "chatgpt-4o", "gpt-4.1", "gpt-4.5", "gpt-4-turbo", "gpt-5", "o1", "o3", "o4", "claude-"}

// visionMarks are fragments that mark a model of an OpenAI-compatible
// server as a vision model (llava, qwen2.5-vl, llama-3.2-vision, ...).
var visionMarks = []string{"vision", "-vl", "llava", "pixtral", "gemma-3", "gemma3"}

// AcceptsImages reports, best effort, whether the model ref accepts
// images: its adapter sends them (SendsImages) and its name is a known
// vision model's. An unknown model is reported as not accepting images.
func AcceptsImages(ref Ref) bool {
	if !SendsImages(ref) {
		return false
	}
	name := strings.ToLower(strings.TrimSpace(ref.Name))
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	for _, p := range visionPrefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	for _, m := range visionMarks {
		if strings.Contains(name, m) {
			return true
		}
	}
	return false
}
