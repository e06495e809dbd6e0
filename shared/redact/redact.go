// Package redact masks credential-like text (API keys, bearer tokens,
// passwords in URLs, key=value secrets, private key blocks) before text
// that may hold one leaves the place it was written: the safety-filtered
// sessions_history is its first reader.
//
// Masking keeps what helps a reader recognise the thing (the "sk-" of an
// OpenAI key, the user of a URL, the name of a password field) and
// replaces the secret part with Mask. It is domain: standard library only.
package redact

import (
	"regexp"
	"strings"
)

// Mask replaces the secret part of a credential.
const Mask = "[REDACTED]"

// rule is one kind of credential: a pattern whose submatch "keep" (when
// the pattern has one) survives, and the rest of the match is masked.
type rule struct {
	name string
	re   *regexp.Regexp
}

// rules are applied in order; each one's output is the next one's input.
// Patterns need a secret part long enough not to hit ordinary words, and
// never match Mask itself, so masking twice changes nothing.
var rules = []rule{
	// PEM private keys: the header stays, the key body (and its END line) goes.
	{"private key", regexp.MustCompile(`(?P<keep>-----BEGIN [A-Z ]*PRIVATE KEY-----)[A-Za-z0-9+/=\s]{16,}(?:-----END [A-Z ]*PRIVATE KEY-----)?`)},
	// user:password@ in a URL.
	{"url password", regexp.MustCompile(`(?P<keep>\b[a-zA-Z][a-zA-Z0-9+.-]*://[^\s:/@]+:)[^\s@/]+@`)},
	// Authorization headers and bearer tokens.
	{"bearer", regexp.MustCompile(`(?i)(?P<keep>\bbearer\s+)[A-Za-z0-9\-._~+/]{12,}=*`)},
	// Provider keys with a recognisable prefix.
	{"prefixed key", regexp.MustCompile(`(?P<keep>\b(?:sk|pk|rk)-(?:ant-|proj-|live-|test-)?)[A-Za-z0-9_\-]{16,}`)},
	{"github token", regexp.MustCompile(`(?P<keep>\b(?:gh[pousr]_|github_pat_))[A-Za-z0-9_]{20,}`)},
	{"slack token", regexp.MustCompile(`(?P<keep>\bxox[abposr]-)[A-Za-z0-9\-]{10,}`)},
	{"aws key id", regexp.MustCompile(`(?P<keep>\b(?:AKIA|ASIA))[0-9A-Z]{16}\b`)},
	{"google key", regexp.MustCompile(`(?P<keep>\bAIza)[0-9A-Za-z_\-]{35}`)},
	{"telegram bot token", regexp.MustCompile(`(?P<keep>\b[0-9]{6,12}:)[A-Za-z0-9_\-]{30,}`)},
	{"jwt", regexp.MustCompile(`(?P<keep>\beyJ)[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}`)},
	// name=value, name: value and "name": "value" for secret-sounding names.
	{"assignment", regexp.MustCompile(`(?i)(?P<keep>\b[a-z0-9_\-]*(?:password|passwd|pwd|secret|token|api[_\-]?key|access[_\-]?key|private[_\-]?key|client[_\-]?secret)["']?\s*[:=]\s*["']?)[^\s"',;&]{6,}`)},
}

// Text returns s with every credential-like span masked, and whether
// anything was. Masking is idempotent: Text of its own output changes
// nothing. Safe for concurrent use.
func Text(s string) (string, bool) {
	out := s
	for _, r := range rules {
		out = r.apply(out)
	}
	return out, out != s
}

// apply masks r's matches in s, keeping the "keep" submatch (and a URL
// password's "@"). A match whose secret part is already Mask is left.
func (r rule) apply(s string) string {
	keep := r.re.SubexpIndex("keep")
	return r.re.ReplaceAllStringFunc(s, func(m string) string {
		prefix := ""
		if sub := r.re.FindStringSubmatch(m); keep >= 0 && keep < len(sub) {
			prefix = sub[keep]
		}
		secret, suffix := strings.TrimPrefix(m, prefix), ""
		if r.name == "url password" {
			secret, suffix = strings.TrimSuffix(secret, "@"), "@"
		}
		if secret == Mask {
			return m
		}
		return prefix + Mask + suffix
	})
}
