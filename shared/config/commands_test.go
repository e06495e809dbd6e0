package config

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCommandsRestart(t *testing.T) {
	for _, tc := range []struct {
		name    string
		doc     string
		want    Commands
		wantErr bool
	}{
		{name: "absent is off", doc: `{}`, want: Commands{}},
		{name: "enabled", doc: `{commands: {restart: true}}`, want: Commands{Restart: true}},
		{name: "disabled", doc: `{commands: {restart: false}}`, want: Commands{}},
		{name: "not a boolean", doc: `{commands: {restart: 'yes'}}`, wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := Parse([]byte(tc.doc))
			if (err != nil) != tc.wantErr {
				t.Fatalf("Parse(%s) error = %v, want error %v", tc.doc, err, tc.wantErr)
			}
			if err != nil {
				return
			}
			if diff := cmp.Diff(tc.want, cfg.Commands); diff != "" {
				t.Errorf("Commands (-want +got):\n%s", diff)
			}
		})
	}
}
