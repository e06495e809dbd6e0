// Package layout enforces the dependency direction of shared/: the domain
// core imports no AWS or Lambda package and no adapter; an adapter imports
// the core and its own SDK, never another adapter. Every package under
// shared/ must be classified here, so a new one forces the decision.
package layout

import (
	"encoding/json"
	"io"
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/zero-gateway/zero/"

// roles of the packages directly under shared/; subpackages (xxxtest)
// inherit their parent's role.
var roles = map[string]string{
	"fault":        "core",
	"inbound":      "core",
	"session":      "core",
	"transcript":   "core",
	"model":        "core",
	"turn":         "core",
	"config":       "core",
	"tool":         "core",
	"agent":        "core",
	"run":          "core",
	"workspace":    "core",
	"gateway":      "core",
	"ingest":       "core", // the one door every ingress calls: routing, admission, stop marks, enqueue
	"secret":       "core", // the catalogue of secrets, their rules, rebuilding on rotation
	"hooks":        "core", // POST /hooks/wake and /hooks/agent: bearer token, payloads, untrusted envelope
	"cron":         "core", // cron jobs: the model, validation, Scheduler expressions, the run message, the store port
	"contextstore": "core", // a session's model context past the store item: immutable base objects plus the inline tail
	"cost":         "core", // AWS list prices: a run's infrastructure cost from its call counts and Lambda time
	"memory":       "core", // memory_search / memory_get: BM25 over MEMORY.md and memory/**/*.md, cached per agent
	"untrusted":    "core", // the envelope around external content (hooks, web tools)
	"webfetch":     "core", // web_fetch: SSRF guard on the dialed address, limits, readable-content extraction
	"webui":        "core", // the control page: embedded assets, the handler at GET / and /assets/
	"webchat":      "core", // the WebChat channel: its name and the runner's no-op sender
	"files":        "core", // read/write/edit/apply_patch: path rules, limits, conditional writes, the patch format
	"upstream":     "core", // the upstream session store and JSONL transcripts: read, migrate, import plan, export
	"dynamo":       "adapter",
	"s3store":      "adapter",
	"sqsqueue":     "adapter",
	"telegram":     "adapter",
	"discord":      "adapter", // Discord interactions in (Ed25519), replies out (interaction webhooks, bot token)
	"openai":       "adapter",
	"anthropic":    "adapter",
	"bedrock":      "adapter",
	"httpapi":      "adapter",
	"ssmparam":     "adapter",
	"scheduler":    "adapter", // EventBridge Scheduler: one schedule per enabled cron job
	"brave":        "adapter", // Brave Search API for web_search
	"sqlitedb":     "adapter", // the upstream SQLite session store, read-only (modernc.org/sqlite, pure Go)
	"awserr":       "support", // classifies AWS SDK errors for the AWS adapters
	"awsconfig":    "support", // builds the SDK config for mains and tests
	"emulator":     "support", // starts the local AWS emulator for tests and `zero dev`
	"lambdalog":    "support", // the functions' JSON log lines with the Lambda request id
	"deadline":     "support", // whether a retry's wait fits the caller's deadline, and the wait (the chat clients)
}

var forbiddenInCore = []string{"github.com/aws/", "github.com/openai/", "github.com/anthropics/"}

type pkg struct {
	ImportPath string
	Imports    []string
	Deps       []string
}

func listShared(t *testing.T) []pkg {
	t.Helper()
	out, err := exec.Command("go", "list", "-json", "../../shared/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []pkg
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("decode go list: %v", err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

// top returns the name of the package directly under shared/ that path is in.
func top(path string) (string, bool) {
	rest, ok := strings.CutPrefix(path, module+"shared/")
	if !ok {
		return "", false
	}
	name, _, _ := strings.Cut(rest, "/")
	return name, true
}

func TestDependencyDirection(t *testing.T) {
	pkgs := listShared(t)
	if len(pkgs) == 0 {
		t.Fatal("go list found no packages under shared/")
	}
	for _, p := range pkgs {
		name, _ := top(p.ImportPath)
		role, ok := roles[name]
		if !ok {
			t.Errorf("%s: shared/%s is not classified in infra/layout (core, adapter or support)", p.ImportPath, name)
			continue
		}
		switch role {
		case "core":
			for _, d := range p.Deps {
				for _, bad := range forbiddenInCore {
					if strings.HasPrefix(d, bad) {
						t.Errorf("core package %s reaches %s", p.ImportPath, d)
					}
				}
				if dep, ok := top(d); ok && roles[dep] != "core" {
					t.Errorf("core package %s reaches %s package %s", p.ImportPath, roles[dep], d)
				}
			}
		case "adapter":
			for _, imp := range p.Imports {
				if dep, ok := top(imp); ok && dep != name && roles[dep] == "adapter" {
					t.Errorf("adapter %s imports adapter %s: adapters import the core, support packages and their own SDK, never another adapter", p.ImportPath, imp)
				}
			}
		case "support":
			for _, d := range p.Deps {
				if dep, ok := top(d); ok && roles[dep] == "adapter" {
					t.Errorf("support package %s reaches adapter %s", p.ImportPath, d)
				}
			}
		}
	}
}

func TestSharedIsNotAPackage(t *testing.T) {
	out, err := exec.Command("go", "list", "../../shared").CombinedOutput()
	if err == nil {
		t.Fatalf("shared/ itself is a Go package (%s); it must only hold packages", strings.TrimSpace(string(out)))
	}
}
