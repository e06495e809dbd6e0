package workspace

import "context"

// Store is the object storage the workspace lives on. shared/s3store's
// Bucket and every transcript.Bucket satisfy it.
type Store interface {
	// List returns every key with the prefix, in lexical order; an empty
	// prefix lists as no keys.
	List(ctx context.Context, prefix string) ([]string, error)
	// Get returns the whole object, or a fault.NotFound error.
	Get(ctx context.Context, key string) ([]byte, error)
}

// Object is a listed object with what identifies its content.
type Object struct {
	Key  string
	ETag string // changes whenever the content does; "" when unknown
	Size int64
}

// ObjectLister is optionally implemented by a Store whose listing carries
// ETags and sizes (S3's ListObjectsV2 does, at no extra cost). With it, a
// Loader's refresh gets only the objects that are new or whose ETag or size
// changed; without it, a refresh gets every workspace object again.
type ObjectLister interface {
	// ListObjects is List with each key's ETag and size.
	ListObjects(ctx context.Context, prefix string) ([]Object, error)
}
