package turn

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/tools/media"
)

// AttachmentSource fetches the bytes of an attachment of an inbound message
// from its channel (*telegram.Client is one), at most maxBytes: a larger
// file is a fault.Invalid error. Fetching is a read, so a turn retried
// after a failure fetches again and nothing repeats. A transient failure
// is a retryable error (fault.Unavailable).
type AttachmentSource interface {
	FetchAttachment(ctx context.Context, a inbound.Attachment, maxBytes int64) ([]byte, error)
}

// noVisionNote is what the model reads instead of an image it cannot see.
const noVisionNote = "[the user sent an image; this model cannot see images]"

// attachmentMaxBytes is the size limit of an image attached to the prompt:
// the image tool's default.
const attachmentMaxBytes = media.DefaultMaxBytes

// attachImages prepares the turn's image attachments (t.msg.Images) for the
// model run and returns the prompt to ask. A model that accepts images
// (model.AcceptsImages) gets them in t.images, fetched through the
// channel's AttachmentSource; one that does not gets noVisionNote in the
// prompt. An image that cannot be had for good (too large, not an image,
// no source for the channel) becomes a note too; a transient fetch failure
// is returned, so the queue retries the turn. t.imageRefs records every
// image attachment for the transcript (see recordImageRefs).
func (p *Processor) attachImages(ctx context.Context, t *turnState, ref model.Ref, prompt string) (string, error) {
	atts := t.msg.Images()
	if len(atts) == 0 {
		return prompt, nil
	}
	t.imageRefs = atts
	if !model.AcceptsImages(ref) {
		note := noVisionNote
		if len(media.Models(t.cfg, ref, p.Models)) > 0 && p.Attachments[t.msg.Channel] != nil {
			note += "\n[the image tool can look at it: image \"attachment:1\"]"
		}
		return joinNote(note, prompt), nil
	}
	t.images = nil
	for i, a := range atts {
		img, err := p.fetchAttachment(ctx, t.msg.Channel, a, attachmentMaxBytes)
		switch {
		case err == nil:
			t.images = append(t.images, img)
		case fault.Retryable(err):
			return "", fmt.Errorf("attachment %d of %s: %w", i+1, t.msg.ID, err)
		default:
			p.log().WarnContext(ctx, "image attachment not loaded", "message", t.msg.ID, "attachment", i+1, "err", err)
			prompt = joinNote("[the user sent an image that could not be loaded: "+fault.Message(err)+"]", prompt)
		}
	}
	return prompt, nil
}

// joinNote puts note on its own line before prompt.
func joinNote(note, prompt string) string {
	if strings.TrimSpace(prompt) == "" {
		return note
	}
	return note + "\n" + prompt
}

// fetchAttachment loads attachment a of a message on channel through the
// channel's AttachmentSource, at most maxBytes, and checks by its bytes
// that it is a PNG, JPEG, GIF or WebP image (the channel's mime type is
// not trusted). No source for the channel, or bytes of another type, is a
// fault.Invalid error.
func (p *Processor) fetchAttachment(ctx context.Context, channel string, a inbound.Attachment, maxBytes int64) (model.Image, error) {
	src := p.Attachments[channel]
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

// recordImageRefs makes the run's messages fit to keep: the first one (the
// user's prompt) loses its image bytes and gains one reference line per
// image attachment (channel file id, mime type, size), so the transcript
// and the context record what was sent, never the bytes. Other messages
// carry no images.
func recordImageRefs(msgs []model.Message, channel string, refs []inbound.Attachment) {
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
