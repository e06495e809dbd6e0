package dynamo

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/zero-gateway/zero/shared/awstest"
	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/receipt"
	"github.com/zero-gateway/zero/shared/session"
	"github.com/zero-gateway/zero/shared/sessionstate"
)

// TestArchivedSubagentSession: an entry with ArchiveAt is stored with
// ttl = ArchiveAt in epoch seconds (rounded up), on its context too, and
// until the ttl passes it reads as usual; once past, every reader treats
// it as absent (DynamoDB deletes lazily): Load, Get, Lookup, List, Update.
// A new first commit under the key then succeeds over the archived item.
func TestArchivedSubagentSession(t *testing.T) {
	ctx := context.Background()
	clock := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	s := New(testClient, freshTable(t))
	s.now = func() time.Time { return clock }
	agent := awstest.Name("arch-")
	key, sid := session.SubagentKey(agent, awstest.Name("u-")), awstest.Name("sid-")
	archiveAt := clock.Add(time.Hour).UnixMilli() + 1
	seedEntry(t, s, key, session.Entry{SessionID: sid, AgentID: agent, UpdatedAt: clock.UnixMilli(), Version: 1, ArchiveAt: archiveAt})

	want := strconv.FormatInt(clock.Add(time.Hour).Unix()+1, 10)
	for _, k := range []map[string]types.AttributeValue{entryKey(key), contextKey(key)} {
		out, err := testClient.GetItem(ctx, &dynamodb.GetItemInput{TableName: &s.table, Key: k})
		if err != nil {
			t.Fatal(err)
		}
		got, _ := out.Item[attrTTL].(*types.AttributeValueMemberN)
		if got == nil || got.Value != want {
			t.Errorf("%s ttl = %v; want %s", sortKey(k), out.Item[attrTTL], want)
		}
	}
	if e, err := s.Get(ctx, key); err != nil || e.ArchiveAt != archiveAt {
		t.Fatalf("Get before the archive = %+v, %v; want the entry with its ArchiveAt", e, err)
	}
	eventually(t, func() error { _, _, err := s.Lookup(ctx, sid); return err })
	eventually(t, func() error { return listed(ctx, s, agent, 1) })

	clock = clock.Add(2 * time.Hour)
	tests := []struct {
		name string
		call func() error
	}{
		{"Get", func() error { _, err := s.Get(ctx, key); return err }},
		{"Lookup", func() error { _, _, err := s.Lookup(ctx, sid); return err }},
		{"Update", func() error {
			_, err := s.Update(ctx, key, func(*session.Entry) error { return nil })
			return err
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.call(); !fault.Is(err, fault.NotFound) {
				t.Errorf("%s of an archived session = %v; want fault.NotFound", tc.name, err)
			}
		})
	}
	t.Run("List", func(t *testing.T) {
		if err := listed(ctx, s, agent, 0); err != nil {
			t.Error(err)
		}
	})
	t.Run("Load, then a new first commit", func(t *testing.T) {
		snap, err := s.Load(ctx, key, "m-new")
		if err != nil || snap.Entry != nil || snap.Context != nil {
			t.Fatalf("Load = %+v, %v; want no entry and no context", snap, err)
		}
		e := session.Entry{SessionID: "sid-new", AgentID: agent, UpdatedAt: clock.UnixMilli(), Version: 1}
		c := sessionstate.ModelContext{SessionID: "sid-new", Messages: []model.Message{{Role: model.User, Content: "again"}}}
		if err := s.Commit(ctx, key, e, c, receipt.Receipt{MessageID: "m-new", SessionKey: key}); err != nil {
			t.Fatalf("Commit over the archived entry: %v", err)
		}
		if got, err := s.Get(ctx, key); err != nil || got.SessionID != "sid-new" || got.ArchiveAt != 0 {
			t.Errorf("Get = %+v, %v; want the new session, without ttl", got, err)
		}
	})
}

// TestEntryWithoutArchiveHasNoTTL: ordinary entries never expire.
func TestEntryWithoutArchiveHasNoTTL(t *testing.T) {
	item, err := encodeEntry("agent:main:main", session.Entry{SessionID: "s", Version: 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := item[attrTTL]; ok {
		t.Errorf("entry item has ttl %v; want none", item[attrTTL])
	}
}

func listed(ctx context.Context, s *Store, agent string, want int) error {
	rows, err := s.List(ctx, session.ListQuery{AgentID: agent})
	if err == nil && len(rows) != want {
		err = fmt.Errorf("List = %d rows; want %d", len(rows), want)
	}
	return err
}
