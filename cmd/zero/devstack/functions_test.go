package devstack

import (
	"testing"

	"github.com/zero-gateway/zero/cmd/zero/devstack/provision"
)

// TestPoolSize: a function behind several event source mappings gets one
// process per invocation each mapping allows (its lanes never wait for
// each other); an explicit size wins; routes and the rest get the small
// defaults.
func TestPoolSize(t *testing.T) {
	lanes := []provision.EventSource{
		{LogicalID: "RunnerWork", Function: "Runner", MaximumConcurrency: 20},
		{LogicalID: "RunnerSubagents", Function: "Runner", MaximumConcurrency: 10},
		{LogicalID: "WorkerJobs", Function: "Worker"},
		{LogicalID: "BigJobs", Function: "Big", MaximumConcurrency: 500},
	}
	tests := []struct {
		name     string
		function string
		sizes    map[string]int
		want     int
	}{
		{name: "two lanes add up", function: "Runner", want: 30},
		{name: "explicit size wins", function: "Runner", sizes: map[string]int{"Runner": 3}, want: 3},
		{name: "mapping without a cap", function: "Worker", want: 8},
		{name: "cap bounded locally", function: "Big", want: maxLocalPool},
		{name: "behind a route", function: "Gateway", want: 2},
		{name: "neither", function: "Lonely", want: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &Stack{
				opts:      Options{PoolSizes: tt.sizes},
				Resources: &provision.Resources{EventSources: lanes, Routes: []provision.Route{{Method: "POST", Path: "/rpc", Function: "Gateway"}}},
			}
			if got := s.poolSize(tt.function); got != tt.want {
				t.Errorf("poolSize(%s) = %d; want %d", tt.function, got, tt.want)
			}
		})
	}
}
