package turn_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/files"
	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/untrusted"
)

// imageConfig is rigConfig with an OpenAI image model.
const imageConfig = `{channels: {telegram: {allowFrom: ["*"], owners: ["7"]}}, agents: {defaults: {imageModel: "openai/gpt-4o"}}}`

// pngBytes are bytes http.DetectContentType reads as image/png.
var pngBytes = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR fake image")

// visionModel records the image requests and answers text or err.
type visionModel struct {
	seen []model.Request
	text string
	err  error
}

func (v *visionModel) Complete(_ context.Context, req model.Request) (model.Response, error) {
	v.seen = append(v.seen, req)
	return model.Response{Text: v.text, StopReason: model.StopEnd}, v.err
}

// memFiles is a files.Store in memory, read-only here.
type memFiles map[string][]byte

func (m memFiles) Fetch(_ context.Context, key string) (files.Object, error) {
	data, ok := m[key]
	if !ok {
		return files.Object{}, fault.New(fault.NotFound, "no %s", key)
	}
	return files.Object{Data: data, ETag: "e"}, nil
}
func (memFiles) Put(context.Context, string, []byte, string) (string, error) {
	return "", errors.New("read-only")
}
func (memFiles) Delete(context.Context, string, string) error { return errors.New("read-only") }

func TestImageToolOffered(t *testing.T) {
	tests := []struct {
		name   string
		config string
		openai bool // the deployment has an openai provider
		want   bool
	}{
		{name: "image model configured", config: imageConfig, openai: true, want: true},
		{name: "image model's provider missing", config: imageConfig},
		{name: "no image model, run model without vision", config: rigConfig, openai: true},
		{name: "bedrock image model", config: `{agents: {defaults: {imageModel: "bedrock/amazon.nova-pro-v1:0"}}}`, openai: true},
		{name: "denied by the policy", config: `{tools: {deny: ["image"]}, agents: {defaults: {imageModel: "openai/gpt-4o"}}}`, openai: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig()
			r.settings.set(tt.config)
			if tt.openai {
				r.proc.Models["openai"] = &visionModel{text: "a cat"}
			}
			llm := &scriptModel{answers: []model.Response{final("ok")}}
			r.proc.Models["zero"] = llm
			r.handle(t, msg(1, "hi"))
			if got := slices.Contains(toolNames(llm.seen[0].Tools), "image"); got != tt.want {
				t.Errorf("image offered %v, want %v", got, tt.want)
			}
		})
	}
}

func TestImageTool(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/cat.png":
			w.Header().Set("Content-Type", "text/plain") // the bytes decide, not the header
			w.Write(pngBytes)
		case "/page.html":
			w.Write([]byte("<html>not an image</html>"))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	ws := memFiles{"agents/main/workspace/pics/cat.png": pngBytes, "agents/main/workspace/notes.md": []byte("# notes")}
	tests := []struct {
		name       string
		args       string
		modelErr   error
		wantErr    string
		wantPrompt string // what the image model was asked
	}{
		{name: "url, default prompt", args: `{"image":"` + srv.URL + `/cat.png"}`, wantPrompt: "Describe the image."},
		{name: "workspace path, own prompt", args: `{"image":"pics/cat.png","prompt":"What colour is it?"}`, wantPrompt: "What colour is it?"},
		{name: "missing image", args: `{}`, wantErr: "needs an image"},
		{name: "metadata address refused", args: `{"image":"http://169.254.169.254/latest/meta-data/"}`, wantErr: "169.254.169.254"},
		{name: "over maxBytesMb", args: `{"image":"` + srv.URL + `/cat.png","maxBytesMb":0.00001}`, wantErr: "larger than the limit"},
		{name: "maxBytesMb out of range", args: `{"image":"pics/cat.png","maxBytesMb":50}`, wantErr: "maxBytesMb must be"},
		{name: "not an image", args: `{"image":"` + srv.URL + `/page.html"}`, wantErr: "not a PNG, JPEG, GIF or WebP"},
		{name: "workspace file not an image", args: `{"image":"notes.md"}`, wantErr: "not a PNG"},
		{name: "path escape", args: `{"image":"../other/workspace/x.png"}`, wantErr: "invalid path"},
		{name: "other scheme", args: `{"image":"file:///etc/passwd"}`, wantErr: "neither an http(s) URL nor a workspace path"},
		{name: "model override without image support", args: `{"image":"pics/cat.png","model":"zero/echo"}`, wantErr: "cannot be asked about images"},
		{name: "model fails", args: `{"image":"pics/cat.png"}`, modelErr: fault.New(fault.Unavailable, "overloaded"), wantErr: "openai/gpt-4o: overloaded"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig()
			r.settings.set(imageConfig)
			vision := &visionModel{text: "A cat on a mat.", err: tt.modelErr}
			r.proc.Models["openai"] = vision
			r.proc.ImageFetch = testFetcher()
			r.proc.Files = ws
			res := r.callTool(t, "image", tt.args)
			if tt.wantErr != "" {
				if !res.IsError || !strings.Contains(res.Content, tt.wantErr) {
					t.Fatalf("result %+v; want an error with %q", res, tt.wantErr)
				}
				return
			}
			if res.IsError {
				t.Fatalf("error result: %s", res.Content)
			}
			for _, w := range []string{"openai/gpt-4o looked at", "image/png", untrusted.BeginMarker, "A cat on a mat."} {
				if !strings.Contains(res.Content, w) {
					t.Errorf("result lacks %q: %s", w, res.Content)
				}
			}
			want := []model.Request{{Model: "gpt-4o", MaxTokens: 1024, Messages: []model.Message{{Role: model.User, Content: tt.wantPrompt,
				Images: []model.Image{{MediaType: "image/png", Data: pngBytes}}}}}}
			if diff := cmp.Diff(want, vision.seen); diff != "" {
				t.Errorf("image model requests (-want +got):\n%s", diff)
			}
		})
	}
}
