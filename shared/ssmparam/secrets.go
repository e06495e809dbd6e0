package ssmparam

import (
	"context"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ssm"
	"github.com/aws/aws-sdk-go-v2/service/ssm/types"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/secret"
)

// DefaultSecretsTTL is how long a warm function keeps its secrets before
// reading them again: a rotated secret reaches every instance within it.
// Each read decrypts with KMS, so it is longer than the config's.
const DefaultSecretsTTL = 5 * time.Minute

// SecretsTTLEnv is the variable that overrides DefaultSecretsTTL (a Go
// duration) in a function's settings (functions/internal/settings, which
// reads it); `zero dev` sets it.
const SecretsTTLEnv = "ZERO_SECRETS_TTL"

// retryAfterFailure is how soon a failed re-read is tried again while the
// values read before stay in use.
const retryAfterFailure = 10 * time.Second

// maxNamesPerCall is GetParameters' limit.
const maxNamesPerCall = 10

// GetParametersAPI is the one SSM call Secrets makes (*ssm.Client is one).
type GetParametersAPI interface {
	GetParameters(ctx context.Context, in *ssm.GetParametersInput, opts ...func(*ssm.Options)) (*ssm.GetParametersOutput, error)
}

// Secrets reads a function's secrets from SSM SecureString parameters:
// all of them with one GetParameters call (decrypted) at the first Get (or
// Load, at cold start), again once the TTL has passed. Between reads Get
// answers from memory. A value that breaks its secret's rules is refused
// at the first read and, on a later read, ignored (the last good value
// stays, with an error logged); a re-read that fails keeps the values read
// before and is tried again 10 s later; a parameter deleted since is gone.
// Values are never logged. Safe for concurrent use.
type Secrets struct {
	client GetParametersAPI
	params map[string]string // secret name -> parameter name
	specs  map[string]secret.Spec
	ttl    time.Duration
	log    *slog.Logger
	now    func() time.Time

	mu      sync.Mutex
	vals    map[string]string // secret name -> value; absent: not set
	next    time.Time         // when to read again
	fetched bool
}

// NewSecrets returns the reader of the given secrets, params mapping each
// secret's name to its SSM parameter. A ttl of 0 means DefaultSecretsTTL.
func NewSecrets(client GetParametersAPI, params map[string]string, ttl time.Duration, log *slog.Logger) *Secrets {
	if ttl <= 0 {
		ttl = DefaultSecretsTTL
	}
	if log == nil {
		log = slog.Default()
	}
	s := &Secrets{client: client, params: params, specs: map[string]secret.Spec{}, ttl: ttl, log: log, now: time.Now}
	for name := range params {
		if spec, err := secret.Lookup(name); err == nil {
			s.specs[name] = spec
		}
	}
	return s
}

// Load reads every secret now (the cold start's one call) and checks that
// each one that is not optional is set and that every value set keeps its
// secret's rules. The error names the secret and its parameter.
func (s *Secrets) Load(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.refresh(ctx); err != nil {
		return err
	}
	for _, name := range s.names() {
		spec := s.specs[name]
		if _, ok := s.vals[name]; !ok && !spec.Optional {
			return s.missing(name)
		}
	}
	return nil
}

// Get returns the secret's value, reading all of them again once the TTL
// has passed. A secret that is not set is a fault.NotFound error naming it
// and its parameter.
func (s *Secrets) Get(ctx context.Context, spec secret.Spec) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.params[spec.Name]; !ok {
		return "", fault.New(fault.Internal, "secret %s is not among the secrets this function reads", spec.Name)
	}
	if !s.fetched || !s.now().Before(s.next) {
		if err := s.refresh(ctx); err != nil && !s.fetched {
			return "", err
		}
	}
	v, ok := s.vals[spec.Name]
	if !ok {
		return "", s.missing(spec.Name)
	}
	return v, nil
}

// Parameter is the SSM parameter of the secret called name ("" if this
// reader does not read it).
func (s *Secrets) Parameter(name string) string { return s.params[name] }

