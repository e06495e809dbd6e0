package media_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/config"
	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/files"
	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/tools"
	"github.com/zero-gateway/zero/shared/tools/media"
	"github.com/zero-gateway/zero/shared/tools/tooltest"
	"github.com/zero-gateway/zero/shared/untrusted"
)

// imageConfig names an OpenAI image model.
const imageConfig = `{agents: {defaults: {imageModel: "openai/gpt-4o"}}}`

// echo is the run's model: it cannot see images.
var echo = model.Ref{Provider: "zero", Name: "echo"}

func parse(t *testing.T, doc string) *config.Config {
	t.Helper()
	cfg, err := config.Parse([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// imageTool is the image tool of the agent main's run on echo under
// imageConfig, with clients, URLs through tooltest.LocalFetcher and ws.
func imageTool(t *testing.T, clients map[string]model.Client, ws media.Workspace) media.ImageTool {
	t.Helper()
	run := tools.Run{Config: parse(t, imageConfig), AgentID: "main", Model: echo, Models: clients}
	models := media.Models(run.Config, run.Model, clients)
	if len(models) == 0 {
		t.Fatal("no image model resolves")
	}
	return media.NewImageTool(run, models, tooltest.LocalFetcher(), ws)
}

// pngBytes are bytes http.DetectContentType reads as image/png.
var pngBytes = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR fake image")

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
			vision := &tooltest.VisionModel{Text: "A cat on a mat.", Err: tt.modelErr}
			res := tooltest.Call(t, imageTool(t, map[string]model.Client{"openai": vision}, ws), tt.args)
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
			if diff := cmp.Diff(want, vision.Seen); diff != "" {
				t.Errorf("image model requests (-want +got):\n%s", diff)
			}
		})
	}
}

func TestModels(t *testing.T) {
	openai := map[string]model.Client{"openai": &tooltest.VisionModel{}}
	gpt4o := model.Ref{Provider: "openai", Name: "gpt-4o"}
	tests := []struct {
		name    string
		config  string
		ref     model.Ref
		clients map[string]model.Client
		want    []model.Ref
	}{
		{"the image model", imageConfig, echo, openai, []model.Ref{gpt4o}},
		{"the image model's provider missing", imageConfig, echo, nil, nil},
		{"no image model, a run model without vision", `{}`, echo, openai, nil},
		{"no image model, a run model with vision", `{}`, gpt4o, openai, []model.Ref{gpt4o}},
		{"an image model ZERO cannot send images to", `{agents: {defaults: {imageModel: "bedrock/amazon.nova-pro-v1:0"}}}`, echo,
			map[string]model.Client{"bedrock": &tooltest.VisionModel{}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, media.Models(parse(t, tt.config), tt.ref, tt.clients)); diff != "" {
				t.Errorf("models (-want +got):\n%s", diff)
			}
		})
	}
}

// jpegBytes are bytes http.DetectContentType reads as image/jpeg.
var jpegBytes = []byte("\xff\xd8\xff\xe0 fake jpeg")

func TestImageToolAttachment(t *testing.T) {
	photo := inbound.Message{ID: "telegram:42:1", Channel: "telegram", Attachments: []inbound.Attachment{{Kind: inbound.AttachmentImage, FileID: "AgAC-1"}}}
	fetch := func(_ context.Context, a inbound.Attachment, _ int64) (model.Image, error) {
		return model.Image{MediaType: "image/jpeg", Data: jpegBytes}, nil
	}
	tests := []struct {
		name    string
		image   string
		fetch   tools.AttachmentFetcher
		wantErr string
	}{
		{name: "attachment is the first", image: "attachment", fetch: fetch},
		{name: "attachment:1", image: "attachment:1", fetch: fetch},
		{name: "no second attachment", image: "attachment:2", fetch: fetch, wantErr: "has 1 image attachment(s), not 2"},
		{name: "not a number", image: "attachment:x", fetch: fetch, wantErr: "want attachment or attachment:N"},
		{name: "no source for the channel", image: "attachment:1", wantErr: "cannot be fetched here"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vision := &tooltest.VisionModel{Text: "A cat on a mat."}
			clients := map[string]model.Client{"openai": vision}
			run := tools.Run{Config: parse(t, imageConfig), AgentID: "main", Model: echo, Models: clients, Message: photo, FetchAttachment: tt.fetch}
			res := tooltest.Call(t, media.NewImageTool(run, media.Models(run.Config, echo, clients), nil, nil), `{"image":"`+tt.image+`"}`)
			if tt.wantErr != "" {
				if !res.IsError || !strings.Contains(res.Content, tt.wantErr) {
					t.Fatalf("result %+v; want an error with %q", res, tt.wantErr)
				}
				return
			}
			if res.IsError || !strings.Contains(res.Content, "A cat on a mat.") {
				t.Fatalf("result %+v; want the image model's answer", res)
			}
			want := []model.Image{{MediaType: "image/jpeg", Data: jpegBytes}}
			if len(vision.Seen) != 1 || !cmp.Equal(want, vision.Seen[0].Messages[0].Images) {
				t.Errorf("image model requests %+v; want one with the attachment", vision.Seen)
			}
		})
	}
}

