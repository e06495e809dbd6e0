package contextstore_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/contextstore"
	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/transcript/transcripttest"
)

// countingObjects counts the calls a Store makes.
type countingObjects struct {
	*transcripttest.MemBucket
	creates, gets int
}

func (c *countingObjects) Create(ctx context.Context, key string, data []byte) error {
	c.creates++
	return c.MemBucket.Create(ctx, key, data)
}

func (c *countingObjects) Get(ctx context.Context, key string) ([]byte, error) {
	c.gets++
	return c.MemBucket.Get(ctx, key)
}

func newObjects() *countingObjects {
	return &countingObjects{MemBucket: transcripttest.NewMemBucket()}
}

// turns returns n messages of about size bytes each.
func turns(from, n, size int) []model.Message {
	var out []model.Message
	for i := from; i < from+n; i++ {
		role := model.User
		if i%2 == 1 {
			role = model.Assistant
		}
		out = append(out, model.Message{Role: role, Content: fmt.Sprintf("%04d ", i) + strings.Repeat("x", size), EntryID: fmt.Sprintf("e%04d", i)})
	}
	return out
}

func TestFold(t *testing.T) {
	ctx := context.Background()
	const inline = 1000
	tests := []struct {
		name       string
		prev       func(s *contextstore.Store) contextstore.Split // the split the turn loaded
		msgs       []model.Message                                // the context after the turn
		wantBase   bool                                           // a base is named
		wantNewObj bool                                           // a new base object is written
		wantTail   int                                            // inline messages
	}{
		{"short context stays inline", nil, turns(0, 3, 100), false, false, 3},
		{"long context without base gets one", nil, turns(0, 30, 100), true, true, 0},
		{"messages after the base fit inline: base kept", func(s *contextstore.Store) contextstore.Split {
			sp, _ := s.Fold(ctx, "main/s", contextstore.Split{}, turns(0, 30, 100))
			return sp
		}, turns(0, 33, 100), true, false, 3},
		{"messages after the base outgrow the tail: new base", func(s *contextstore.Store) contextstore.Split {
			sp, _ := s.Fold(ctx, "main/s", contextstore.Split{}, turns(0, 30, 100))
			return sp
		}, turns(0, 45, 100), true, true, 0},
		{"a single message larger than the tail goes to a base", nil, turns(0, 1, 5000), true, true, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs := newObjects()
			s := contextstore.New(objs).WithInline(inline)
			var prev contextstore.Split
			if tt.prev != nil {
				prev = tt.prev(s)
			}
			before := objs.creates
			got, err := s.Fold(ctx, "main/s", prev, tt.msgs)
			if err != nil {
				t.Fatalf("Fold: %v", err)
			}
			if (got.Base != "") != tt.wantBase || (objs.creates > before) != tt.wantNewObj || len(got.Tail) != tt.wantTail {
				t.Errorf("Fold = base %q (%d), tail %d, new object %v; want base %v, new object %v, tail %d",
					got.Base, got.BaseLen, len(got.Tail), objs.creates > before, tt.wantBase, tt.wantNewObj, tt.wantTail)
			}
			if got.Len() != len(tt.msgs) {
				t.Errorf("split holds %d messages; want %d", got.Len(), len(tt.msgs))
			}
			if got.Base != "" && !strings.HasPrefix(got.Base, contextstore.Prefix+"main/s/") {
				t.Errorf("base %q is not under %smain/s/", got.Base, contextstore.Prefix)
			}
			back, err := s.Expand(ctx, got)
			if err != nil {
				t.Fatalf("Expand: %v", err)
			}
			if diff := cmp.Diff(tt.msgs, back); diff != "" {
				t.Errorf("Expand(Fold(msgs)) (-want +got):\n%s", diff)
			}
		})
	}
}

// TestFoldIsIdempotent: a retried turn folds the same context into the
// same object name, and the existing object (a killed attempt's) is
// reused, not an error.
func TestFoldIsIdempotent(t *testing.T) {
	ctx := context.Background()
	objs := newObjects()
	s := contextstore.New(objs).WithInline(100)
	msgs := turns(0, 10, 100)
	first, err := s.Fold(ctx, "main/s", contextstore.Split{}, msgs)
	if err != nil {
		t.Fatal(err)
	}
	again, err := s.Fold(ctx, "main/s", contextstore.Split{}, msgs)
	if err != nil {
		t.Fatalf("second Fold of the same context: %v", err)
	}
	if diff := cmp.Diff(first, again); diff != "" {
		t.Errorf("splits differ (-first +again):\n%s", diff)
	}
	keys, _ := objs.List(ctx, contextstore.Prefix)
	if len(keys) != 1 {
		t.Errorf("objects %v; want one", keys)
	}
}

func TestExpand(t *testing.T) {
	ctx := context.Background()
	objs := newObjects()
	s := contextstore.New(objs).WithInline(100)
	sp, err := s.Fold(ctx, "main/s", contextstore.Split{}, turns(0, 4, 100))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		split     contextstore.Split
		wantGets  int
		wantFault fault.Code
	}{
		{"inline only: no call", contextstore.Split{Tail: turns(0, 2, 10)}, 0, ""},
		{"with a base: one read", sp, 1, ""},
		{"missing base is NotFound", contextstore.Split{Base: contextstore.Prefix + "main/s/gone.json", BaseLen: 4}, 1, fault.NotFound},
		{"base of another length is Internal", contextstore.Split{Base: sp.Base, BaseLen: 5}, 1, fault.Internal},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs.gets = 0
			_, err := s.Expand(ctx, tt.split)
			if objs.gets != tt.wantGets {
				t.Errorf("Expand made %d reads; want %d", objs.gets, tt.wantGets)
			}
			switch {
			case tt.wantFault == "" && err != nil:
				t.Errorf("Expand: %v", err)
			case tt.wantFault != "" && !fault.Is(err, tt.wantFault):
				t.Errorf("Expand = %v; want fault.%s", err, tt.wantFault)
			}
		})
	}
}

// TestLongSessionWritesStayBounded: over a 200-turn conversation the
// inline tail never passes the budget and a base is written only when the
// tail overflows, so the store item stays small however long the context.
func TestLongSessionWritesStayBounded(t *testing.T) {
	ctx := context.Background()
	objs := newObjects()
	s := contextstore.New(objs)
	var msgs []model.Message
	var sp contextstore.Split
	for turn := range 200 {
		msgs = append(msgs, turns(turn*2, 2, 4000)...)
		next, err := s.Fold(ctx, "main/s", sp, msgs)
		if err != nil {
			t.Fatalf("turn %d: %v", turn, err)
		}
		if size := contextstore.EncodedSize(next.Tail); size > contextstore.InlineBytes {
			t.Fatalf("turn %d: inline tail %d bytes, above %d", turn, size, contextstore.InlineBytes)
		}
		sp = next
	}
	if got, err := s.Expand(ctx, sp); err != nil || len(got) != 400 {
		t.Fatalf("Expand = %d messages, %v; want all 400", len(got), err)
	}
	// 8.1 KB a turn into a 16 KiB tail: two turns fit after a base, the
	// third writes a new one.
	if objs.creates < 60 || objs.creates > 70 {
		t.Errorf("%d base writes over 200 turns; want about 67 (one every third turn)", objs.creates)
	}
}
