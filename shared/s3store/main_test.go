package s3store

import (
	"context"
	"os"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/zero-gateway/zero/shared/awsconfig"
	"github.com/zero-gateway/zero/shared/awstest"
	"github.com/zero-gateway/zero/shared/emulator"
)

var (
	testCfg    aws.Config
	testClient *s3.Client
	counter    *awsconfig.Counter
)

func TestMain(m *testing.M) {
	counter = awsconfig.NewCounter()
	os.Exit(emulator.RunTests(m, counter, func(_ context.Context, cfg aws.Config) (func(), error) {
		testCfg = cfg
		testClient = s3.NewFromConfig(cfg, func(o *s3.Options) { o.UsePathStyle = true })
		return nil, nil
	}))
}

// freshBucket creates an empty bucket for one test and empties and deletes
// it afterwards (the emulator may be a shared LocalStack).
func freshBucket(t testing.TB) string {
	t.Helper()
	ctx := context.Background()
	name := awstest.Name("zero-test-")
	if _, err := testClient.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: &name}); err != nil {
		t.Fatalf("create bucket %s: %v", name, err)
	}
	t.Cleanup(func() {
		emptyBucket(ctx, name)
		testClient.DeleteBucket(ctx, &s3.DeleteBucketInput{Bucket: &name})
	})
	return name
}

// freshVersionedBucket is freshBucket with versioning on, as the
// deployed TranscriptBucket has it (template.yaml).
func freshVersionedBucket(t testing.TB) string {
	t.Helper()
	name := freshBucket(t)
	_, err := testClient.PutBucketVersioning(context.Background(), &s3.PutBucketVersioningInput{
		Bucket: &name, VersioningConfiguration: &types.VersioningConfiguration{Status: types.BucketVersioningStatusEnabled},
	})
	if err != nil {
		t.Fatalf("turn on versioning of %s: %v", name, err)
	}
	return name
}

// emptyBucket deletes every version and delete marker in the bucket (on an
// unversioned bucket, every object), best effort.
func emptyBucket(ctx context.Context, name string) {
	pages := s3.NewListObjectVersionsPaginator(testClient, &s3.ListObjectVersionsInput{Bucket: &name})
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx)
		if err != nil {
			return
		}
		var ids []types.ObjectIdentifier
		for _, v := range page.Versions {
			ids = append(ids, types.ObjectIdentifier{Key: v.Key, VersionId: v.VersionId})
		}
		for _, d := range page.DeleteMarkers {
			ids = append(ids, types.ObjectIdentifier{Key: d.Key, VersionId: d.VersionId})
		}
		if len(ids) > 0 {
			testClient.DeleteObjects(ctx, &s3.DeleteObjectsInput{Bucket: &name, Delete: &types.Delete{Objects: ids}})
		}
	}
}
