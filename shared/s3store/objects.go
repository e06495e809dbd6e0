package s3store

import (
	"context"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/zero-gateway/zero/shared/workspace"
)

// The workspace's listing with ETags: a Loader then re-reads only changed
// files, and the memory index rebuilds only when a memory file changed.
var _ workspace.ObjectLister = (*Bucket)(nil)

// ListObjects returns every object under prefix with its ETag and size, in
// lexical (byte) order: one ListObjectsV2 call per 1,000 keys, like List.
func (b *Bucket) ListObjects(ctx context.Context, prefix string) ([]workspace.Object, error) {
	in := &s3.ListObjectsV2Input{Bucket: &b.bucket, Prefix: &prefix}
	if b.pageSize > 0 {
		in.MaxKeys = aws.Int32(b.pageSize)
	}
	var out []workspace.Object
	pages := s3.NewListObjectsV2Paginator(b.client, in)
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx)
		if err != nil {
			return nil, classify(err, "list objects under "+prefix)
		}
		for _, o := range page.Contents {
			if o.Key != nil {
				out = append(out, workspace.Object{Key: *o.Key, ETag: aws.ToString(o.ETag), Size: aws.ToInt64(o.Size)})
			}
		}
	}
	slices.SortFunc(out, func(x, y workspace.Object) int { return strings.Compare(x.Key, y.Key) })
	return out, nil
}
