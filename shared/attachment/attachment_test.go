package attachment_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/attachment"
	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/model"
)

// jpegBytes are bytes http.DetectContentType reads as image/jpeg.
var jpegBytes = []byte("\xff\xd8\xff\xe0 fake jpeg")

// files is a Source: each file id's bytes, or err for every fetch.
type files struct {
	data  map[string][]byte
	err   error
	limit int64 // the maxBytes of the last fetch
}

func (f *files) FetchAttachment(_ context.Context, a inbound.Attachment, maxBytes int64) ([]byte, error) {
	f.limit = maxBytes
	if f.err != nil {
		return nil, f.err
	}
	data, ok := f.data[a.FileID]
	if !ok {
		return nil, fault.New(fault.Invalid, "too big")
	}
	return data, nil
}

var photo = inbound.Attachment{Kind: inbound.AttachmentImage, FileID: "AgAC-1", MimeType: "image/jpeg", Size: 14}

func TestAttach(t *testing.T) {
	src := &files{data: map[string][]byte{"AgAC-1": jpegBytes, "text": []byte("just text")}}
	jpeg := model.Image{MediaType: "image/jpeg", Data: jpegBytes}
	tests := []struct {
		name string
		req  attachment.Request
		want attachment.Prompt
	}{
		{name: "no images: the prompt as it is", req: attachment.Request{Prompt: "hi", Vision: true, Source: src},
			want: attachment.Prompt{Text: "hi"}},
		{name: "a vision model sees the photo", req: attachment.Request{Images: []inbound.Attachment{photo}, Prompt: "what is it?", Vision: true, Source: src},
			want: attachment.Prompt{Text: "what is it?", Images: []model.Image{jpeg}}},
		{name: "a model without vision gets a note", req: attachment.Request{Images: []inbound.Attachment{photo}, Prompt: "look", Source: src},
			want: attachment.Prompt{Text: "[the user sent an image; this model cannot see images]\nlook"}},
		{name: "the note points at the image tool", req: attachment.Request{Images: []inbound.Attachment{photo}, ImageTool: true, Source: src},
			want: attachment.Prompt{Text: "[the user sent an image; this model cannot see images]\n[the image tool can look at it: image \"attachment:1\"]"}},
		{name: "no image tool without a source", req: attachment.Request{Images: []inbound.Attachment{photo}, ImageTool: true},
			want: attachment.Prompt{Text: "[the user sent an image; this model cannot see images]"}},
		{name: "an image that cannot be had becomes a note", req: attachment.Request{Images: []inbound.Attachment{{FileID: "gone"}, photo}, Vision: true, Source: src},
			want: attachment.Prompt{Text: "[the user sent an image that could not be loaded: too big]", Images: []model.Image{jpeg}}},
		{name: "bytes that are no image become a note", req: attachment.Request{Images: []inbound.Attachment{{FileID: "text"}}, Prompt: "see", Vision: true, Source: src},
			want: attachment.Prompt{Text: "[the user sent an image that could not be loaded: the attachment is not a PNG, JPEG, GIF or WebP image (its bytes look like text/plain; charset=utf-8)]\nsee"}},
		{name: "no source for the channel becomes a note", req: attachment.Request{Channel: "webchat", Images: []inbound.Attachment{photo}, Vision: true},
			want: attachment.Prompt{Text: "[the user sent an image that could not be loaded: attachments of webchat messages cannot be fetched here]"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := attachment.Attach(context.Background(), tt.req)
			if err != nil {
				t.Fatalf("Attach: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("prompt (-want +got):\n%s", diff)
			}
		})
	}
	if src.limit != attachment.MaxBytes {
		t.Errorf("fetched at most %d bytes; want MaxBytes %d", src.limit, attachment.MaxBytes)
	}
}

// TestAttachTransientFailure: a fetch that may work later fails the
// preparation (the queue retries the turn), not a note.
func TestAttachTransientFailure(t *testing.T) {
	src := &files{err: fault.New(fault.Unavailable, "telegram down")}
	_, err := attachment.Attach(context.Background(), attachment.Request{MessageID: "m1", Images: []inbound.Attachment{photo}, Vision: true, Source: src})
	if !fault.Retryable(err) {
		t.Fatalf("Attach = %v; want a retryable error", err)
	}
}

// TestRecordRefs: no message keeps image bytes; the prompt gains one
// reference line per attachment, after its text.
func TestRecordRefs(t *testing.T) {
	jpeg := []model.Image{{MediaType: "image/jpeg", Data: jpegBytes}}
	msgs := []model.Message{{Role: model.User, Content: "what is it?", Images: jpeg}, {Role: model.Assistant, Content: "a cat", Images: jpeg}}
	bare := inbound.Attachment{FileID: "AgAC-2"}
	attachment.RecordRefs(msgs, "telegram", []inbound.Attachment{photo, bare})
	want := []model.Message{
		{Role: model.User, Content: "what is it?\n[image: telegram file AgAC-1, image/jpeg, 14 bytes]\n[image: telegram file AgAC-2]"},
		{Role: model.Assistant, Content: "a cat"},
	}
	if diff := cmp.Diff(want, msgs); diff != "" {
		t.Errorf("recorded (-want +got):\n%s", diff)
	}
	empty := []model.Message{{Role: model.User}}
	attachment.RecordRefs(empty, "telegram", []inbound.Attachment{photo})
	if got := empty[0].Content; got != "[image: telegram file AgAC-1, image/jpeg, 14 bytes]" {
		t.Errorf("a prompt without text recorded as %q", got)
	}
}
