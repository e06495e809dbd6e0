package config

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// readKeys decodes doc and returns the table paths read from it, the
// document paths read through a table row, and the warnings.
func readKeys(t *testing.T, doc []byte) (rowsRead map[string]bool, pathsRead map[string]*Key, warnings []string) {
	t.Helper()
	root, err := parseJSON5(doc)
	if err != nil {
		t.Fatal(err)
	}
	rowsRead, pathsRead = map[string]bool{}, map[string]*Key{}
	_, warnings, err = decode(root, func(k *Key, path string) {
		rowsRead[k.Path] = true
		pathsRead[path] = k
	})
	if err != nil {
		t.Fatal(err)
	}
	return rowsRead, pathsRead, warnings
}

// TestSchemaIsWhatIsDecoded: config.schema and decoding are one table.
// A key of the table that no document can reach fails, and so does a key
// some rule reads from the document without a row in the table.
func TestSchemaIsWhatIsDecoded(t *testing.T) {
	t.Run("every key of the table is read from every-key.json5", func(t *testing.T) {
		data, err := os.ReadFile("testdata/every-key.json5")
		if err != nil {
			t.Fatal(err)
		}
		read, _, warnings := readKeys(t, data)
		var schema, decoded []string
		for _, k := range Schema() {
			schema = append(schema, k.Path)
			if read[k.Path] {
				decoded = append(decoded, k.Path)
			}
		}
		if diff := cmp.Diff(schema, decoded); diff != "" {
			t.Errorf("schema keys not read from every-key.json5 (-schema +read):\n%s", diff)
		}
		want := []string{
			"session.idleMinutes: ignored because session.reset or session.resetByType is set (put idleMinutes there)",
			"session.store: ignored: ZERO keeps sessions in DynamoDB",
			"agents.defaults.maxConcurrent: not applied at run time: the main lane's cap is the stack parameter MainLaneMaxConcurrency (the work queue's event source MaximumConcurrency)",
		}
		if diff := cmp.Diff(want, warnings); diff != "" {
			t.Errorf("warnings (-want +got):\n%s", diff)
		}
	})
	docs, _ := os.ReadDir("testdata")
	for _, f := range docs {
		t.Run("every key of "+f.Name()+" is in the schema or warned about", func(t *testing.T) {
			data, err := os.ReadFile("testdata/" + f.Name())
			if err != nil {
				t.Fatal(err)
			}
			_, read, warnings := readKeys(t, data)
			root, _ := parseJSON5(data)
			for _, p := range unaccounted(root, "", nil, read, warnings) {
				t.Errorf("%s is decoded without a row in the table", p)
			}
		})
	}
}

// unaccounted lists the document paths under n (at path, below
// ancestors) that were not read through a table row, nor are inside a
// value a row read whole (a list of ids), nor were warned about.
func unaccounted(n *node, path string, ancestors []string, read map[string]*Key, warnings []string) []string {
	warned := func(p string) bool {
		return slices.ContainsFunc(warnings, func(w string) bool { return strings.HasPrefix(w, p+": ") })
	}
	readWhole := func(p string) bool { k := read[p]; return k != nil && k.Kind.shape == scalarShape }
	if path != "" && read[path] == nil && !warned(path) &&
		!slices.ContainsFunc(ancestors, warned) && !slices.ContainsFunc(ancestors, readWhole) {
		return []string{path}
	}
	var out []string
	below := append(slices.Clip(ancestors), path)
	for _, m := range n.members {
		out = append(out, unaccounted(m.val, child(path, m.key), below, read, warnings)...)
	}
	for i, item := range n.items {
		out = append(out, unaccounted(item, index(path, i), below, read, warnings)...)
	}
	return out
}

func TestTableIsWellFormed(t *testing.T) {
	seen := map[string]bool{}
	for _, k := range Schema() {
		parent, _ := splitPath(k.Path)
		switch {
		case seen[k.Path]:
			t.Errorf("%s: listed twice", k.Path)
		case parent != "" && !seen[parent]:
			t.Errorf("%s: its parent %s is not listed before it", k.Path, parent)
		case k.Kind.Type == "" || k.Help == "":
			t.Errorf("%s: no type or no help", k.Path)
		case k.Kind.shape == scalarShape && k.set == nil && k.Kind.Type != ignoredKind.Type:
			t.Errorf("%s: a scalar that is stored nowhere", k.Path)
		case k.Kind.shape == mapShape || k.Kind.shape == listShape:
			if n := len(rows[k.Path]); n != 1 {
				t.Errorf("%s: a map or list needs exactly one entry row, has %d", k.Path, n)
			}
		}
		seen[k.Path] = true
	}
}

// TestDefaultsComeFromTheTable: Default() is the table's defaults, and
// each call is a fresh Config.
func TestDefaultsComeFromTheTable(t *testing.T) {
	d := Default()
	tests := []struct {
		path string
		got  any
	}{
		{"session.scope", d.Session.Scope},
		{"session.dmScope", d.Session.DMScope},
		{"session.mainKey", d.Session.MainKey},
		{"session.reset.mode", d.Session.Reset.Mode},
		{"session.reset.atHour", d.Session.Reset.AtHour},
		{"session.sendPolicy.default", d.Session.SendPolicy.Default},
		{"session.agentToAgent.maxPingPongTurns", d.Session.AgentToAgent.MaxPingPongTurns},
		{"session.timeZone", d.Session.TimeZone},
		{"agents.defaults.timeoutSeconds", d.Agents.Defaults.TimeoutSeconds},
		{"agents.defaults.compaction.reserveTokens", d.Agents.Defaults.Compaction.ReserveTokens},
		{"agents.defaults.sandbox.sessionToolsVisibility", d.Agents.Defaults.Sandbox.SessionToolsVisibility},
		{"agents.defaults.subagents.archiveAfterMinutes", d.Agents.Defaults.Subagents.ArchiveAfterMinutes},
		{"messages.queue.mode", d.Messages.Queue.Mode},
		{"messages.queue.cap", d.Messages.Queue.Cap},
		{"messages.queue.drop", d.Messages.Queue.Drop},
	}
	defaults := map[string]any{}
	for _, k := range Schema() {
		if k.Default != nil {
			defaults[k.Path] = k.Default
		}
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			if diff := cmp.Diff(defaults[tc.path], tc.got); diff != "" {
				t.Errorf("default (-table +Default()):\n%s", diff)
			}
		})
	}
	t.Run("a fresh Config each call", func(t *testing.T) {
		d.Channels["x"] = Channel{AllowFrom: []string{"*"}}
		d.Messages.Queue.ByChannel["x"] = QueueFollowup
		if again := Default(); len(again.Channels) != 0 || len(again.Messages.Queue.ByChannel) != 0 {
			t.Fatalf("Default() shares maps between calls: %+v", again)
		}
	})
}
