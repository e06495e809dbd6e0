package turn_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/tools/tooltest"
	"github.com/zero-gateway/zero/shared/turn"
)

// jpegBytes are bytes http.DetectContentType reads as image/jpeg.
var jpegBytes = []byte("\xff\xd8\xff\xe0 fake jpeg")

// fakeAttachments is a turn.AttachmentSource: it answers each file id
// with its bytes, or with err (consumed) first.
type fakeAttachments struct {
	mu    sync.Mutex
	data  map[string][]byte
	err   error
	calls []string // "<file id> <maxBytes>"
}

func (f *fakeAttachments) FetchAttachment(_ context.Context, a inbound.Attachment, maxBytes int64) ([]byte, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, a.FileID)
	if err := f.err; err != nil {
		f.err = nil
		return nil, err
	}
	data, ok := f.data[a.FileID]
	if !ok {
		return nil, fault.New(fault.NotFound, "no file %s", a.FileID)
	}
	return data, nil
}

// photoMsg is msg(update, text) with a photo attached.
func photoMsg(update int, text string) inbound.Message {
	m := msg(update, text)
	m.Attachments = []inbound.Attachment{{Kind: inbound.AttachmentImage, FileID: "AgAC-1", MimeType: "image/jpeg", Size: int64(len(jpegBytes))}}
	return m
}

const visionRunConfig = `{channels: {telegram: {allowFrom: ["*"]}}, agents: {defaults: {model: "openai/gpt-4o"}}}`

func TestPhotoTurn(t *testing.T) {
	ref := "[image: telegram file AgAC-1, image/jpeg, 14 bytes]"
	tests := []struct {
		name        string
		config      string
		provider    string // the run model's provider
		text        string
		fetchErr    error
		wantPrompt  model.Message // the user message the model got
		wantFetches int
		wantRecord  string // the user message's text in the transcript and the context
	}{
		{name: "a vision model sees the photo", config: visionRunConfig, provider: "openai",
			wantPrompt:  model.Message{Role: model.User, Images: []model.Image{{MediaType: "image/jpeg", Data: jpegBytes}}},
			wantFetches: 1, wantRecord: ref},
		{name: "the caption goes with the photo", config: visionRunConfig, provider: "openai", text: "what is it?",
			wantPrompt:  model.Message{Role: model.User, Content: "what is it?", Images: []model.Image{{MediaType: "image/jpeg", Data: jpegBytes}}},
			wantFetches: 1, wantRecord: "what is it?\n" + ref},
		{name: "a model without vision gets a note", config: rigConfig, provider: "zero", text: "look",
			wantPrompt: model.Message{Role: model.User, Content: "[the user sent an image; this model cannot see images]\nlook"},
			wantRecord: "[the user sent an image; this model cannot see images]\nlook\n" + ref},
		{name: "an image that cannot be had becomes a note", config: visionRunConfig, provider: "openai",
			fetchErr:    fault.New(fault.Invalid, "too big"),
			wantPrompt:  model.Message{Role: model.User, Content: "[the user sent an image that could not be loaded: too big]"},
			wantFetches: 1, wantRecord: "[the user sent an image that could not be loaded: too big]\n" + ref},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig()
			r.settings.set(tt.config)
			llm := &scriptModel{answers: []model.Response{final("a cat")}}
			r.proc.Models[tt.provider] = llm
			src := &fakeAttachments{data: map[string][]byte{"AgAC-1": jpegBytes}, err: tt.fetchErr}
			r.proc.Attachments = map[string]turn.AttachmentSource{"telegram": src}
			r.handle(t, photoMsg(1, tt.text))
			if len(llm.seen) != 1 {
				t.Fatalf("%d model calls; want 1", len(llm.seen))
			}
			msgs := llm.seen[0].Messages
			if diff := cmp.Diff(tt.wantPrompt, msgs[len(msgs)-1]); diff != "" {
				t.Errorf("prompt (-want +got):\n%s", diff)
			}
			if len(src.calls) != tt.wantFetches {
				t.Errorf("fetched %v; want %d fetches", src.calls, tt.wantFetches)
			}
			lines := r.transcriptLines(t)
			if got := lines[0].Message.Text(); lines[0].Message.Role != model.User || got != tt.wantRecord {
				t.Errorf("transcript's user line %q (%s); want %q", got, lines[0].Message.Role, tt.wantRecord)
			}
			snap, err := r.store.Load(context.Background(), "agent:main:main", "")
			if err != nil || snap.Context == nil {
				t.Fatalf("Load: %v (context %v)", err, snap.Context)
			}
			for _, m := range snap.Context.Messages {
				if len(m.Images) > 0 {
					t.Errorf("the context keeps image bytes: %+v", m)
				}
			}
			if got := snap.Context.Messages[0].Content; got != tt.wantRecord {
				t.Errorf("context's user message %q; want %q", got, tt.wantRecord)
			}
		})
	}
}

