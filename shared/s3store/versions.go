package s3store

import (
	"context"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/zero-gateway/zero/shared/fault"
)

// Version is one version of an object in a versioned bucket: content
// written at Modified, or a delete marker (the object deleted then).
type Version struct {
	ID           string    `json:"versionId"`      // S3's version id; "null" for one written before versioning was on
	Modified     time.Time `json:"lastModified"`   // when it was written (S3 keeps whole seconds)
	Size         int64     `json:"size"`           // bytes; 0 for a delete marker
	ETag         string    `json:"etag,omitempty"` // "" for a delete marker
	Latest       bool      `json:"latest"`         // the key's current version
	DeleteMarker bool      `json:"deleteMarker"`
}

// Versions returns key's versions and delete markers, newest first: the
// current one, then by time. S3 lists the two kinds apart and times them
// to the second, so within one second a delete marker is put before the
// versions (a file deleted and written again at once lists right); the
// versions among themselves keep S3's order. Keys that only start with
// key are left out; a key never written has none. It needs
// s3:ListBucketVersions.
func (b *Bucket) Versions(ctx context.Context, key string) ([]Version, error) {
	in := &s3.ListObjectVersionsInput{Bucket: &b.bucket, Prefix: &key}
	if b.pageSize > 0 {
		in.MaxKeys = aws.Int32(b.pageSize)
	}
	var kept, markers []Version
	pages := s3.NewListObjectVersionsPaginator(b.client, in)
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx)
		if err != nil {
			return nil, classify(err, "list versions of "+key)
		}
		v, vDone := objectVersions(key, page.Versions)
		m, mDone := deleteMarkers(key, page.DeleteMarkers)
		kept, markers = append(kept, v...), append(markers, m...)
		if vDone || mDone {
			break // listed in key order: past key, only longer keys follow
		}
	}
	all := append(kept, markers...)
	slices.SortStableFunc(all, newestFirst)
	return all, nil
}

// objectVersions converts the listed versions of key; done reports that
// the page reached a later key.
func objectVersions(key string, list []types.ObjectVersion) (out []Version, done bool) {
	for _, o := range list {
		if aws.ToString(o.Key) != key {
			return out, true
		}
		out = append(out, Version{
			ID: aws.ToString(o.VersionId), Modified: aws.ToTime(o.LastModified), Size: aws.ToInt64(o.Size),
			ETag: aws.ToString(o.ETag), Latest: aws.ToBool(o.IsLatest),
		})
	}
	return out, false
}

// deleteMarkers converts the listed delete markers of key; done reports
// that the page reached a later key.
func deleteMarkers(key string, list []types.DeleteMarkerEntry) (out []Version, done bool) {
	for _, d := range list {
		if aws.ToString(d.Key) != key {
			return out, true
		}
		out = append(out, Version{
			ID: aws.ToString(d.VersionId), Modified: aws.ToTime(d.LastModified),
			Latest: aws.ToBool(d.IsLatest), DeleteMarker: true,
		})
	}
	return out, false
}

// newestFirst orders the current version first, then by time, newest
// first, then delete markers before versions; otherwise equal ones keep
// their listed order.
func newestFirst(a, b Version) int {
	switch {
	case a.Latest != b.Latest:
		return first(a.Latest)
	case !a.Modified.Equal(b.Modified):
		return b.Modified.Compare(a.Modified)
	case a.DeleteMarker != b.DeleteMarker:
		return first(a.DeleteMarker)
	}
	return 0
}

// first is a comparison's answer: -1 when a goes first, 1 otherwise.
func first(a bool) int {
	if a {
		return -1
	}
	return 1
}

// Restore makes version versionID of key its current content again by
// copying that version over key (one CopyObject; every version stays, and
// the copy is a new one, whose id it returns). The copy is conditional on
// key's current version, like the file tools' writes: If-Match: ifMatch,
// or If-None-Match: * when ifMatch is "" (key deleted, its current version
// a delete marker). A failed condition is fault.Conflict, a version key
// does not have fault.NotFound. It needs s3:GetObjectVersion and
// s3:PutObject.
func (b *Bucket) Restore(ctx context.Context, key, versionID, ifMatch string) (string, error) {
	in := &s3.CopyObjectInput{Bucket: &b.bucket, Key: &key, CopySource: aws.String(copySource(b.bucket, key, versionID))}
	if ifMatch == "" {
		in.IfNoneMatch = aws.String("*")
	} else {
		in.IfMatch = aws.String(ifMatch)
	}
	out, err := b.client.CopyObject(ctx, in)
	switch {
	case err == nil:
		return aws.ToString(out.VersionId), nil
	case preconditionFailed(err) || status(err) == 409:
		return "", fault.Wrap(fault.Conflict, err, "object %s changed before its restore", key)
	case status(err) == 404 && apiCode(err) != "NoSuchBucket":
		return "", fault.Wrap(fault.NotFound, err, "object %s has no version %s", key, versionID)
	}
	return "", classify(err, "restore object "+key+" version "+versionID)
}

// copySource is CopyObject's x-amz-copy-source for one version of key:
// bucket/key?versionId=id, the key's segments URL-encoded ("+" too, which
// S3 would read as a space, as the AWS CLI does).
func copySource(bucket, key, versionID string) string {
	segs := strings.Split(key, "/")
	for i, s := range segs {
		segs[i] = strings.ReplaceAll(url.QueryEscape(s), "+", "%20")
	}
	return bucket + "/" + strings.Join(segs, "/") + "?versionId=" + url.QueryEscape(versionID)
}
