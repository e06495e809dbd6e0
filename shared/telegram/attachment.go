package telegram

import (
	"slices"

	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/model"
)

// MaxPhotoBytes is the largest photo size ParseUpdate picks when a smaller
// one exists: 5 MB, the smallest per-image limit of the providers ZERO
// sends images to (Anthropic's).
const MaxPhotoBytes = 5 << 20

// attachmentsOf is the pictures of msg as attachment references: the photo
// (one size of it, see pickPhoto; Telegram photos are JPEG) and a document
// whose mime_type is an image type every image-capable model accepts.
func attachmentsOf(msg *message) []inbound.Attachment {
	var out []inbound.Attachment
	if p, ok := pickPhoto(msg.Photo, MaxPhotoBytes); ok {
		out = append(out, inbound.Attachment{Kind: inbound.AttachmentImage, FileID: p.FileID, MimeType: "image/jpeg", Size: p.FileSize})
	}
	if d := msg.Document; d != nil && d.FileID != "" && slices.Contains(model.ImageMediaTypes, d.MimeType) {
		out = append(out, inbound.Attachment{Kind: inbound.AttachmentImage, FileID: d.FileID, MimeType: d.MimeType, Size: d.FileSize})
	}
	return out
}

// pickPhoto chooses among a photo's sizes the largest (by pixels) whose
// file_size is known and at most limit, else the largest of all (the
// download's limit then decides). ok is false when there is no size with
// a file id.
func pickPhoto(sizes []photoSize, limit int64) (photoSize, bool) {
	var best, largest photoSize
	for _, s := range sizes {
		if s.FileID == "" {
			continue
		}
		if largest.FileID == "" || s.Width*s.Height > largest.Width*largest.Height {
			largest = s
		}
		if s.FileSize > 0 && s.FileSize <= limit && (best.FileID == "" || s.Width*s.Height > best.Width*best.Height) {
			best = s
		}
	}
	if best.FileID != "" {
		return best, true
	}
	return largest, largest.FileID != ""
}
