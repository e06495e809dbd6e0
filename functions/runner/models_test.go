package main

import (
	"log/slog"
	"strings"
	"testing"

	"github.com/zero-gateway/zero/shared/model"
)

// TestAddBedrock: the provider exists only when the list names a model,
// and a Bedrock default model must be on it. (The list's matching:
// shared/bedrock's TestAllowlisted.)
func TestAddBedrock(t *testing.T) {
	log := slog.New(slog.DiscardHandler)
	tests := []struct {
		name     string
		list     []string
		def      string
		provider bool
		wantErr  string
	}{
		{"empty list: no provider", nil, "zero/echo", false, ""},
		{"empty list, Bedrock default", nil, "bedrock/amazon.nova-pro-v1:0", false, "ZERO_BEDROCK_MODELS"},
		{"listed", []string{"amazon.nova-pro-v1:0", "anthropic.claude-sonnet-4-20250514-v1:0"}, "bedrock/us.amazon.nova-pro-v1:0", true, ""},
		{"default not listed", []string{"amazon.nova-pro-v1:0"}, "bedrock/amazon.nova-lite-v1:0", true, "not among ZERO_BEDROCK_MODELS"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			def, err := model.ParseRef(tt.def)
			if err != nil {
				t.Fatal(err)
			}
			models := map[string]model.Client{}
			err = addBedrock(models, def, tt.list, nil, log)
			if _, ok := models["bedrock"]; ok != tt.provider {
				t.Errorf("bedrock provider present = %v, want %v", ok, tt.provider)
			}
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("addBedrock = %v, want error %q", err, tt.wantErr)
			}
		})
	}
}
