package dynamo

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/zero-gateway/zero/shared/cron"
	"github.com/zero-gateway/zero/shared/fault"
)

// Cron items. Jobs live in one partition, so cron.list is one Query (the
// table is never scanned): pk "cron", sk "job#<jobId>". A job's run
// records live in the job's own partition: pk "cron#<jobId>", sk
// "run#<ts, 16 digits>#<runId>" (cron.RunKey), newest last, expiring
// after RunTTL. Each item holds its value as one JSON string attribute
// "data" (the upstream shape, byte for byte), so no cron attribute is
// named like the keys of the session indexes (agentId, updatedAt,
// sessionId) and cron items stay out of them.
const (
	pkCronJobs = "cron"
	skCronJob  = "job#"
	pkCronRuns = "cron#"
	skCronRun  = "run#"
)

// CronRunTTL is how long a cron run record is kept.
const CronRunTTL = 90 * 24 * time.Hour

// CronStore is the cron.Store on the table (Store.Cron).
type CronStore struct{ s *Store }

var _ cron.Store = (*CronStore)(nil)

// Cron is the cron job store on the same table.
func (s *Store) Cron() *CronStore { return &CronStore{s: s} }

func cronJobKey(id string) map[string]types.AttributeValue { return key(pkCronJobs, skCronJob+id) }

// Put writes the job with one conditional PutItem: Create fails with
// fault.Conflict when the id exists, Replace with fault.NotFound when it
// does not.
func (cs *CronStore) Put(ctx context.Context, j cron.Job, mode cron.PutMode) error {
	if strings.TrimSpace(j.ID) == "" {
		return fault.New(fault.Invalid, "cron store: a job needs an id")
	}
	data, err := json.Marshal(j)
	if err != nil {
		return fault.Wrap(fault.Internal, err, "encode cron job %s", j.ID)
	}
	item := cronJobKey(j.ID)
	item[attrData] = &types.AttributeValueMemberS{Value: string(data)}
	in := &dynamodb.PutItemInput{TableName: &cs.s.table, Item: item, ExpressionAttributeNames: map[string]string{"#pk": attrPK}}
	failed := fault.New(fault.Conflict, "cron job %q already exists", j.ID)
	switch mode {
	case cron.Create:
		in.ConditionExpression = aws.String("attribute_not_exists(#pk)")
	case cron.Replace:
		in.ConditionExpression = aws.String("attribute_exists(#pk)")
		failed = fault.New(fault.NotFound, "no cron job %q", j.ID)
	default:
		return fault.New(fault.Internal, "cron store: unknown put mode %d", mode)
	}
	if _, err := cs.s.client.PutItem(ctx, in); err != nil {
		if isConditionFailed(err) {
			return failed
		}
		return classify(err, "put cron job "+j.ID)
	}
	return nil
}

// Get reads one job (a strongly consistent GetItem).
func (cs *CronStore) Get(ctx context.Context, id string) (cron.Job, error) {
	out, err := cs.s.client.GetItem(ctx, &dynamodb.GetItemInput{TableName: &cs.s.table, Key: cronJobKey(id), ConsistentRead: aws.Bool(true)})
	if err != nil {
		return cron.Job{}, classify(err, "get cron job "+id)
	}
	if len(out.Item) == 0 {
		return cron.Job{}, fault.New(fault.NotFound, "no cron job %q", id)
	}
	var j cron.Job
	return j, decodeData(out.Item, &j, "cron job "+id)
}

// List returns every job by id: a strongly consistent Query of the jobs'
// partition, paged.
func (cs *CronStore) List(ctx context.Context) ([]cron.Job, error) {
	var jobs []cron.Job
	err := cs.query(ctx, pkCronJobs, skCronJob, true, 0, "list cron jobs", func(item map[string]types.AttributeValue) (bool, error) {
		var j cron.Job
		if err := decodeData(item, &j, "cron job "+sortKey(item)); err != nil {
			return true, err
		}
		jobs = append(jobs, j)
		return false, nil
	})
	return jobs, err
}

