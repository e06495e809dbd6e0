// Package attachment prepares the image attachments of an inbound message
// for a model run: fetched from the message's channel (Source) and checked
// by their bytes for a model that sees images, a note in the prompt
// instead for one that does not (or for an image that cannot be had), and
// the reference lines the transcript and the context keep instead of the
// bytes (RecordRefs).
package attachment

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/tools/media"
)

// Source fetches the bytes of an attachment of an inbound message from
// its channel (*telegram.Client is one), at most maxBytes: a larger file
// is a fault.Invalid error. Fetching is a read, so a turn retried after a
// failure fetches again and nothing repeats. A transient failure is a
// retryable error (fault.Unavailable).
type Source interface {
	FetchAttachment(ctx context.Context, a inbound.Attachment, maxBytes int64) ([]byte, error)
}

// noVisionNote is what the model reads instead of an image it cannot see.
const noVisionNote = "[the user sent an image; this model cannot see images]"

// MaxBytes is the size limit of an image attached to the prompt: the
// image tool's default.
const MaxBytes = media.DefaultMaxBytes

// Request is a run's prompt and the image attachments of its message.
type Request struct {
	MessageID string
	Channel   string
	Images    []inbound.Attachment // the message's image attachments
	Prompt    string
	Vision    bool         // the run's model accepts images (model.AcceptsImages)
	ImageTool bool         // the image tool has a model to look with (media.Models)
	Source    Source       // the channel's; nil: the channel has none
	Log       *slog.Logger // where an image not loaded is reported; nil: slog's default
}

// Prompt is what a run asks: its text and the images that go with it.
type Prompt struct {
	Text   string
	Images []model.Image
}

// Attach prepares r for the run. A model that accepts images gets them,
// fetched through r.Source (at most MaxBytes each); one that does not
// gets noVisionNote in the prompt, with a pointer to the image tool when
// that can look at the attachment. An image that cannot be had for good
// (too large, not an image, no source) becomes a note too; a transient
// fetch failure is returned, so the queue retries the turn.
func Attach(ctx context.Context, r Request) (Prompt, error) {
	if len(r.Images) == 0 {
		return Prompt{Text: r.Prompt}, nil
	}
	if !r.Vision {
		note := noVisionNote
		if r.ImageTool && r.Source != nil {
			note += "\n[the image tool can look at it: image \"attachment:1\"]"
		}
		return Prompt{Text: joinNote(note, r.Prompt)}, nil
	}
	out := Prompt{Text: r.Prompt}
	for i, a := range r.Images {
		img, err := Fetch(ctx, r.Source, r.Channel, a, MaxBytes)
		switch {
		case err == nil:
			out.Images = append(out.Images, img)
		case fault.Retryable(err):
			return Prompt{}, fmt.Errorf("attachment %d of %s: %w", i+1, r.MessageID, err)
		default:
			logger(r.Log).WarnContext(ctx, "image attachment not loaded", "message", r.MessageID, "attachment", i+1, "err", err)
			out.Text = joinNote("[the user sent an image that could not be loaded: "+fault.Message(err)+"]", out.Text)
		}
	}
	return out, nil
}

func logger(l *slog.Logger) *slog.Logger {
	if l == nil {
		return slog.Default()
	}
	return l
}

// joinNote puts note on its own line before prompt.
func joinNote(note, prompt string) string {
	if strings.TrimSpace(prompt) == "" {
		return note
	}
	return note + "\n" + prompt
}

// Fetch loads attachment a of a message on channel through src (the
// channel's Source), at most maxBytes, and checks by its bytes that it is
// a PNG, JPEG, GIF or WebP image (the channel's mime type is not
// trusted). No source, or bytes of another type, is a fault.Invalid
// error.
func Fetch(ctx context.Context, src Source, channel string, a inbound.Attachment, maxBytes int64) (model.Image, error) {
	if src == nil {
		return model.Image{}, fault.New(fault.Invalid, "attachments of %s messages cannot be fetched here", channel)
	}
	data, err := src.FetchAttachment(ctx, a, maxBytes)
	if err != nil {
		return model.Image{}, err
	}
	mt := http.DetectContentType(data)
	if !slices.Contains(model.ImageMediaTypes, mt) {
		return model.Image{}, fault.New(fault.Invalid, "the attachment is not a PNG, JPEG, GIF or WebP image (its bytes look like %s)", mt)
	}
	return model.Image{MediaType: mt, Data: data}, nil
}

// RecordRefs makes a run's messages fit to keep: the first one (the
// user's prompt) loses its image bytes and gains one reference line per
// image attachment (channel file id, mime type, size), so the transcript
// and the context record what was sent, never the bytes. Other messages
// carry no images.
func RecordRefs(msgs []model.Message, channel string, refs []inbound.Attachment) {
	for i := range msgs {
		msgs[i].Images = nil
	}
	if len(refs) == 0 || len(msgs) == 0 || msgs[0].Role != model.User {
		return
	}
	lines := make([]string, 0, len(refs)+1)
	if msgs[0].Content != "" {
		lines = append(lines, msgs[0].Content)
	}
	for _, a := range refs {
		lines = append(lines, imageRef(channel, a))
	}
	msgs[0].Content = strings.Join(lines, "\n")
}

// imageRef is the reference line of one image attachment, e.g.
// "[image: telegram file AgAC…, image/jpeg, 51234 bytes]".
func imageRef(channel string, a inbound.Attachment) string {
	parts := []string{channel + " file " + a.FileID}
	if a.MimeType != "" {
		parts = append(parts, a.MimeType)
	}
	if a.Size > 0 {
		parts = append(parts, strconv.FormatInt(a.Size, 10)+" bytes")
	}
	return "[image: " + strings.Join(parts, ", ") + "]"
}
