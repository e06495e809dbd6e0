package config

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSharedMainWarning(t *testing.T) {
	const hint = `every direct chat shares one conversation and its history; set session.dmScope to "per-channel-peer" to give each sender their own`
	tests := []struct {
		name string
		doc  string
		want []string // the session.dmScope warnings
	}{
		{"one sender", `{channels: {telegram: {allowFrom: ["7"]}}}`, nil},
		{"nobody", `{}`, nil},
		{"anyone", `{channels: {telegram: {allowFrom: ["*"]}}}`,
			[]string{`session.dmScope: "main" while channels.telegram.allowFrom admits anyone ("*"): ` + hint}},
		{"two senders", `{channels: {telegram: {allowFrom: ["7", "8"]}}}`,
			[]string{`session.dmScope: "main" while allowFrom admits 2 senders (telegram:7, telegram:8): ` + hint}},
		{"two senders on two channels", `{channels: {telegram: {allowFrom: ["7"]}, discord: {allowFrom: ["9"]}}}`,
			[]string{`session.dmScope: "main" while allowFrom admits 2 senders (discord:9, telegram:7): ` + hint}},
		{"one person linked over two channels", `{session: {identityLinks: {ana: ["telegram:7", "discord:9"]}}, channels: {telegram: {allowFrom: ["7"]}, discord: {allowFrom: ["9"]}}}`, nil},
		{"a group chat id is not a sender", `{channels: {telegram: {allowFrom: ["7", "-1001234"]}}}`, nil},
		{"per-channel-peer gives each sender a session", `{session: {dmScope: "per-channel-peer"}, channels: {telegram: {allowFrom: ["*"]}}}`, nil},
		{"global scope shares by choice", `{session: {scope: "global"}, channels: {telegram: {allowFrom: ["*"]}}}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, w := range mustParse(t, tt.doc).Warnings() {
				if strings.HasPrefix(w, "session.dmScope:") {
					got = append(got, w)
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
		})
	}
}