// Delete removes the job with a conditional DeleteItem (a missing job is
// fault.NotFound); its run records stay until they expire.
func (cs *CronStore) Delete(ctx context.Context, id string) error {
	_, err := cs.s.client.DeleteItem(ctx, &dynamodb.DeleteItemInput{
		TableName: &cs.s.table, Key: cronJobKey(id),
		ConditionExpression:      aws.String("attribute_exists(#pk)"),
		ExpressionAttributeNames: map[string]string{"#pk": attrPK},
	})
	if err != nil {
		if isConditionFailed(err) {
			return fault.New(fault.NotFound, "no cron job %q", id)
		}
		return classify(err, "delete cron job "+id)
	}
	return nil
}

// AppendRun writes the record with one PutItem keyed by (jobId, ts,
// runId): a repeat overwrites it with itself.
func (cs *CronStore) AppendRun(ctx context.Context, r cron.RunRecord) error {
	if strings.TrimSpace(r.JobID) == "" {
		return fault.New(fault.Invalid, "cron store: a run record needs a jobId")
	}
	data, err := json.Marshal(r)
	if err != nil {
		return fault.Wrap(fault.Internal, err, "encode cron run of %s", r.JobID)
	}
	item := key(pkCronRuns+r.JobID, cron.RunKey(r))
	item[attrData] = &types.AttributeValueMemberS{Value: string(data)}
	item[attrTTL] = number(cs.s.now().Add(CronRunTTL).Unix())
	if _, err := cs.s.client.PutItem(ctx, &dynamodb.PutItemInput{TableName: &cs.s.table, Item: item}); err != nil {
		return classify(err, "append cron run of "+r.JobID)
	}
	return nil
}

// ListRuns queries the job's run records newest first (strongly
// consistent), leaving out expired ones that TTL has not deleted yet.
func (cs *CronStore) ListRuns(ctx context.Context, jobID string, limit int) ([]cron.RunRecord, error) {
	now := cs.s.now()
	var runs []cron.RunRecord
	err := cs.query(ctx, pkCronRuns+jobID, skCronRun, false, limit, "list cron runs of "+jobID, func(item map[string]types.AttributeValue) (bool, error) {
		if expired(item, now) {
			return false, nil
		}
		var r cron.RunRecord
		if err := decodeData(item, &r, "cron run "+sortKey(item)); err != nil {
			return true, err
		}
		runs = append(runs, r)
		return limit > 0 && len(runs) == limit, nil
	})
	return runs, err
}

// query calls fn on the items of partition pk whose sort key starts with
// prefix, in order (or reversed), until fn says done. limit (> 0) sizes
// the pages.
func (cs *CronStore) query(ctx context.Context, pk, prefix string, forward bool, limit int, what string, fn func(map[string]types.AttributeValue) (done bool, err error)) error {
	in := &dynamodb.QueryInput{
		TableName:                &cs.s.table,
		KeyConditionExpression:   aws.String("#pk = :pk AND begins_with(#sk, :prefix)"),
		ExpressionAttributeNames: map[string]string{"#pk": attrPK, "#sk": attrSK},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":pk":     &types.AttributeValueMemberS{Value: pk},
			":prefix": &types.AttributeValueMemberS{Value: prefix},
		},
		ScanIndexForward: aws.Bool(forward),
		ConsistentRead:   aws.Bool(true),
	}
	if limit > 0 {
		// A few more than wanted, for expired items left out.
		in.Limit = aws.Int32(int32(min(limit+listMargin, 1000)))
	}
	for {
		out, err := cs.s.client.Query(ctx, in)
		if err != nil {
			return classify(err, what)
		}
		for _, item := range out.Items {
			if done, err := fn(item); done || err != nil {
				return err
			}
		}
		if len(out.LastEvaluatedKey) == 0 {
			return nil
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
}

// decodeData decodes an item's JSON data attribute into v.
func decodeData(item map[string]types.AttributeValue, v any, what string) error {
	s, ok := item[attrData].(*types.AttributeValueMemberS)
	if !ok {
		return fault.New(fault.Internal, "%s: no data attribute", what)
	}
	if err := json.Unmarshal([]byte(s.Value), v); err != nil {
		return fault.Wrap(fault.Internal, err, "%s: undecodable data (%d bytes)", what, len(s.Value))
	}
	return nil
}
