package redact

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

func TestText(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
		masked         bool
	}{
		{"plain text", "the token authentication flow is described in the basic guide", "the token authentication flow is described in the basic guide", false},
		{"openai key", "key sk-proj-abcdefghijklmnop1234 here", "key sk-proj-[REDACTED] here", true},
		{"anthropic key", "sk-ant-api03-AbCdEfGhIjKlMnOpQrSt", "sk-ant-[REDACTED]", true},
		{"bearer token", "Authorization: Bearer abcdef0123456789XYZ", "Authorization: Bearer [REDACTED]", true},
		{"url password", "dial postgres://admin:hunter2secret@db.example.com:5432/app", "dial postgres://admin:[REDACTED]@db.example.com:5432/app", true},
		{"github token", "ghp_0123456789abcdefghijABCDEFGHIJ", "ghp_[REDACTED]", true},
		{"slack token", "xoxb-1234567890-abcdef", "xoxb-[REDACTED]", true},
		{"aws key id", "AKIAIOSFODNN7EXAMPLE is the id", "AKIA[REDACTED] is the id", true},
		{"google key", "AIzaSyA0123456789abcdefghijklmnopqrstuv", "AIza[REDACTED]", true},
		{"telegram bot token", "123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw0", "123456789:[REDACTED]", true},
		{"jwt", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fwpM", "eyJ[REDACTED]", true},
		{"password assignment", `password=hunter2hunter2 next`, `password=[REDACTED] next`, true},
		{"json secret field", `{"client_secret": "abcdef123456"}`, `{"client_secret": "[REDACTED]"}`, true},
		{"api key yaml", "OPENAI_API_KEY: 0123456789abcdef", "OPENAI_API_KEY: [REDACTED]", true},
		{"a key in a key field", `api_key="sk-proj-abcdefghijklmnop1234"`, `api_key="[REDACTED]"`, true},
		{"a password with stars", "passwd: ab*cd*ef*gh", "passwd: [REDACTED]", true},
		{"short value kept", "password=abc", "password=abc", false},
		{"private key", "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAx0123456789abcdef\n-----END RSA PRIVATE KEY-----\nafter", "-----BEGIN RSA PRIVATE KEY-----[REDACTED]\nafter", true},
		{"already masked", "sk-proj-[REDACTED] and Bearer [REDACTED] and https://u:[REDACTED]@h", "sk-proj-[REDACTED] and Bearer [REDACTED] and https://u:[REDACTED]@h", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, masked := Text(tc.in)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Text(%q) (-want +got):\n%s", tc.in, diff)
			}
			if masked != tc.masked {
				t.Errorf("masked = %v, want %v", masked, tc.masked)
			}
		})
	}
}

// planted are credentials FuzzText puts into arbitrary text: none may
// survive masking, whatever surrounds them.
var planted = []string{
	"sk-abcdefghijklmnopqrstuvwx",
	"ghp_abcdefghijklmnopqrstuvwxyz0123",
	"xoxb-0123456789-abcdefghij",
	"AKIAABCDEFGHIJKLMNOP",
}

// FuzzText: masking is idempotent, keeps valid UTF-8 valid, and a planted
// credential (separated by spaces) never survives.
func FuzzText(f *testing.F) {
	for _, s := range []string{"", "hello", "Bearer abcdefghijklmnop", "https://a:b@c", "password=hunter22", "-----BEGIN PRIVATE KEY-----\nAAAAAAAAAAAAAAAAAAAA", "sk-[REDACTED]"} {
		f.Add(s, uint8(0))
	}
	f.Fuzz(func(t *testing.T, s string, pick uint8) {
		once, _ := Text(s)
		twice, again := Text(once)
		if twice != once || again {
			t.Fatalf("not idempotent: %q -> %q -> %q", s, once, twice)
		}
		if utf8.ValidString(s) && !utf8.ValidString(once) {
			t.Fatalf("invalid UTF-8 out of valid %q: %q", s, once)
		}
		secret := planted[int(pick)%len(planted)]
		out, masked := Text(s + " " + secret + " " + s)
		if !masked || strings.Contains(out, secret) {
			t.Fatalf("planted %q survived in %q", secret, out)
		}
	})
}
