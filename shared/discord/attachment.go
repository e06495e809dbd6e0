package discord

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/model"
)

// MaxAttachmentBytes is the largest attachment /ask passes on: 5 MB, the
// smallest per-image limit of the providers ZERO sends images to
// (Anthropic's), as for Telegram photos.
const MaxAttachmentBytes = 5 << 20

// AttachmentTimeout bounds one attachment download, whatever the
// caller's deadline.
const AttachmentTimeout = 30 * time.Second

// CDNHosts are the hosts Discord serves attachments from; an attachment
// URL elsewhere is never fetched.
var CDNHosts = []string{"cdn.discordapp.com", "media.discordapp.net"}

// resolved is an interaction's data.resolved: here its attachments, by id.
type resolved struct {
	Attachments map[string]resolvedAttachment `json:"attachments"`
}

type resolvedAttachment struct {
	ID          string `json:"id"`
	Filename    string `json:"filename"`
	ContentType string `json:"content_type"`
	Size        int64  `json:"size"`
	URL         string `json:"url"`
	ProxyURL    string `json:"proxy_url"`
}

// attachmentsOf maps the attachment options of d (type
// OptionTypeAttachment, whose value is an id in data.resolved.attachments)
// to image attachment references. An attachment that is not a PNG, JPEG,
// GIF or WebP (by its content_type), is over MaxAttachmentBytes, or has
// no https URL on a CDNHosts host is not passed on: it becomes a note for
// the model instead, naming the file and why.
func attachmentsOf(d *commandData) ([]inbound.Attachment, []string) {
	var atts []inbound.Attachment
	var notes []string
	for _, o := range d.Options {
		if o.Type != OptionTypeAttachment {
			continue
		}
		var id string
		_ = json.Unmarshal(o.Value, &id)
		r, ok := resolvedAttachment{}, false
		if d.Resolved != nil {
			r, ok = d.Resolved.Attachments[id]
		}
		if !ok {
			notes = append(notes, "[the user attached a file Discord did not describe; it was not passed on]")
			continue
		}
		a, why := imageAttachment(id, r)
		if why != "" {
			notes = append(notes, "[the user attached "+strconv.Quote(r.Filename)+", not passed on: "+why+"]")
			continue
		}
		atts = append(atts, a)
	}
	return atts, notes
}

// imageAttachment is r as an image reference, or why it cannot be one.
func imageAttachment(id string, r resolvedAttachment) (inbound.Attachment, string) {
	mt, _, err := mime.ParseMediaType(r.ContentType)
	if err != nil || !slices.Contains(model.ImageMediaTypes, mt) {
		return inbound.Attachment{}, "not a PNG, JPEG, GIF or WebP image"
	}
	if r.Size > MaxAttachmentBytes {
		return inbound.Attachment{}, "over the limit of " + strconv.Itoa(MaxAttachmentBytes>>20) + " MB"
	}
	u := r.URL
	if _, err := cdnURL(u); err != nil {
		u = r.ProxyURL
	}
	if _, err := cdnURL(u); err != nil {
		return inbound.Attachment{}, "not on Discord's CDN"
	}
	return inbound.Attachment{Kind: inbound.AttachmentImage, FileID: id, URL: u, MimeType: mt, Size: r.Size}, ""
}

// cdnURL parses raw and checks it is an https URL on a CDNHosts host
// (fault.Invalid otherwise).
func cdnURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "https" || u.User != nil || !slices.Contains(CDNHosts, strings.ToLower(u.Host)) {
		return nil, fault.New(fault.Invalid, "discord attachment: not an https URL on Discord's CDN")
	}
	return u, nil
}

// FetchAttachment downloads a Discord attachment (its URL, signed, so no
// token is sent) with a GET, at most maxBytes, within AttachmentTimeout:
// the runner's turn.AttachmentSource for channel discord. The URL must be
// https on a CDNHosts host; with ClientConfig.CDNBaseURL set the request
// goes there instead, same path and query (for fakes). Errors: a URL off
// the CDN, a known size or body over maxBytes, a redirect, or another
// 4xx is fault.Invalid; a 404 (the signed URL expired) fault.NotFound, a
// 401/403 fault.Unauthorized; a network failure, timeout, 429 or 5xx
// fault.Unavailable (a download is a read: the caller may retry). No
// error carries the URL's signature.
func (c *Client) FetchAttachment(ctx context.Context, a inbound.Attachment, maxBytes int64) ([]byte, error) {
	if a.Size > maxBytes {
		return nil, fault.New(fault.Invalid, "discord attachment %s: %d bytes, over the limit of %d", a.FileID, a.Size, maxBytes)
	}
	u, err := cdnURL(a.URL)
	if err != nil {
		return nil, err
	}
	target := u.String()
	if c.cdnBase != "" {
		target = c.cdnBase + u.EscapedPath() + "?" + u.RawQuery
	}
	ctx, cancel := context.WithTimeout(ctx, AttachmentTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return nil, fault.New(fault.Invalid, "discord attachment %s: build request", u.Path)
	}
	hc := *c.http
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	res, err := hc.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // the URL holds the signature
		}
		return nil, fault.Wrap(fault.Unavailable, err, "discord attachment %s", u.Path)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return nil, fault.New(fault.OfDownload(res.StatusCode), "discord attachment %s: HTTP %d", u.Path, res.StatusCode)
	}
	return readLimited(res, u.Path, maxBytes)
}

// readLimited reads res's body, at most maxBytes (fault.Invalid beyond).
func readLimited(res *http.Response, path string, maxBytes int64) ([]byte, error) {
	if res.ContentLength > maxBytes {
		return nil, fault.New(fault.Invalid, "discord attachment %s: %d bytes, over the limit of %d", path, res.ContentLength, maxBytes)
	}
	data, err := io.ReadAll(io.LimitReader(res.Body, maxBytes+1))
	if err != nil {
		return nil, fault.Wrap(fault.Unavailable, err, "discord attachment %s: read", path)
	}
	if int64(len(data)) > maxBytes {
		return nil, fault.New(fault.Invalid, "discord attachment %s: over the limit of %d bytes", path, maxBytes)
	}
	return data, nil
}
