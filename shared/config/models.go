package config

import (
	"math"
	"strconv"
	"strings"

	"github.com/zero-gateway/zero/shared/model"
)

// Models is models.*: what ZERO knows about the providers' models beyond
// their refs. Today only prices (for the cost of a sub-agent's run).
type Models struct {
	// Providers is models.providers, keyed by lower-cased provider name.
	Providers map[string]Provider
}

// Provider is models.providers.<provider>.
type Provider struct {
	Models []ProviderModel // in file order
}

// ProviderModel is one models.providers.<provider>.models[] entry.
type ProviderModel struct {
	ID   string    // the model name, as in "provider/<id>"
	Cost ModelCost // zero: no price configured
}

// ModelCost is a model's price in USD per million tokens.
type ModelCost struct {
	Input  float64
	Output float64
}

// ModelCost returns the configured price of ref
// (models.providers.<provider>.models[].cost, the id matched
// case-insensitively); ok is false when none is configured.
func (c *Config) ModelCost(ref model.Ref) (ModelCost, bool) {
	p, ok := c.Models.Providers[strings.ToLower(ref.Provider)]
	if !ok {
		return ModelCost{}, false
	}
	for _, m := range p.Models {
		if strings.EqualFold(m.ID, ref.Name) && m.Cost != (ModelCost{}) {
			return m.Cost, true
		}
	}
	return ModelCost{}, false
}

// priceKind is a price: a number >= 0.
var priceKind = scalar("number >= 0 (USD per million tokens)", readPrice)

func readPrice(r *reader, n *node, path string) float64 {
	if n.kind != numberNode {
		r.failf(path, "must be a number, got %s", n.describe())
		return 0
	}
	f, err := strconv.ParseFloat(n.text, 64)
	if err != nil || f < 0 || math.IsInf(f, 0) {
		r.failf(path, "must be a number >= 0 (USD per million tokens), got %s", n.text)
		return 0
	}
	return f
}

// modelsKeys are models.providers.<provider>.models[]: the model ids and
// their prices. Other upstream keys of a provider (baseUrl, apiKey, ...)
// are warned about as unknown: ZERO's providers are its own clients.
func modelsKeys() []Key {
	m := func(set func(*ProviderModel, Value)) func(any, Value) { return on(set) }
	price := func(v Value) float64 { f, _ := v.val.(float64); return f }
	return []Key{
		{Path: "models", Kind: objectKind, Help: "what ZERO knows about the providers' models",
			open: into(func(c *Config, _ Value) *Models { return &c.Models })},
		{Path: "models.providers", Kind: mapKind, Help: "per provider"},
		{Path: "models.providers.<provider>", Kind: objectKind, Help: "one provider", open: into(newModelProvider), close: after(storeModelProvider)},
		{Path: "models.providers.<provider>.models", Kind: listKind, Help: "its models"},
		{Path: "models.providers.<provider>.models[]", Kind: objectKind, Help: "one model",
			open: into(func(p *Provider, _ Value) *ProviderModel {
				p.Models = append(p.Models, ProviderModel{})
				return &p.Models[len(p.Models)-1]
			})},
		{Path: "models.providers.<provider>.models[].id", Kind: stringKind, Required: true, Help: `the model name ("provider/<id>")`,
			set: m(func(pm *ProviderModel, v Value) { pm.ID = strings.TrimSpace(v.Str()) })},
		{Path: "models.providers.<provider>.models[].cost", Kind: objectKind, Help: "its price (the cost in a sub-agent's announce)"},
		{Path: "models.providers.<provider>.models[].cost.input", Kind: priceKind, Help: "USD per million input tokens",
			set: m(func(pm *ProviderModel, v Value) { pm.Cost.Input = price(v) })},
		{Path: "models.providers.<provider>.models[].cost.output", Kind: priceKind, Help: "USD per million output tokens",
			set: m(func(pm *ProviderModel, v Value) { pm.Cost.Output = price(v) })},
	}
}

func newModelProvider(ms *Models, v Value) *Provider {
	name := normalize(v.Key())
	if name == "" {
		v.Failf("empty provider name")
		return nil
	}
	if _, dup := ms.Providers[name]; dup {
		v.Failf("provider %q is listed twice", name)
		return nil
	}
	return &Provider{}
}

func storeModelProvider(ms *Models, p *Provider, v Value) {
	if ms.Providers == nil {
		ms.Providers = map[string]Provider{}
	}
	ms.Providers[normalize(v.Key())] = *p
}
