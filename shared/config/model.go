package config

import (
	"slices"
	"strings"

	"github.com/zero-gateway/zero/shared/model"
)

// builtinProviders are the providers ZERO knows without configuration;
// ResolveModel matches provider names against them too.
var builtinProviders = []string{"openai", "anthropic", "bedrock", "zero"}

// DefaultModel is the model of agentID: agents.list[].model, else
// agents.defaults.model; ok is false when neither is set.
func (c *Config) DefaultModel(agentID string) (ref model.Ref, ok bool) {
	if a, found := c.Agent(agentID); found && a.Model.IsSet() {
		return a.Model.Primary, true
	}
	if c.Agents.Defaults.Model.IsSet() {
		return c.Agents.Defaults.Model.Primary, true
	}
	return model.Ref{}, false
}

// ResolveModel resolves a model name given where a model is expected
// (the gateway's sessions.patch), in order:
//   - an alias from agents.defaults.models (case-insensitive, exact);
//   - a "provider/model" ref, taken as written;
//   - a provider name, matched case-insensitively exactly, else as the
//     unique prefix of one provider, else within edit distance 2 (inputs of
//     3+ characters, the single closest), against the providers of the
//     configured models and the built-in providers (openai, anthropic,
//     bedrock, zero). It names that provider's configured model:
//     agents.defaults.model when of that provider, else the first of the
//     catalog (file order), the defaults' fallbacks and agents.list[].model.
//     A provider with no configured model does not resolve.
func (c *Config) ResolveModel(input string) (model.Ref, bool) {
	input = strings.TrimSpace(input)
	if input == "" {
		return model.Ref{}, false
	}
	for _, m := range c.Agents.Defaults.Models {
		if m.Alias != "" && strings.EqualFold(m.Alias, input) {
			return m.Ref, true
		}
	}
	if strings.Contains(input, "/") {
		ref, err := model.ParseRef(input)
		return ref, err == nil
	}
	configured := c.configuredModels()
	providers := slices.Clone(builtinProviders)
	for _, ref := range configured {
		if !slices.Contains(providers, ref.Provider) {
			providers = append(providers, ref.Provider)
		}
	}
	provider, ok := matchProvider(strings.ToLower(input), providers)
	if !ok {
		return model.Ref{}, false
	}
	for _, ref := range configured {
		if ref.Provider == provider {
			return ref, true
		}
	}
	return model.Ref{}, false
}

// ResetModel resolves the word after /new or /reset as a model only when
// the config names it, so that ordinary text is never taken for one
// ("/new 1/2 cup of flour" asks "1/2 cup of flour"):
//   - an alias from agents.defaults.models (case-insensitive, exact);
//   - a "provider/model" the config lists (agents.defaults.model and its
//     fallbacks, the agents.defaults.models keys, agents.list[].model),
//     matched case-insensitively and returned as listed; an owner may name
//     any "provider/model" of a known provider (built-in or configured);
//   - a provider's exact name (case-insensitive), naming its configured
//     model as ResolveModel does. No prefixes and no typos: a word of the
//     message must not be guessed into a model.
func (c *Config) ResetModel(input string, owner bool) (model.Ref, bool) {
	input = strings.TrimSpace(input)
	if input == "" {
		return model.Ref{}, false
	}
	for _, m := range c.Agents.Defaults.Models {
		if m.Alias != "" && strings.EqualFold(m.Alias, input) {
			return m.Ref, true
		}
	}
	configured := c.configuredModels()
	if strings.Contains(input, "/") {
		ref, err := model.ParseRef(input)
		if err != nil {
			return model.Ref{}, false
		}
		for _, listed := range configured {
			if listed.Provider == ref.Provider && strings.EqualFold(listed.Name, ref.Name) {
				return listed, true
			}
		}
		known := slices.Contains(builtinProviders, ref.Provider) ||
			slices.ContainsFunc(configured, func(r model.Ref) bool { return r.Provider == ref.Provider })
		return ref, owner && known
	}
	for _, ref := range configured {
		if strings.EqualFold(ref.Provider, input) {
			return ref, true
		}
	}
	return model.Ref{}, false
}

// configuredModels lists every configured model in the order ResolveModel
// prefers them.
func (c *Config) configuredModels() []model.Ref {
	var refs []model.Ref
	d := c.Agents.Defaults
	if d.Model.IsSet() {
		refs = append(refs, d.Model.Primary)
	}
	for _, m := range d.Models {
		refs = append(refs, m.Ref)
	}
	refs = append(refs, d.Model.Fallbacks...)
	for _, a := range c.Agents.List {
		if a.Model.IsSet() {
			refs = append(refs, a.Model.Primary)
		}
		refs = append(refs, a.Model.Fallbacks...)
	}
	return refs
}

// matchProvider finds the provider input names: exact, else a unique
// prefix, else the single closest within edit distance 2.
func matchProvider(input string, providers []string) (string, bool) {
	if slices.Contains(providers, input) {
		return input, true
	}
	var prefixed []string
	for _, p := range providers {
		if strings.HasPrefix(p, input) {
			prefixed = append(prefixed, p)
		}
	}
	if len(prefixed) == 1 {
		return prefixed[0], true
	}
	if len(prefixed) > 1 || len([]rune(input)) < 3 {
		// Ambiguous; and for very short input every short name is within
		// distance 2, which would be a guess, not a match.
		return "", false
	}
	best, bestDist, tie := "", 3, false
	for _, p := range providers {
		switch d := editDistance(input, p); {
		case d < bestDist:
			best, bestDist, tie = p, d, false
		case d == bestDist:
			tie = true
		}
	}
	if best == "" || tie {
		return "", false
	}
	return best, true
}

// editDistance is the Levenshtein distance between a and b, in characters.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
