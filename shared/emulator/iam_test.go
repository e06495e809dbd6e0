package emulator

import (
	"context"
	"errors"
	"net/http"
	"os"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// TestIAMEnforced: the moto Start launches signs everything with its admin
// key (the tests of every package run so, see RunTests); a key it does not
// know is refused; a user PutUser makes may call only its policy's
// actions, and PutUser again replaces its key.
func TestIAMEnforced(t *testing.T) {
	ctx := context.Background()
	if os.Getenv(EndpointEnv) != "" {
		// A borrowed endpoint is used as it is; its admin comes from the
		// environment or there is none (LocalStack does not enforce IAM).
		srv, err := Start(ctx, "")
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := AdminFromEnv(); ok != (srv.Admin != nil) {
			t.Errorf("borrowed endpoint: Admin = %v, want one exactly when %s is set", srv.Admin != nil, AdminKeyIDEnv)
		}
		return
	}
	srv, err := Start(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop()
	if srv.Admin == nil {
		t.Fatal("a launched moto has no admin key")
	}
	client := func(id, secret string) aws.Config {
		return aws.Config{Region: "us-east-1", BaseEndpoint: aws.String(srv.URL), RetryMaxAttempts: 1,
			Credentials: credentials.NewStaticCredentialsProvider(id, secret, "")}
	}
	admin := client(srv.Admin.AccessKeyID, srv.Admin.SecretAccessKey)
	if _, err := sqs.NewFromConfig(admin).ListQueues(ctx, &sqs.ListQueuesInput{}); err != nil {
		t.Fatalf("the admin key is refused: %v", err)
	}
	_, err = sts.NewFromConfig(client("test", "test")).GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
	wantStatus(t, "an unknown key", err, http.StatusForbidden)

	users := &IAM{Endpoint: srv.URL, Credentials: *srv.Admin}
	policy := []byte(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"sqs:ListQueues","Resource":"*"}]}`)
	first, err := users.PutUser(ctx, "zt-user", "p", policy)
	if err != nil {
		t.Fatal(err)
	}
	key, err := users.PutUser(ctx, "zt-user", "p", policy)
	if err != nil {
		t.Fatalf("PutUser again: %v", err)
	}
	user := client(key.AccessKeyID, key.SecretAccessKey)
	if _, err := sqs.NewFromConfig(user).ListQueues(ctx, &sqs.ListQueuesInput{}); err != nil {
		t.Errorf("the user's allowed action is refused: %v", err)
	}
	_, err = sqs.NewFromConfig(user).CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("zt-refused")})
	wantStatus(t, "an action outside the user's policy", err, http.StatusForbidden)
	_, err = sqs.NewFromConfig(client(first.AccessKeyID, first.SecretAccessKey)).ListQueues(ctx, &sqs.ListQueuesInput{})
	wantStatus(t, "the user's replaced key", err, http.StatusForbidden)
}

func wantStatus(t *testing.T, what string, err error, status int) {
	t.Helper()
	var re *smithyhttp.ResponseError
	if !errors.As(err, &re) || re.HTTPStatusCode() != status {
		t.Errorf("%s: error = %v, want HTTP %d", what, err, status)
	}
}