// Has tells whether the secret is set (reading the secrets if they are due).
func (s *Secrets) Has(ctx context.Context, spec secret.Spec) bool {
	_, err := s.Get(ctx, spec)
	return err == nil
}

// refresh reads every parameter; s.mu is held. On a first read any error
// is returned. On a later one a failed call keeps the old values.
func (s *Secrets) refresh(ctx context.Context) error {
	byParam := map[string]string{}
	names := s.names()
	for i := 0; i < len(names); i += maxNamesPerCall {
		chunk := names[i:min(i+maxNamesPerCall, len(names))]
		in := &ssm.GetParametersInput{WithDecryption: aws.Bool(true)}
		for _, n := range chunk {
			in.Names = append(in.Names, s.params[n])
		}
		out, err := s.client.GetParameters(ctx, in)
		if err != nil {
			err = classify(err, "read secrets "+strings.Join(in.Names, ", "))
			if s.fetched {
				s.log.Warn("secrets: re-read failed; the values read before stay in use", "error", err.Error())
				s.next = s.now().Add(retryAfterFailure)
			}
			return err
		}
		for _, p := range out.Parameters {
			if p.Type != types.ParameterTypeSecureString {
				// Readable by anyone allowed ssm:DescribeParameters'
				// history or GetParameter without KMS: say so, still use it.
				s.log.Warn("secrets: parameter is not a SecureString; rewrite it with `zero secrets set`", "parameter", aws.ToString(p.Name))
			}
			byParam[aws.ToString(p.Name)] = aws.ToString(p.Value)
		}
	}
	vals := map[string]string{}
	for _, name := range names {
		v, ok := byParam[s.params[name]]
		if !ok {
			continue
		}
		if spec, known := s.specs[name]; known {
			if err := spec.Check(v); err != nil {
				err = fmt.Errorf("%w (SSM parameter %s)", err, s.params[name])
				if !s.fetched {
					return err
				}
				s.log.Error("secrets: the new value is refused; the last good one stays in use", "error", err.Error())
				if old, had := s.vals[name]; had {
					vals[name] = old
				}
				continue
			}
		}
		vals[name] = v
	}
	s.vals, s.fetched, s.next = vals, true, s.now().Add(s.ttl)
	return nil
}

func (s *Secrets) names() []string {
	names := make([]string, 0, len(s.params))
	for n := range s.params {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// missing is the error for a secret that is not set.
func (s *Secrets) missing(name string) error {
	param := s.params[name]
	return fault.New(fault.NotFound, "secret %s is not set: SSM parameter %s not found (write it with `zero secrets set %s --parameter %s`)",
		name, param, name, param)
}

// PutSecret writes value into the SecureString parameter name (created
// when missing, else overwritten: a new version), encrypted with keyID ("":
// the account's AWS managed key alias/aws/ssm), and returns the version.
// It does not check the value: callers check it against its Spec first.
func PutSecret(ctx context.Context, client *ssm.Client, name, value, keyID string) (version int64, err error) {
	in := &ssm.PutParameterInput{
		Name:        aws.String(name),
		Value:       aws.String(value),
		Type:        types.ParameterTypeSecureString,
		Tier:        types.ParameterTierStandard,
		Overwrite:   aws.Bool(true),
		Description: aws.String("ZERO secret, written by zero secrets set"),
	}
	if keyID != "" {
		in.KeyId = aws.String(keyID)
	}
	out, err := client.PutParameter(ctx, in)
	if err != nil {
		return 0, classify(err, "put secret parameter "+name)
	}
	return out.Version, nil
}

// DeleteSecret removes the parameter name; a missing one is no error.
func DeleteSecret(ctx context.Context, client *ssm.Client, name string) error {
	_, err := client.DeleteParameter(ctx, &ssm.DeleteParameterInput{Name: aws.String(name)})
	if err = classify(err, "delete secret parameter "+name); err != nil && !fault.Is(err, fault.NotFound) {
		return err
	}
	return nil
}
