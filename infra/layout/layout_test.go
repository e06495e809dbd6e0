// Package layout enforces the dependency direction of shared/: the domain
// (plain types and their rules) imports only the standard library and
// other domain packages; the core imports no AWS or Lambda package and no
// adapter; an adapter imports the domain, the core and its own SDK, never
// another adapter; the channel adapters, the session store and the ingest
// door never reach the turn engine. Every package under shared/ must be
// classified here, so a new one forces the decision.
package layout

import (
	"encoding/json"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/zero-gateway/zero/"

// roles of the packages directly under shared/; subpackages (xxxtest)
// inherit their parent's role.
var roles = map[string]string{
	"fault":        "domain",
	"inbound":      "domain",
	"session":      "domain",
	"transcript":   "domain",
	"model":        "domain",
	"run":          "domain", // agent runs: the record, the event log, the store port and its conformance suite
	"redact":       "domain", // masking credential-like text (keys, bearer tokens, URL passwords) in what a tool shows
	"stopmark":     "domain", // the mark a /stop leaves on its session: expiry, Active, the commit's check
	"steer":        "domain", // a message recorded for a steer-mode session's running turn (queue mode steer)
	"outbox":       "domain", // durable deliveries (announces): the item, its states, the store port
	"receipt":      "domain", // the idempotency record of one inbound message: committed, then done
	"chataction":   "domain", // the message tool's actions on a chat and their results
	"sessionstate": "domain", // what a turn loads and commits besides the entry: the model context, the snapshot, the extra
	"turn":         "core",
	"config":       "core",
	"tool":         "core",
	"tools":        "core", // the built-in tools: the registry (tools), its list (builtin) and the families (web, memory, files, media, automation, sessions, messaging)
	"agent":        "core",
	"workspace":    "core",
	"gateway":      "core",
	"ingest":       "core", // the one door every ingress calls: routing, admission, stop marks, enqueue
	"secret":       "core", // the catalogue of secrets, their rules, rebuilding on rotation
	"hooks":        "core", // POST /hooks/wake and /hooks/agent: bearer token, payloads, untrusted envelope
	"cron":         "core", // cron jobs: the model, validation, Scheduler expressions, the run message, the store port
	"contextstore": "core", // a session's model context past the store item: immutable base objects plus the inline tail
	"blockchunk":   "core", // cutting a streamed answer into the blocks a chat receives while the model writes
	"compaction":   "core", // compacting a model context: what is kept, the summary request, applying a compaction line or a transcript, pruning and shortening requests
	"subagent":     "core", // a sub-agent's announce text and stats line, its archive time and spawn model, the children a context shows
	"status":       "core", // the /status and session_status report: the session, its model, the context-usage line
	"attachment":   "core", // a message's image attachments for a run: fetched and checked, or a note; the transcript's reference lines
	"delivery":     "core", // sending to a chat through its channel's Sender, and the outbox's announces: put, queued, delivered, settled
	"cost":         "core", // AWS list prices: a run's infrastructure cost from its call counts and Lambda time
	"metrics":      "core", // a turn's CloudWatch metrics as EMF log lines (no AWS call)
	"memory":       "core", // memory_search / memory_get: BM25 over MEMORY.md and memory/**/*.md, cached per agent
	"untrusted":    "core", // the envelope around external content (hooks, web tools)
	"webfetch":     "core", // web_fetch: SSRF guard on the dialed address, limits, readable-content extraction
	"webui":        "core", // the control page: embedded assets, the handler at GET / and /assets/
	"webchat":      "core", // the WebChat channel: its name and the runner's no-op sender
	"files":        "core", // read/write/edit/apply_patch: path rules, limits, conditional writes, the patch format
	"rotating":     "core", // clients that follow a secret: a model provider's API key, a channel's bot token
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
	"awstest":      "support", // tests only: unique resource names and polling with a deadline
	"lambdalog":    "support", // the functions' JSON log lines with the Lambda request id
	"deadline":     "support", // whether a retry's wait fits the caller's deadline, and the wait (the chat clients)
}

var forbiddenInCore = []string{"github.com/aws/", "github.com/openai/", "github.com/anthropics/"}

// testLibraries are what a domain package's test helpers (xxxtest) may
// import besides the standard library and the domain.
var testLibraries = []string{"github.com/google/go-cmp/"}

// engineFree are the packages that must not reach the turn engine: they
// speak the domain types, and the engine declares the ports they satisfy
// (functions/runner asserts the fit), so the engine may import ingest.
// The built-in tools (tools) see a run through tools.Run and their own
// ports, never the engine.
var engineFree = []string{"ingest", "telegram", "discord", "dynamo", "tools"}

// standard reports whether path is a standard library package: its first
// element has no dot (module paths must have one).
func standard(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	return !strings.Contains(first, ".")
}

// testHelper reports whether path is a test-helper package (its last
// element ends in "test", like runtest or outboxtest).
func testHelper(path string) bool {
	return strings.HasSuffix(path[strings.LastIndex(path, "/")+1:], "test")
}

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
			t.Errorf("%s: shared/%s is not classified in infra/layout (domain, core, adapter or support)", p.ImportPath, name)
			continue
		}
		switch role {
		case "domain":
			for _, d := range p.Deps {
				if standard(d) {
					continue
				}
				if dep, ok := top(d); ok && roles[dep] == "domain" {
					continue
				}
				if testHelper(p.ImportPath) && slices.ContainsFunc(testLibraries, func(lib string) bool { return strings.HasPrefix(d, lib) }) {
					continue
				}
				t.Errorf("domain package %s reaches %s: the domain imports only the standard library and other domain packages", p.ImportPath, d)
			}
		case "core":
			for _, d := range p.Deps {
				for _, bad := range forbiddenInCore {
					if strings.HasPrefix(d, bad) {
						t.Errorf("core package %s reaches %s", p.ImportPath, d)
					}
				}
				if dep, ok := top(d); ok && roles[dep] != "core" && roles[dep] != "domain" {
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

// TestEngineFree: the ingest door, the channel adapters and the session
// store do not reach shared/turn (go list -deps, tests excluded).
func TestEngineFree(t *testing.T) {
	engine := module + "shared/turn"
	for _, p := range listShared(t) {
		name, _ := top(p.ImportPath)
		if !slices.Contains(engineFree, name) {
			continue
		}
		for _, d := range p.Deps {
			if d == engine || strings.HasPrefix(d, engine+"/") {
				t.Errorf("%s reaches the turn engine (%s): use the domain packages, and let the engine declare the port", p.ImportPath, d)
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
