// Package webui is the control page: a small web app (plain HTML, CSS and
// ES modules, no build step, no third-party origin) embedded in the
// gateway's binary and served at GET / and GET /assets/<version>/<file>.
// The page talks only to POST /rpc, with the gateway token the operator
// signs in with, kept in the tab's sessionStorage and sent as a bearer
// header (never in a URL).
//
// Caching: asset URLs carry a version (a hash of every embedded asset), so
// they are served immutable for a year; the index is no-cache, so a deploy
// is picked up at the next load. Every answer carries a strict
// Content-Security-Policy (same origin only, no inline script or style,
// no framing), X-Content-Type-Options: nosniff and no referrer.
//
// It is core: the standard library only.
package webui

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"net/http"
	"path"
	"sort"
	"strings"
)

//go:embed site
var site embed.FS

// AssetsPrefix is the path under which assets are served.
const AssetsPrefix = "/assets/"

// CSP is the Content-Security-Policy of every answer of the page.
const CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
	"font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// versionPlaceholder is replaced in index.html by the assets' base path.
const versionPlaceholder = "{{ASSETS}}"

// contentTypes are the asset types served; a file of another type is not.
var contentTypes = map[string]string{
	".js":   "text/javascript; charset=utf-8",
	".css":  "text/css; charset=utf-8",
	".svg":  "image/svg+xml",
	".html": "text/html; charset=utf-8",
}

// UI serves the control page. Build it with New; it is safe for
// concurrent use.
type UI struct {
	index   []byte
	version string
	assets  fs.FS
}

// New loads the embedded page and computes its assets' version.
func New() (*UI, error) {
	assets, err := fs.Sub(site, "site/assets")
	if err != nil {
		return nil, fmt.Errorf("webui: assets: %w", err)
	}
	version, err := hashTree(assets)
	if err != nil {
		return nil, fmt.Errorf("webui: hash assets: %w", err)
	}
	index, err := site.ReadFile("site/index.html")
	if err != nil {
		return nil, fmt.Errorf("webui: index: %w", err)
	}
	index = bytes.ReplaceAll(index, []byte(versionPlaceholder), []byte(AssetsPrefix+version))
	return &UI{index: index, version: version, assets: assets}, nil
}

// Version is the assets' version, the path segment after /assets/.
func (u *UI) Version() string { return u.version }

// hashTree is the first 12 hex digits of a SHA-256 over every file's path
// and content, in lexical order.
func hashTree(fsys fs.FS) (string, error) {
	var names []string
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			names = append(names, p)
		}
		return err
	})
	if err != nil {
		return "", err
	}
	sort.Strings(names)
	h := sha256.New()
	for _, n := range names {
		b, err := fs.ReadFile(fsys, n)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s\x00%d\x00", n, len(b))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil))[:12], nil
}

// Mount routes GET and HEAD of / and /assets/... to ui and every other
// request to api (the gateway's POST /rpc).
func Mount(ui, api http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if Serves(r) {
			ui.ServeHTTP(w, r)
			return
		}
		api.ServeHTTP(w, r)
	})
}

// Serves reports whether r is a request for the page.
func Serves(r *http.Request) bool {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return false
	}
	return r.URL.Path == "/" || strings.HasPrefix(r.URL.Path, AssetsPrefix)
}

// ServeHTTP answers the index at / and versioned assets under /assets/;
// anything else is 404.
func (u *UI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	secure(w.Header())
	switch {
	case r.Method != http.MethodGet && r.Method != http.MethodHead:
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
	case r.URL.Path == "/":
		w.Header().Set("Cache-Control", "no-cache")
		write(w, r, "text/html; charset=utf-8", u.index)
	default:
		u.serveAsset(w, r)
	}
}

// serveAsset answers /assets/<version>/<file>; another version, a file
// that is not there or of a type not served is 404.
func (u *UI) serveAsset(w http.ResponseWriter, r *http.Request) {
	rest, ok := strings.CutPrefix(r.URL.Path, AssetsPrefix+u.version+"/")
	name := path.Clean(rest)
	ctype := contentTypes[path.Ext(name)]
	if !ok || rest == "" || name != rest || ctype == "" || !fs.ValidPath(name) {
		notFound(w)
		return
	}
	b, err := fs.ReadFile(u.assets, name)
	if err != nil {
		notFound(w)
		return
	}
	w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
	write(w, r, ctype, b)
}

// secure sets the headers every answer of the page carries.
func secure(h http.Header) {
	h.Set("Content-Security-Policy", CSP)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Frame-Options", "DENY")
}

func notFound(w http.ResponseWriter) {
	w.Header().Set("Cache-Control", "no-store")
	http.Error(w, "not found", http.StatusNotFound)
}

// write sends body with its type (the body is left out for HEAD).
func write(w http.ResponseWriter, r *http.Request, ctype string, body []byte) {
	w.Header().Set("Content-Type", ctype)
	w.Header().Set("Content-Length", fmt.Sprint(len(body)))
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write(body)
	}
}
