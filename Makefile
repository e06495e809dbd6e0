# ZERO — the two commands: `make dev` runs the product locally, `make test`
# runs every test. Both install what they need first (`make deps`).

SHELL := /bin/bash
GO ?= go
PYTHON ?= python3
BIN := $(CURDIR)/bin
BUILD := $(CURDIR)/build
RIE_VERSION := v0.0.0-20261030222936-bef5c4ba774d
RIE := $(BIN)/aws-lambda-rie
TEMPLATE_JSON := build/template.json
export PATH := $(BIN):$(PATH)

.PHONY: deps dev test lint bench fuzz build clean

## deps: install what the product and its tests need, only where missing.
deps: $(RIE)
	@command -v $(GO) >/dev/null || { echo "Go 1.26+ is required: https://go.dev/dl/"; exit 1; }
	@$(PYTHON) -c 'import moto.server' 2>/dev/null || $(PYTHON) -m pip install --quiet 'moto[server]'
	@$(PYTHON) -c 'import samtranslator' 2>/dev/null || $(PYTHON) -m pip install --quiet aws-sam-translator
	@command -v cfn-lint >/dev/null || $(PYTHON) -m pip install --quiet cfn-lint
	@infra/deps-browser.sh
	@$(GO) mod download

$(RIE):
	@mkdir -p $(BIN)
	GOBIN=$(BIN) $(GO) install github.com/aws/aws-lambda-runtime-interface-emulator/cmd/aws-lambda-rie@$(RIE_VERSION)

## The CloudFormation the local stack is provisioned from, translated from
## template.yaml by aws-sam-translator so local and deployed cannot drift.
$(TEMPLATE_JSON): template.yaml infra/sam2cfn.py
	@mkdir -p $(BUILD)
	AWS_DEFAULT_REGION=$${AWS_DEFAULT_REGION:-us-east-1} $(PYTHON) infra/sam2cfn.py template.yaml $(TEMPLATE_JSON)

## dev: the local stack — AWS emulator on 127.0.0.1:4566, functions under the
## Lambda RIE, HTTP front on 127.0.0.1:3000, the SQS event-source emulator.
dev: deps $(TEMPLATE_JSON)
	$(GO) build -o $(BIN)/zero ./cmd/zero
	$(BIN)/zero dev $(DEV_FLAGS)

## test: formatting, vet, template lint, the import-direction check, unit and
## integration tests (moto is started and stopped by the tests themselves).
test: deps lint $(TEMPLATE_JSON)
	$(GO) test -count=1 -timeout 40m ./...

lint: $(TEMPLATE_JSON)
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$unformatted" ]; then echo "gofmt needed: $$unformatted"; exit 1; fi
	$(GO) vet ./...
	cfn-lint template.yaml
	cfn-lint $(TEMPLATE_JSON)

## bench: handler speed, AWS calls per turn, binary sizes and cold init.
bench: deps $(TEMPLATE_JSON)
	$(GO) test -run '^$$' -bench . -benchmem ./shared/...
	$(GO) test -run '^$$' -bench ColdInit -benchtime 5x ./cmd/zero/devstack/
	set -o pipefail; ZERO_BENCH=1 $(GO) test -count=1 -run 'TestTurnAWSCalls|TestAgentWaitLatency|TestFlowAWSCalls' -v ./cmd/zero/devstack/ | grep -E 'BENCH|^(--- |ok|FAIL)'
	set -o pipefail; ZERO_BENCH=1 $(GO) test -count=1 -timeout 30m -run 'TestLongSessionCost|TestStreamedTurnAWSCalls' -v ./functions/runner/ | grep -E 'BENCH|^(--- |ok|FAIL)'

## fuzz: every fuzz target (the parsers of outside input) for FUZZTIME
## each; their seed corpora already run in `make test`. FUZZMINIMIZE bounds
## the shrinking of each input found (Go's default is 60 s, during which
## no exec is counted: a 1-2 KiB model stream at ~0.5 ms an exec never
## finishes shrinking, so one find used to stall a 20 s run); a crash is
## saved whole either way (`make fuzz FUZZMINIMIZE=60s` to shrink it).
FUZZTIME ?= 20s
FUZZMINIMIZE ?= 500x
fuzz:
	@set -e; for pkg in $$($(GO) list ./shared/... ./functions/... ./cmd/...); do \
	  for target in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz' || true); do \
	    echo "fuzz $$pkg $$target ($(FUZZTIME))"; \
	    $(GO) test -run '^$$' -fuzz "^$$target\$$" -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMINIMIZE) $$pkg; \
	  done; \
	done

## load: the local stack under load (not part of `make test`): LOAD_CHATS
## chats x LOAD_MESSAGES messages with a model delay LOAD_DELAY (messages/s,
## the emulator's ceiling and the share used, AWS calls per message; lost,
## duplicated or out-of-order replies fail it), then the fan-in of
## FANIN_CHATS chats x 1 message with a model delay FANIN_DELAY, then the
## per-record completion burst: COMPLETION_CHATS sessions, COMPLETION_SLOW of
## them with a COMPLETION_DELAY model, and each instant one's second message.
.PHONY: load
load: deps $(TEMPLATE_JSON)
	set -o pipefail; $(GO) test -count=1 -run '^$$' -bench '^Benchmark(Load|FanIn|Retry|Completion)$$' -benchtime 1x -timeout 40m ./cmd/zero/devstack/ | grep -E '^(LOAD|FANIN|RETRY|COMPLETION|Benchmark|--- |ok|FAIL)|load_test\.go'

## SAM builds each function with `make build-<LogicalId>` (BuildMethod: makefile).
include $(dir $(lastword $(MAKEFILE_LIST)))infra/build.mk

clean:
	rm -rf $(BUILD) .aws-sam
