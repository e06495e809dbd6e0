package main

import (
	"github.com/zero-gateway/zero/shared/discord"
	"github.com/zero-gateway/zero/shared/dynamo"
	"github.com/zero-gateway/zero/shared/ingest"
	"github.com/zero-gateway/zero/shared/telegram"
	"github.com/zero-gateway/zero/shared/tools/messaging"
	"github.com/zero-gateway/zero/shared/tools/sessions"
	"github.com/zero-gateway/zero/shared/turn"
)

// The adapters satisfy the engine's ports structurally: shared/dynamo,
// shared/telegram and shared/discord speak the domain types (sessionstate,
// receipt, stopmark, outbox, run, chataction) and do not import
// shared/turn. The engine finds its optional capabilities (Committer,
// Mover, Stops, Failures, PartSender, AttachmentSource, Typist), and hands the
// session tools the store's Reader and Updater (shared/tools/sessions) and
// the message tool its Messengers (shared/tools/messaging), by type
// assertion at run time, so a signature that drifts would switch a feature
// off silently; these assertions make it a compile error here instead.
var (
	_ turn.Store            = (*dynamo.Store)(nil)
	_ turn.Committer        = (*dynamo.Store)(nil)
	_ turn.Mover            = (*dynamo.Store)(nil)
	_ turn.Stops            = (*dynamo.Store)(nil)
	_ turn.StopMarker       = (*dynamo.Store)(nil)
	_ turn.Failures         = (*dynamo.Store)(nil)
	_ ingest.StopMarker     = (*dynamo.Store)(nil)
	_ turn.Sender           = (*telegram.Client)(nil)
	_ messaging.Messenger   = (*telegram.Client)(nil)
	_ turn.AttachmentSource = (*telegram.Client)(nil)
	_ turn.Sender           = (*discord.Client)(nil)
	_ turn.PartSender       = (*discord.Client)(nil)
	_ messaging.Messenger   = (*discord.Client)(nil)
	_ turn.AttachmentSource = (*discord.Client)(nil)
	_ turn.Door             = (*ingest.Door)(nil)
	_ sessions.Reader       = (*dynamo.Store)(nil)
	_ sessions.Updater      = (*dynamo.Store)(nil)
	_ turn.Sender           = (*telegram.RotatingClient)(nil)
	_ turn.Typist           = (*telegram.RotatingClient)(nil)
	_ turn.Typist           = (*telegram.Client)(nil)
	_ messaging.Messenger   = (*telegram.RotatingClient)(nil)
	_ turn.AttachmentSource = (*telegram.RotatingClient)(nil)
	_ turn.PartSender       = (*discord.RotatingClient)(nil)
	_ messaging.Messenger   = (*discord.RotatingClient)(nil)
	_ turn.AttachmentSource = (*discord.RotatingClient)(nil)
)
