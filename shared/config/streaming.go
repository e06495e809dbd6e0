package config

// Block streaming (agents.defaults.blockStreaming*, the upstream keys):
// whether a chat channel's reply goes out in blocks while the model is
// still writing it, and how the text is cut.
const (
	BlockStreamingOn  = "on"
	BlockStreamingOff = "off"
	// BreakTextEnd sends each block as soon as it is complete;
	// BreakMessageEnd sends a model call's blocks when its message ends.
	BreakTextEnd    = "text_end"
	BreakMessageEnd = "message_end"
	// Where a block is preferably cut.
	BreakParagraph = "paragraph"
	BreakNewline   = "newline"
	BreakSentence  = "sentence"

	DefaultBlockMinChars = 800
	DefaultBlockMaxChars = 1200
)

// BlockStreaming is agents.defaults.blockStreaming*.
type BlockStreaming struct {
	On    bool   // blockStreamingDefault "on" (default "off")
	Break string // blockStreamingBreak: BreakTextEnd (default) or BreakMessageEnd
	Chunk BlockChunk
}

// BlockChunk is agents.defaults.blockStreamingChunk: a block is cut once it
// holds MinChars, at the last Preference break before MaxChars (else a
// newline, a sentence end, a space, or hard at MaxChars).
type BlockChunk struct {
	MinChars   int
	MaxChars   int
	Preference string
}

func blockStreamingKeys() []Key {
	d := func(set func(*AgentDefaults, Value)) func(any, Value) { return on(set) }
	c := func(set func(*BlockChunk, Value)) func(any, Value) { return on(set) }
	return []Key{
		{Path: "agents.defaults.blockStreamingDefault", Kind: enumKind(BlockStreamingOn, BlockStreamingOff), Default: BlockStreamingOff,
			Help: "chat replies in blocks while the model writes (Telegram, Discord)",
			set:  d(func(a *AgentDefaults, v Value) { a.BlockStreaming.On = v.Str() == BlockStreamingOn })},
		{Path: "agents.defaults.blockStreamingBreak", Kind: enumKind(BreakTextEnd, BreakMessageEnd), Default: BreakTextEnd,
			Help: "send each block when it is complete (text_end) or a message's blocks when it ends (message_end)",
			set:  d(func(a *AgentDefaults, v Value) { a.BlockStreaming.Break = v.Str() })},
		{Path: "agents.defaults.blockStreamingChunk", Kind: objectKind, Help: "how the streamed text is cut into blocks",
			open: into(func(a *AgentDefaults, _ Value) *BlockChunk { return &a.BlockStreaming.Chunk })},
		{Path: "agents.defaults.blockStreamingChunk.minChars", Kind: intKind(1, 100_000, "a whole number of characters 1-100000"), Default: DefaultBlockMinChars,
			Help: "a block holds at least this much", set: c(func(b *BlockChunk, v Value) { b.MinChars = v.Int() })},
		{Path: "agents.defaults.blockStreamingChunk.maxChars", Kind: intKind(1, 100_000, "a whole number of characters 1-100000"), Default: DefaultBlockMaxChars,
			Help: "a block holds at most this much", set: c(func(b *BlockChunk, v Value) { b.MaxChars = v.Int() })},
		{Path: "agents.defaults.blockStreamingChunk.breakPreference", Kind: enumKind(BreakParagraph, BreakNewline, BreakSentence), Default: BreakParagraph,
			Help: "where a block is preferably cut", set: c(func(b *BlockChunk, v Value) { b.Preference = v.Str() })},
	}
}
