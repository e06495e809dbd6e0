package telegram

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/inbound"
)

// MaxDownloadBytes is the largest file the Bot API lets a bot download
// (getFile: 20 MB).
const MaxDownloadBytes = 20 << 20

// File is getFile's answer: where to download a file from, for at least
// an hour.
type File struct {
	Path string // file_path, for Download
	Size int64  // file_size; 0 when Telegram did not say
}

// GetFile asks Telegram where the file fileID can be downloaded
// (getFile). It is repeated when its outcome is unknown (a read). Errors
// are classified as call's: a file id Telegram does not know (or a file
// over MaxDownloadBytes) is fault.Invalid.
func (c *Client) GetFile(ctx context.Context, fileID string) (File, error) {
	if strings.TrimSpace(fileID) == "" {
		return File{}, fault.New(fault.Invalid, "telegram getFile: no file id")
	}
	resp, err := c.call(ctx, "getFile", struct {
		FileID string `json:"file_id"`
	}{fileID})
	if err != nil {
		return File{}, err
	}
	var f struct {
		FilePath string `json:"file_path"`
		FileSize int64  `json:"file_size"`
	}
	if err := json.Unmarshal(resp.Result, &f); err != nil {
		return File{}, fault.Wrap(fault.Unavailable, err, "telegram getFile: malformed result")
	}
	if f.FilePath == "" {
		return File{}, fault.New(fault.Invalid, "telegram getFile: no file_path (the file is over the Bot API's %d MB download limit?)", MaxDownloadBytes>>20)
	}
	return File{Path: f.FilePath, Size: f.FileSize}, nil
}

// Download reads the file at filePath (GetFile's Path) from
// <base>/file/bot<token>/<file_path>, at most maxBytes of it: a larger
// file is a fault.Invalid error, read no further. A network failure or a
// 5xx is fault.Unavailable (a download is a read: the caller may retry),
// a 404 fault.NotFound (the path expired: ask GetFile again), a 401
// fault.Unauthorized. No error carries the token.
func (c *Client) Download(ctx context.Context, filePath string, maxBytes int64) ([]byte, error) {
	if filePath == "" || strings.Contains(filePath, "..") || strings.ContainsAny(filePath, "?#") {
		return nil, fault.New(fault.Invalid, "telegram download: bad file path %q", filePath)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.baseURL+"/file/bot"+c.token+"/"+filePath, nil)
	if err != nil {
		return nil, fault.Wrap(fault.Invalid, c.redact(err), "telegram download %s: build request", filePath)
	}
	res, err := c.client.Do(req)
	if err != nil {
		return nil, fault.Wrap(fault.Unavailable, c.redact(err), "telegram download %s", filePath)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return nil, fault.New(fault.OfDownload(res.StatusCode), "telegram download %s: HTTP %d", filePath, res.StatusCode)
	}
	if res.ContentLength > maxBytes {
		return nil, tooLarge(filePath, res.ContentLength, maxBytes)
	}
	data, err := io.ReadAll(io.LimitReader(res.Body, maxBytes+1))
	if err != nil {
		return nil, fault.Wrap(fault.Unavailable, c.redact(err), "telegram download %s: read", filePath)
	}
	if int64(len(data)) > maxBytes {
		return nil, tooLarge(filePath, -1, maxBytes)
	}
	return data, nil
}

func tooLarge(filePath string, size, maxBytes int64) error {
	if size < 0 {
		return fault.New(fault.Invalid, "telegram download %s: over the limit of %d bytes", filePath, maxBytes)
	}
	return fault.New(fault.Invalid, "telegram download %s: %d bytes, over the limit of %d", filePath, size, maxBytes)
}

// FetchAttachment returns the bytes of a Telegram attachment (its FileID,
// through GetFile and Download), at most maxBytes: the runner's
// turn.AttachmentSource for channel telegram. An attachment whose known
// size is over maxBytes is refused (fault.Invalid) before any request.
func (c *Client) FetchAttachment(ctx context.Context, a inbound.Attachment, maxBytes int64) ([]byte, error) {
	if a.Size > maxBytes {
		return nil, fault.New(fault.Invalid, "telegram attachment: %d bytes, over the limit of %d", a.Size, maxBytes)
	}
	f, err := c.GetFile(ctx, a.FileID)
	if err != nil {
		return nil, err
	}
	if f.Size > maxBytes {
		return nil, fault.New(fault.Invalid, "telegram attachment: %d bytes, over the limit of %d", f.Size, maxBytes)
	}
	return c.Download(ctx, f.Path, maxBytes)
}
