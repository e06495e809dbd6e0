package metrics

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
)

// The EMF specification's limits.
const (
	maxMetrics    = 100
	maxDimensions = 30
)

// units are the CloudWatch units a metric definition may name.
var units = []string{
	"Seconds", "Microseconds", "Milliseconds", "Bytes", "Kilobytes", "Megabytes", "Gigabytes", "Terabytes",
	"Bits", "Kilobits", "Megabits", "Gigabits", "Terabits", "Percent", "Count",
	"Bytes/Second", "Kilobytes/Second", "Megabytes/Second", "Gigabytes/Second", "Terabytes/Second",
	"Bits/Second", "Kilobits/Second", "Megabits/Second", "Gigabits/Second", "Terabits/Second", "Count/Second", "None",
}

// Parsed is an EMF line as CloudWatch would read it.
type Parsed struct {
	Namespace  string
	Dimensions map[string]string  // dimension name → value
	Values     map[string]float64 // metric name → value
	Units      map[string]string  // metric name → unit
}

// Check reads line as CloudWatch reads an EMF log event and returns its
// metrics, or an error naming the first rule it breaks: a JSON object
// with _aws.Timestamp (epoch ms) and a non-empty CloudWatchMetrics list,
// each with a Namespace, Dimensions (sets of ≤30 names, each a top-level
// string field) and Metrics (≤100, each a Name with a top-level number and
// a known Unit). A line that is not EMF at all is an error too.
func Check(line []byte) (Parsed, error) {
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(line, &doc); err != nil {
		return Parsed{}, fmt.Errorf("not a JSON object: %w", err)
	}
	var meta struct {
		Timestamp         *int64 `json:"Timestamp"`
		CloudWatchMetrics []struct {
			Namespace  string     `json:"Namespace"`
			Dimensions [][]string `json:"Dimensions"`
			Metrics    []struct {
				Name string `json:"Name"`
				Unit string `json:"Unit"`
			} `json:"Metrics"`
		} `json:"CloudWatchMetrics"`
	}
	raw, ok := doc["_aws"]
	if !ok {
		return Parsed{}, errors.New("no _aws metadata")
	}
	if err := json.Unmarshal(raw, &meta); err != nil {
		return Parsed{}, fmt.Errorf("_aws: %w", err)
	}
	if meta.Timestamp == nil || *meta.Timestamp <= 0 {
		return Parsed{}, errors.New("_aws.Timestamp is missing or not epoch milliseconds")
	}
	if len(meta.CloudWatchMetrics) == 0 {
		return Parsed{}, errors.New("_aws.CloudWatchMetrics is empty")
	}
	p := Parsed{Dimensions: map[string]string{}, Values: map[string]float64{}, Units: map[string]string{}}
	for _, d := range meta.CloudWatchMetrics {
		if d.Namespace == "" {
			return Parsed{}, errors.New("a metric directive has no Namespace")
		}
		p.Namespace = d.Namespace
		if d.Dimensions == nil {
			return Parsed{}, errors.New("a metric directive has no Dimensions")
		}
		for _, set := range d.Dimensions {
			if len(set) > maxDimensions {
				return Parsed{}, fmt.Errorf("a dimension set has %d names; at most %d", len(set), maxDimensions)
			}
			for _, name := range set {
				var v string
				if err := json.Unmarshal(doc[name], &v); err != nil {
					return Parsed{}, fmt.Errorf("dimension %q is not a top-level string field", name)
				}
				p.Dimensions[name] = v
			}
		}
		if len(d.Metrics) == 0 || len(d.Metrics) > maxMetrics {
			return Parsed{}, fmt.Errorf("a metric directive has %d metrics; want 1 to %d", len(d.Metrics), maxMetrics)
		}
		for _, m := range d.Metrics {
			var v float64
			if err := json.Unmarshal(doc[m.Name], &v); m.Name == "" || err != nil {
				return Parsed{}, fmt.Errorf("metric %q has no top-level number", m.Name)
			}
			if m.Unit != "" && !slices.Contains(units, m.Unit) {
				return Parsed{}, fmt.Errorf("metric %q: unknown unit %q", m.Name, m.Unit)
			}
			p.Values[m.Name], p.Units[m.Name] = v, m.Unit
		}
	}
	return p, nil
}
