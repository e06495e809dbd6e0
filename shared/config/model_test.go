package config

import "testing"

const modelsDoc = `{
  agents: {
    defaults: {
      model: { primary: "anthropic/claude-sonnet-4-5", fallbacks: ["mistral/large"] },
      models: {
        "openai/gpt-5.2": { alias: "GPT" },
        "openai/gpt-5-mini": { alias: "mini" },
        "anthropic/claude-opus-4": { alias: "opus" },
        "openrouter/meta/llama-3": {},
        "ollama/qwen3": {},
      },
    },
    list: [
      { id: "main" },
      { id: "work", model: "google/gemini-2.5-pro" },
      { id: "ops", model: { fallbacks: ["openai/gpt-5.2"] } },
    ],
  },
}`

func TestDefaultModel(t *testing.T) {
	c := mustParse(t, modelsDoc)
	tests := []struct{ name, agent, want string }{
		{"agent without model takes the defaults'", "main", "anthropic/claude-sonnet-4-5"},
		{"agent's own model", "Work", "google/gemini-2.5-pro"},
		{"agent with fallbacks only takes the defaults' primary", "ops", "anthropic/claude-sonnet-4-5"},
		{"unknown agent takes the defaults'", "ghost", "anthropic/claude-sonnet-4-5"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ref, ok := c.DefaultModel(tc.agent)
			if !ok || ref.String() != tc.want {
				t.Fatalf("DefaultModel(%q) = %v, %v; want %s", tc.agent, ref, ok, tc.want)
			}
		})
	}
	onlyAgent := mustParse(t, `{agents: {list: [{id: "a", model: "openai/x"}, {id: "b"}]}}`)
	if ref, ok := onlyAgent.DefaultModel("a"); !ok || ref.String() != "openai/x" {
		t.Errorf("DefaultModel(a) = %v, %v", ref, ok)
	}
	if ref, ok := onlyAgent.DefaultModel("b"); ok {
		t.Errorf("DefaultModel(b) = %v; want none", ref)
	}
}

func TestResolveModel(t *testing.T) {
	c := mustParse(t, modelsDoc)
	tests := []struct {
		name  string
		input string
		want  string // "" means not resolvable
	}{
		{"alias", "GPT", "openai/gpt-5.2"},
		{"alias case-insensitive", "Opus", "anthropic/claude-opus-4"},
		{"alias with blanks", "  mini ", "openai/gpt-5-mini"},
		{"provider/model as written", "openai/gpt-4o", "openai/gpt-4o"},
		{"provider/model lower-cases the provider", "OpenAI/GPT-4o", "openai/GPT-4o"},
		{"provider/model with slashes", "openrouter/meta/llama-3", "openrouter/meta/llama-3"},
		{"bad provider/model", "openai/", ""},
		{"provider: the defaults' model when of that provider", "anthropic", "anthropic/claude-sonnet-4-5"},
		{"provider: first catalog model", "openai", "openai/gpt-5.2"},
		{"provider case-insensitive", "OPENAI", "openai/gpt-5.2"},
		{"provider from a fallback", "mistral", "mistral/large"},
		{"provider from an agent's model", "google", "google/gemini-2.5-pro"},
		{"unique prefix", "anth", "anthropic/claude-sonnet-4-5"},
		{"prefix of two providers is ambiguous", "o", ""},
		{"unique longer prefix", "oll", "ollama/qwen3"},
		{"typo within distance 1", "opneai", "openai/gpt-5.2"},
		{"typo within distance 2", "antropc", "anthropic/claude-sonnet-4-5"},
		{"typo too far", "anthrxxxc", ""},
		{"built-in provider without a configured model", "bedrock", ""},
		{"fuzzy built-in provider without a configured model", "bedrok", ""},
		{"unknown word", "banana", ""},
		{"short input is not guessed", "xy", ""},
		{"empty", "  ", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ref, ok := c.ResolveModel(tc.input)
			if tc.want == "" {
				if ok {
					t.Fatalf("ResolveModel(%q) = %v; want not resolvable", tc.input, ref)
				}
				return
			}
			if !ok || ref.String() != tc.want {
				t.Fatalf("ResolveModel(%q) = %v, %v; want %s", tc.input, ref, ok, tc.want)
			}
		})
	}

	empty := Default()
	for _, in := range []string{"openai", "zero", "anthropic"} {
		if ref, ok := empty.ResolveModel(in); ok {
			t.Errorf("Default().ResolveModel(%q) = %v; want not resolvable", in, ref)
		}
	}
	if ref, ok := empty.ResolveModel("zero/echo"); !ok || ref.String() != "zero/echo" {
		t.Errorf("Default().ResolveModel(zero/echo) = %v, %v", ref, ok)
	}
}

func TestResetModel(t *testing.T) {
	c := mustParse(t, modelsDoc)
	tests := []struct {
		name  string
		input string
		owner bool
		want  string // "" means the word is not a model: it starts the message
	}{
		{"alias", "GPT", false, "openai/gpt-5.2"},
		{"alias case-insensitive", "Opus", false, "anthropic/claude-opus-4"},
		{"a catalog model", "openai/gpt-5-mini", false, "openai/gpt-5-mini"},
		{"a catalog model in another case, as listed", "OpenAI/GPT-5-MINI", false, "openai/gpt-5-mini"},
		{"the defaults' model", "anthropic/claude-sonnet-4-5", false, "anthropic/claude-sonnet-4-5"},
		{"a fallback", "mistral/large", false, "mistral/large"},
		{"an agent's model", "google/gemini-2.5-pro", false, "google/gemini-2.5-pro"},
		{"a provider's exact name", "anthropic", false, "anthropic/claude-sonnet-4-5"},
		{"an unlisted model", "openai/gpt-4o", false, ""},
		{"an owner may name any model of a known provider", "openai/gpt-4o", true, "openai/gpt-4o"},
		{"an owner's model of a configured provider", "ollama/llama3", true, "ollama/llama3"},
		{"a fraction is text even for an owner", "1/2", true, ""},
		{"a path is text", "src/main.go", false, ""},
		{"a provider prefix is text", "anth", false, ""},
		{"a typo is text", "opneai", false, ""},
		{"a word is text", "banana", false, ""},
		{"empty", " ", true, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ref, ok := c.ResetModel(tc.input, tc.owner)
			got := ""
			if ok {
				got = ref.String()
			}
			if got != tc.want {
				t.Errorf("ResetModel(%q, owner %v) = %q; want %q", tc.input, tc.owner, got, tc.want)
			}
		})
	}
}

func TestEditDistance(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"abc", "", 3},
		{"openai", "openai", 0},
		{"opneai", "openai", 2},
		{"openi", "openai", 1},
		{"bedrok", "bedrock", 1},
		{"zéro", "zero", 1},
	}
	for _, tc := range tests {
		if got := editDistance(tc.a, tc.b); got != tc.want {
			t.Errorf("editDistance(%q, %q) = %d; want %d", tc.a, tc.b, got, tc.want)
		}
	}
}