// sizedFetcher answers every URL with size bytes of PNG, ignoring the
// limit it is given, which it records.
type sizedFetcher struct {
	size  int
	limit int64
}

func (f *sizedFetcher) FetchBytes(_ context.Context, _ string, maxBytes int64) ([]byte, string, error) {
	f.limit = maxBytes
	data := make([]byte, f.size)
	copy(data, pngBytes)
	return data, "image/png", nil
}

// TestImageToolSizeCap: an image is at most media.MaxMB (8 MB: what the
// runner's 256 MB holds while the image is asked, see MaxMB), 5 MB by
// default; a larger maxBytesMb is refused, and so are bytes over the limit
// from a source that did not enforce it.
func TestImageToolSizeCap(t *testing.T) {
	const mib = 1 << 20
	tests := []struct {
		name      string
		maxMB     string // the maxBytesMb argument; "" none
		size      int
		wantLimit int64 // the limit the download was given; 0 when refused before
		wantErr   string
	}{
		{name: "the default", size: mib, wantLimit: 5 * mib},
		{name: "the most", maxMB: "8", size: 8 * mib, wantLimit: 8 * mib},
		{name: "over the most", maxMB: "8.5", size: mib, wantErr: "at most 8 (what the runner's memory holds)"},
		{name: "OpenAI's 20 MB", maxMB: "20", size: mib, wantErr: "at most 8"},
		{name: "a download over the limit", maxMB: "8", size: 8*mib + 1, wantLimit: 8 * mib, wantErr: "over the limit of 8388608"},
		{name: "a download over the default", size: 5*mib + 1, wantLimit: 5 * mib, wantErr: "over the limit of 5242880"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fetch := &sizedFetcher{size: tt.size}
			cfg := parse(t, imageConfig)
			clients := map[string]model.Client{"openai": &tooltest.VisionModel{Text: "A cat."}}
			tool := media.NewImageTool(tools.Run{Config: cfg, AgentID: "main", Model: echo, Models: clients},
				media.Models(cfg, echo, clients), fetch, nil)
			args := `{"image":"https://example.com/cat.png"`
			if tt.maxMB != "" {
				args += `,"maxBytesMb":` + tt.maxMB
			}
			res := tooltest.Call(t, tool, args+"}")
			if tt.wantErr != "" && (!res.IsError || !strings.Contains(res.Content, tt.wantErr)) {
				t.Errorf("result %q; want an error with %q", res.Content, tt.wantErr)
			}
			if tt.wantErr == "" && res.IsError {
				t.Errorf("error result: %s", res.Content)
			}
			if fetch.limit != tt.wantLimit {
				t.Errorf("download limit = %d; want %d", fetch.limit, tt.wantLimit)
			}
		})
	}
	if !strings.Contains(string(media.ImageTool{}.Spec().Schema), `"maximum":8,`) || media.MaxMB != 8 {
		t.Errorf("the schema's maxBytesMb maximum is not media.MaxMB (%g): %s", media.MaxMB, media.ImageTool{}.Spec().Schema)
	}
}
