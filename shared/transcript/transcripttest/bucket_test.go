package transcripttest

import (
	"testing"

	"github.com/zero-gateway/zero/shared/transcript"
)

func TestMemBucket(t *testing.T) {
	TestBucket(t, func(*testing.T) transcript.Bucket { return NewMemBucket() })
}
