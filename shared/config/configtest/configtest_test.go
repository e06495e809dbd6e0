package configtest

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/fault"
)

func TestMemDocument(t *testing.T) {
	TestDocumentStore(t, func(*testing.T) Doc {
		m := NewMemDocument(nil)
		return Doc{Store: m, Other: m, BeforeWrite: m.BeforeNextWrite}
	})
}

func TestNewMemDocumentHolds(t *testing.T) {
	ctx := context.Background()
	data, v, err := NewMemDocument([]byte(old)).Fetch(ctx)
	if diff := cmp.Diff([]string{old, "1"}, []string{string(data), v}); err != nil || diff != "" {
		t.Errorf("Fetch = %v; [data version] (-want +got):\n%s", err, diff)
	}
	if _, _, err := NewMemDocument(nil).Fetch(ctx); !fault.Is(err, fault.NotFound) {
		t.Errorf("Fetch of an empty store = %v; want fault.NotFound", err)
	}
}
