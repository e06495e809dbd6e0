package ingress

import (
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
)

// TestLanes: the lanes are the work queue and, when its URL is given, the
// sub-agent queue (without it there is one lane).
func TestLanes(t *testing.T) {
	const work, sub = "http://sqs.local/123456789012/work.fifo", "http://sqs.local/123456789012/sub.fifo"
	tests := []struct {
		name         string
		main, subURL string
		wantQueues   []string
		wantSubagent bool
	}{
		{name: "both lanes", main: work, subURL: sub, wantQueues: []string{"work.fifo", "sub.fifo"}, wantSubagent: true},
		{name: "main lane only", main: work, wantQueues: []string{"work.fifo"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lanes, queues := Lanes(sqs.NewFromConfig(aws.Config{Region: "us-east-1"}), tt.main, tt.subURL)
			var names []string
			for _, q := range queues {
				names = append(names, q.Name())
			}
			if strings.Join(names, ",") != strings.Join(tt.wantQueues, ",") {
				t.Errorf("queues %v; want %v", names, tt.wantQueues)
			}
			if lanes.Main == nil || (lanes.Subagent != nil) != tt.wantSubagent {
				t.Errorf("lanes %+v; want a main lane and subagent lane %v", lanes, tt.wantSubagent)
			}
		})
	}
}
