// Package files is the agent's workspace as files it may read and change:
// the core of the read, write, edit and apply_patch tools. It knows the
// path rules (Clean), the limits, and the conditional-write protocol that
// keeps two runs from clobbering each other; storage comes in through
// Store, which shared/s3store's Bucket implements with S3 PutObject
// If-Match / If-None-Match.
//
// A Session is one run's view: it remembers the ETag of every file the run
// read or wrote, so a later write replaces exactly that version. A file
// changed by someone else since (another run, the operator) makes the
// write a fault.Conflict ("changed since you read it; read it again"), and
// a file the run never read can only be created, never overwritten.
package files

import (
	"context"
	"fmt"

	"github.com/zero-gateway/zero/shared/fault"
)

// Limits.
const (
	MaxFileBytes     = 1 << 20 // one file, read or written
	MaxPatchBytes    = 1 << 20 // one apply_patch input
	MaxPatchFiles    = 50      // files one patch may touch
	DefaultReadLines = 2000    // lines a read returns when it sets no limit
	MaxReadBytes     = 12 << 10
)

// Object is a stored file with the ETag that identifies its content.
type Object struct {
	Data []byte
	ETag string
}

// Store is the object storage a workspace lives on. Every write is
// conditional: there is no blind overwrite.
type Store interface {
	// Fetch returns the object at key with its ETag, or fault.NotFound.
	Fetch(ctx context.Context, key string) (Object, error)
	// Put stores data at key and returns the new ETag. With ifMatch ""
	// the key must not exist (If-None-Match: *); otherwise the object's
	// ETag must still be ifMatch (If-Match). A failed condition is
	// fault.Conflict and changes nothing.
	Put(ctx context.Context, key string, data []byte, ifMatch string) (string, error)
	// Delete removes the object at key if its ETag is still ifMatch; an
	// object changed meanwhile is fault.Conflict, a missing one
	// fault.NotFound.
	Delete(ctx context.Context, key, ifMatch string) error
}

// changed is the conflict a run gets when a file moved on under it.
func changed(path string, err error) error {
	if err == nil {
		return fault.New(fault.Conflict, "%s changed since you read it; read it again", path)
	}
	return fault.Wrap(fault.Conflict, err, "%s changed since you read it; read it again", path)
}

// tooLarge is the error of content over MaxFileBytes.
func tooLarge(path string, n int) error {
	return fault.New(fault.Invalid, "%s would be %d bytes; a workspace file is at most %d bytes (1 MiB)", path, n, MaxFileBytes)
}

// notFound is the error of a missing file.
func notFound(path string, err error) error {
	return fault.Wrap(fault.NotFound, err, "%s does not exist", path)
}

// describe wraps a storage error that is not a condition the model can act on.
func describe(err error, format string, args ...any) error {
	return fmt.Errorf(format+": %w", append(args, err)...)
}
