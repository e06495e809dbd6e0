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
		pages := s3.NewListObjectsV2Paginator(testClient, &s3.ListObjectsV2Input{Bucket: &name})
		for pages.HasMorePages() {
			page, err := pages.NextPage(ctx)
			if err != nil {
				break
			}
			var ids []types.ObjectIdentifier
			for _, o := range page.Contents {
				ids = append(ids, types.ObjectIdentifier{Key: o.Key})
			}
			if len(ids) > 0 {
				testClient.DeleteObjects(ctx, &s3.DeleteObjectsInput{Bucket: &name, Delete: &types.Delete{Objects: ids}})
			}
		}
		testClient.DeleteBucket(ctx, &s3.DeleteBucketInput{Bucket: &name})
	})
	return name
}
