package main

import (
	"github.com/zero-gateway/zero/shared/discord"
	"github.com/zero-gateway/zero/shared/dynamo"
	"github.com/zero-gateway/zero/shared/ingest"
	"github.com/zero-gateway/zero/shared/telegram"
	"github.com/zero-gateway/zero/shared/turn"
)

// The adapters satisfy the engine's ports structurally: shared/dynamo,
// shared/telegram and shared/discord speak the domain types (sessionstate,
// receipt, stopmark, outbox, run, chataction) and do not import
// shared/turn. The engine finds its optional capabilities (Committer,
// Mover, Stops, Failures, PartSender, Messenger, AttachmentSource) by type
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
	_ turn.Messenger        = (*telegram.Client)(nil)
	_ turn.AttachmentSource = (*telegram.Client)(nil)
	_ turn.Sender           = (*discord.Client)(nil)
	_ turn.PartSender       = (*discord.Client)(nil)
	_ turn.Messenger        = (*discord.Client)(nil)
	_ turn.AttachmentSource = (*discord.Client)(nil)
	_ turn.Door             = (*ingest.Door)(nil)
	_ turn.Messenger        = (*telegramSender)(nil)
	_ turn.AttachmentSource = (*telegramSender)(nil)
	_ turn.PartSender       = (*discordSender)(nil)
	_ turn.Messenger        = (*discordSender)(nil)
	_ turn.AttachmentSource = (*discordSender)(nil)
)
