package s3store

import (
	"testing"

	"github.com/zero-gateway/zero/shared/files"
	"github.com/zero-gateway/zero/shared/files/filestest"
)

// TestFilesStore runs the files.Store conformance suite on the emulator
// (moto), which honours If-None-Match: * and If-Match on PutObject and
// If-Match on DeleteObject as S3 does; a fresh bucket per case.
func TestFilesStore(t *testing.T) {
	filestest.TestStore(t, func(t *testing.T) files.Store { return New(testClient, freshBucket(t)) })
}
