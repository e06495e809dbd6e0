package config

// Commands is commands.*: operator commands and the agent's gateway tool.
type Commands struct {
	// Restart enables the agent's gateway tool (config.get, config.schema,
	// config.apply, config.patch, restart, update.run); default false.
	Restart bool
}

// commandKeys are commands.*.
func commandKeys() []Key {
	return []Key{
		{Path: "commands", Kind: objectKind, Help: "operator commands", open: into(func(c *Config, _ Value) *Commands { return &c.Commands })},
		{Path: "commands.restart", Kind: boolKind, Default: false,
			Help: "offer the agent's gateway tool (read and change zero.json; restart answers there is nothing to restart); default false",
			set:  on(func(c *Commands, v Value) { c.Restart = v.Bool() })},
	}
}
