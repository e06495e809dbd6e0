package ssmparam

import (
	"context"
	"os"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ssm"

	"github.com/zero-gateway/zero/shared/awsconfig"
	"github.com/zero-gateway/zero/shared/awstest"
	"github.com/zero-gateway/zero/shared/emulator"
)

var (
	testClient *ssm.Client
	counter    *awsconfig.Counter // counts every call made with testClient
)

func TestMain(m *testing.M) {
	counter = awsconfig.NewCounter()
	os.Exit(emulator.RunTests(m, counter, func(_ context.Context, cfg aws.Config) (func(), error) {
		testClient = ssm.NewFromConfig(cfg)
		return nil, nil
	}))
}

// freshName is a parameter name no other test uses, shaped like the
// template's "/zero/<stack>/config"; the parameter is deleted after the test.
func freshName(t *testing.T) string {
	t.Helper()
	name := "/zero/" + awstest.Name("test-") + "/config"
	t.Cleanup(func() {
		testClient.DeleteParameter(context.Background(), &ssm.DeleteParameterInput{Name: &name})
	})
	return name
}