// TestPhotoTurnRetry: a transient fetch failure fails the turn for the
// queue to retry; the retry fetches again (a read) and answers once.
func TestPhotoTurnRetry(t *testing.T) {
	r := newRig()
	r.settings.set(visionRunConfig)
	llm := &scriptModel{answers: []model.Response{final("a cat")}}
	r.proc.Models["openai"] = llm
	src := &fakeAttachments{data: map[string][]byte{"AgAC-1": jpegBytes}, err: fault.New(fault.Unavailable, "telegram down")}
	r.proc.Attachments = map[string]turn.AttachmentSource{"telegram": src}
	m := photoMsg(1, "")
	err := r.proc.Handle(context.Background(), m, 1)
	if !fault.Retryable(err) {
		t.Fatalf("Handle = %v; want a retryable error", err)
	}
	if err := r.proc.Handle(context.Background(), m, 2); err != nil {
		t.Fatalf("retry: %v", err)
	}
	if diff := cmp.Diff([]string{"AgAC-1", "AgAC-1"}, src.calls); diff != "" {
		t.Errorf("fetches (-want +got):\n%s", diff)
	}
	if len(llm.seen) != 1 || len(r.sender.Sent) != 1 {
		t.Errorf("%d model calls, %d replies; want one each", len(llm.seen), len(r.sender.Sent))
	}
}

func TestImageToolAttachment(t *testing.T) {
	tests := []struct {
		name    string
		image   string
		wantErr string
	}{
		{name: "attachment is the first", image: "attachment"},
		{name: "attachment:1", image: "attachment:1"},
		{name: "no second attachment", image: "attachment:2", wantErr: "has 1 image attachment(s), not 2"},
		{name: "not a number", image: "attachment:x", wantErr: "want attachment or attachment:N"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig()
			r.settings.set(imageConfig) // the run model (zero/echo) cannot see; openai/gpt-4o is the image model
			vision := &tooltest.VisionModel{Text: "A cat on a mat."}
			r.proc.Models["openai"] = vision
			r.proc.Attachments = map[string]turn.AttachmentSource{"telegram": &fakeAttachments{data: map[string][]byte{"AgAC-1": jpegBytes}}}
			call := model.Response{StopReason: model.StopToolUse, ToolCalls: []model.ToolCall{{ID: "call-1", Name: "image", Arguments: `{"image":"` + tt.image + `"}`}}}
			llm := &scriptModel{answers: []model.Response{call, final("ok")}}
			r.proc.Models["zero"] = llm
			r.handle(t, photoMsg(1, "what is this?"))
			if len(llm.seen) != 2 {
				t.Fatalf("%d model calls; want the tool call and the answer", len(llm.seen))
			}
			prompt := llm.seen[0].Messages[len(llm.seen[0].Messages)-1].Content
			if !strings.Contains(prompt, `image "attachment:1"`) {
				t.Errorf("prompt %q does not point at the image tool", prompt)
			}
			res := llm.seen[1].Messages[len(llm.seen[1].Messages)-1]
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
