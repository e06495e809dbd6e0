package emulator

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
)

// IAM is a minimal client of the IAM Query API (2010-05-08), enough to give
// a local emulator users with inline policies and access keys. It speaks
// the standard API, signed with SigV4, so it works on moto and LocalStack;
// it exists so that no IAM SDK module is needed for three calls.
type IAM struct {
	// Endpoint is the emulator's URL.
	Endpoint string
	// Region signs the requests (IAM is global; emulators accept any).
	Region string
	// Credentials sign the requests: the emulator's admin key.
	Credentials aws.Credentials
	// HTTP defaults to a client with a 30 s timeout.
	HTTP *http.Client
}

// PutUser makes user exist with exactly one inline policy named
// policyName holding policy (a JSON policy document) and exactly one
// access key, which it returns: an existing user is reused, its policy
// replaced and its old keys deleted, so calling it again is safe. The
// secret is returned only to the caller: never log it.
func (c *IAM) PutUser(ctx context.Context, user, policyName string, policy []byte) (aws.Credentials, error) {
	if err := c.call(ctx, "CreateUser", url.Values{"UserName": {user}}, nil); err != nil && !isCode(err, "EntityAlreadyExists") {
		return aws.Credentials{}, err
	}
	if err := c.call(ctx, "PutUserPolicy", url.Values{"UserName": {user}, "PolicyName": {policyName}, "PolicyDocument": {string(policy)}}, nil); err != nil {
		return aws.Credentials{}, err
	}
	var keys struct {
		IDs []string `xml:"ListAccessKeysResult>AccessKeyMetadata>member>AccessKeyId"`
	}
	if err := c.call(ctx, "ListAccessKeys", url.Values{"UserName": {user}}, &keys); err != nil {
		return aws.Credentials{}, err
	}
	for _, id := range keys.IDs {
		if err := c.call(ctx, "DeleteAccessKey", url.Values{"UserName": {user}, "AccessKeyId": {id}}, nil); err != nil {
			return aws.Credentials{}, err
		}
	}
	var key struct {
		ID     string `xml:"CreateAccessKeyResult>AccessKey>AccessKeyId"`
		Secret string `xml:"CreateAccessKeyResult>AccessKey>SecretAccessKey"`
	}
	if err := c.call(ctx, "CreateAccessKey", url.Values{"UserName": {user}}, &key); err != nil {
		return aws.Credentials{}, err
	}
	if key.ID == "" || key.Secret == "" {
		return aws.Credentials{}, fmt.Errorf("IAM CreateAccessKey for %s: no key in the answer", user)
	}
	return aws.Credentials{AccessKeyID: key.ID, SecretAccessKey: key.Secret, Source: "emulator IAM user " + user}, nil
}

// iamError is an IAM error answer; its message never holds a secret.
type iamError struct {
	Action  string
	Status  int
	Code    string `xml:"Error>Code"`
	Message string `xml:"Error>Message"`
}

func (e *iamError) Error() string {
	return fmt.Sprintf("IAM %s: %d %s: %s", e.Action, e.Status, e.Code, e.Message)
}

func isCode(err error, code string) bool {
	e, ok := err.(*iamError)
	return ok && e.Code == code
}

// call sends one signed Query API request and decodes the XML answer into
// out (when non-nil).
func (c *IAM) call(ctx context.Context, action string, params url.Values, out any) error {
	params.Set("Action", action)
	params.Set("Version", "2010-05-08")
	body := params.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(c.Endpoint, "/")+"/", strings.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded; charset=utf-8")
	sum := sha256.Sum256([]byte(body))
	region := c.Region
	if region == "" {
		region = "us-east-1"
	}
	if err := v4.NewSigner().SignHTTP(ctx, c.Credentials, req, hex.EncodeToString(sum[:]), "iam", region, time.Now()); err != nil {
		return fmt.Errorf("IAM %s: sign: %w", action, err)
	}
	client := c.HTTP
	if client == nil {
		client = &http.Client{Timeout: 30 * time.Second}
	}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("IAM %s: %w", action, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return fmt.Errorf("IAM %s: %w", action, err)
	}
	if resp.StatusCode/100 != 2 {
		e := &iamError{Action: action, Status: resp.StatusCode}
		_ = xml.Unmarshal(data, e)
		return e
	}
	if out != nil {
		if err := xml.Unmarshal(data, out); err != nil {
			return fmt.Errorf("IAM %s: decode answer: %w", action, err)
		}
	}
	return nil
}
