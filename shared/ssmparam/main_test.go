package ssmparam

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ssm"

	"github.com/zero-gateway/zero/shared/awsconfig"
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
	b := make([]byte, 6)
	rand.Read(b)
	name := "/zero/test-" + hex.EncodeToString(b) + "/config"
	t.Cleanup(func() {
		testClient.DeleteParameter(context.Background(), &ssm.DeleteParameterInput{Name: &name})
	})
	return name
}
