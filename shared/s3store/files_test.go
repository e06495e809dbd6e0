package s3store

import (
	"testing"

	"github.com/zero-gateway/zero/shared/files"
	"github.com/zero-gateway/zero/shared/files/filestest"
)

// TestFilesStore runs the files.Store conformance suite on the emulator
// (moto), which honours If-None-Match: * and If-Match on PutObject and
// If-Match on DeleteObject as S3 does; a fresh bucket per case, plain and
// versioned (the deployed bucket is versioned: a delete there leaves a
// delete marker, an overwrite a noncurrent version, and the conditions
// see only the current version).
func TestFilesStore(t *testing.T) {
	for _, tt := range []struct {
		name   string
		bucket func(testing.TB) string
	}{
		{"unversioned", freshBucket},
		{"versioned", freshVersionedBucket},
	} {
		t.Run(tt.name, func(t *testing.T) {
			filestest.TestStore(t, func(t *testing.T) files.Store { return New(testClient, tt.bucket(t)) })
		})
	}
}
