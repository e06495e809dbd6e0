package turn

import (
	"context"

	"github.com/zero-gateway/zero/shared/attachment"
	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/tools/media"
)

// AttachmentSource fetches the files that came with a message from its
// channel (attachment.Source).
type AttachmentSource = attachment.Source

// attachImages prepares the turn's image attachments (t.msg.Images) for
// the model run on ref and returns the prompt to ask: the images go in
// t.images for a model that sees them, notes go in the prompt otherwise
// (attachment.Attach). t.imageRefs records every image attachment for the
// transcript (attachment.RecordRefs).
func (p *Processor) attachImages(ctx context.Context, t *turnState, ref model.Ref, prompt string) (string, error) {
	t.imageRefs = t.msg.Images()
	src := p.Attachments[t.msg.Channel]
	got, err := attachment.Attach(ctx, attachment.Request{
		MessageID: t.msg.ID, Channel: t.msg.Channel, Images: t.imageRefs, Prompt: prompt, Source: src, Log: p.log(),
		Vision: model.AcceptsImages(ref), ImageTool: len(t.imageRefs) > 0 && len(media.Models(t.cfg, ref, p.Models)) > 0,
	})
	t.images = got.Images
	return got.Text, err
}
