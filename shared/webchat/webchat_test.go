package webchat

import (
	"context"
	"testing"

	"github.com/zero-gateway/zero/shared/session"
)

func TestSender(t *testing.T) {
	tests := []struct {
		name  string
		reply string
	}{
		{name: "plain text stays one message", reply: "hello"},
		{name: "long text is not split", reply: string(make([]byte, 10000))},
		{name: "markup is kept for the page to escape", reply: "<script>alert(1)</script>"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Sender{}.Render(tc.reply)
			if len(got) != 1 || got[0] != tc.reply {
				t.Fatalf("Render = %q; want the reply as one message", got)
			}
			if err := (Sender{}).Post(context.Background(), session.DeliveryContext{Channel: Channel, To: To}, got[0]); err != nil {
				t.Fatalf("Post: %v", err)
			}
		})
	}
}
