package main

import (
	"cmp"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/zero-gateway/zero/shared/gateway"
)

// Environment variables and defaults of the gateway connection.
const (
	gatewayURLEnv     = "ZERO_GATEWAY_URL"
	gatewayTokenEnv   = "ZERO_GATEWAY_TOKEN"
	defaultGatewayURL = "http://127.0.0.1:3000"
)

// gatewayFlags are the connection flags every gateway command takes.
type gatewayFlags struct {
	url   string
	token string
}

// register adds --url and --token to fs.
func (g *gatewayFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&g.url, "url", "", fmt.Sprintf("gateway URL (default $%s, else %s)", gatewayURLEnv, defaultGatewayURL))
	fs.StringVar(&g.token, "token", "", fmt.Sprintf("gateway token (default $%s)", gatewayTokenEnv))
}

// client resolves the flags against the environment (flags win) and
// returns a client of the gateway. A missing token or a malformed URL is
// an error before any request is made.
func (g *gatewayFlags) client(getenv func(string) string) (*gateway.Client, error) {
	url, token := g.resolve(getenv)
	if strings.TrimSpace(token) == "" {
		return nil, fmt.Errorf("no gateway token: pass --token or set %s", gatewayTokenEnv)
	}
	return gateway.NewClient(url, token, gateway.ClientOptions{
		AuthHint: fmt.Sprintf("check --token or %s", gatewayTokenEnv),
	})
}

// resolve is the gateway URL and token of the flags, else of the
// environment; the URL defaults to defaultGatewayURL.
func (g *gatewayFlags) resolve(getenv func(string) string) (url, token string) {
	url = cmp.Or(g.url, getenv(gatewayURLEnv), defaultGatewayURL)
	return url, cmp.Or(g.token, getenv(gatewayTokenEnv))
}

// writeJSON writes v as indented JSON, with <, > and & left as they are.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
