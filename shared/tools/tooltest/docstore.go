package tooltest

import (
	"context"
	"strconv"
	"sync"

	"github.com/zero-gateway/zero/shared/fault"
)

// MemDoc is an in-memory config.DocumentStore with SSM's versions. Race,
// when set, is written by "another writer" just before the next
// PutIfVersion (once). Data is the document stored.
type MemDoc struct {
	mu      sync.Mutex
	Data    []byte
	version int // 0: none stored
	Race    []byte
}

func (d *MemDoc) Fetch(context.Context) ([]byte, string, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.version == 0 {
		return nil, "", fault.New(fault.NotFound, "no document")
	}
	return d.Data, strconv.Itoa(d.version), nil
}

func (d *MemDoc) Put(_ context.Context, data []byte) (string, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.Data, d.version = data, d.version+1
	return strconv.Itoa(d.version), nil
}

func (d *MemDoc) PutIfVersion(ctx context.Context, data []byte, version string) (string, error) {
	if d.Race != nil {
		race := d.Race
		d.Race = nil
		d.Put(ctx, race)
	}
	d.mu.Lock()
	current := ""
	if d.version > 0 {
		current = strconv.Itoa(d.version)
	}
	d.mu.Unlock()
	if current != version {
		return "", fault.New(fault.Conflict, "version %s, not %s", current, version)
	}
	return d.Put(ctx, data)
}
