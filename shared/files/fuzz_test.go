package files

import (
	"strings"
	"testing"
)

// FuzzPatch: no apply_patch input, however malformed, crashes the parser
// or the matcher; an accepted patch names a path for every operation.
func FuzzPatch(f *testing.F) {
	f.Add("*** Begin Patch\n*** Add File: memory/a.md\n+hello\n*** End Patch\n")
	f.Add("*** Begin Patch\n*** Update File: MEMORY.md\n@@ facts\n-old\n+new\n*** End Patch\n")
	f.Add("*** Begin Patch\n*** Delete File: scratch/x.txt\n*** End Patch\n")
	f.Add("*** Begin Patch\n*** Update File: a.md\n*** Move to: b.md\n@@\n a\n-b\n+c\n*** End of File\n*** End Patch\n")
	f.Fuzz(func(t *testing.T, input string) {
		ops, err := ParsePatch(input)
		if err != nil {
			return
		}
		for _, op := range ops {
			if strings.TrimSpace(op.Path) == "" {
				t.Fatalf("ParsePatch accepted an operation without a path: %+v", op)
			}
			_, _ = applyHunks(op.Path, "a\nb\nc\n"+input, op.Hunks)
		}
	})
}
