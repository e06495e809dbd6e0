package upstream

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseTranscript(t *testing.T) {
	const head = `{"type":"session","version":3,"id":"s1"}` + "\n"
	tests := []struct {
		name    string
		in      string
		want    Transcript
		wantErr *LineError
	}{
		{
			name: "header and lines, last id, blank lines dropped, spaces compacted",
			in:   head + "\n" + `{"type":"message", "id":"a1","parentId":null}` + "\n" + `{"type":"label","id":"a2"}` + "\n\n",
			want: Transcript{Stream: []byte(head + `{"type":"message","id":"a1","parentId":null}` + "\n" + `{"type":"label","id":"a2"}` + "\n"), Lines: 3, Messages: 1, LastID: "a2"},
		},
		{
			name: "version 4 header",
			in:   `{"type":"session","version":4,"id":"s1"}`,
			want: Transcript{Stream: []byte(`{"type":"session","version":4,"id":"s1"}` + "\n"), Lines: 1},
		},
		{name: "empty", in: "\n", wantErr: &LineError{Line: 1, Msg: "transcript is empty"}},
		{name: "no header", in: `{"type":"message","id":"a1"}`, wantErr: &LineError{Line: 1, Msg: `first line is a "message" line, want the "session" header`}},
		{name: "broken line", in: head + `{"type":"message"` + "\n", wantErr: &LineError{Line: 2}},
		{name: "no type", in: head + "\n" + `{"id":"x"}`, wantErr: &LineError{Line: 3, Msg: `line has no "type"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseTranscript([]byte(tt.in))
			if tt.wantErr != nil {
				le, ok := err.(*LineError)
				if !ok || le.Line != tt.wantErr.Line || (tt.wantErr.Msg != "" && le.Msg != tt.wantErr.Msg) {
					t.Fatalf("err = %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("transcript (-want +got):\n%s", diff)
			}
		})
	}
}
