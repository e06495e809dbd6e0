package cron

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Expression is a schedule as EventBridge Scheduler takes it:
// ScheduleExpression, ScheduleExpressionTimezone, and for a rate the
// StartDate that anchors it. OneShot marks an at() schedule (created with
// ActionAfterCompletion DELETE).
type Expression struct {
	Expr     string
	TimeZone string     // IANA zone; "UTC" when the job names none
	Start    *time.Time // rate(): the anchor, when one is set
	OneShot  bool
}

// SchedulerExpression translates s (validated) into EventBridge Scheduler's
// terms: at(yyyy-mm-ddThh:mm:ss) in UTC for kind at, rate(n unit) for
// kind every (the largest of days, hours, minutes that divides the
// interval), cron(6 fields) in the job's time zone for kind cron (a
// 5-field expression is converted: see parseCron).
func SchedulerExpression(s Schedule) (Expression, error) {
	if err := s.Validate(); err != nil {
		return Expression{}, err
	}
	tz := s.TZ
	if tz == "" {
		tz = "UTC"
	}
	switch s.Kind {
	case KindAt:
		// Scheduler has one-minute precision; seconds are kept as given.
		t := time.UnixMilli(s.AtMs).UTC()
		return Expression{Expr: "at(" + t.Format("2006-01-02T15:04:05") + ")", TimeZone: "UTC", OneShot: true}, nil
	case KindEvery:
		e := Expression{Expr: rate(s.EveryMs), TimeZone: tz}
		if s.AnchorMs > 0 {
			t := time.UnixMilli(s.AnchorMs).UTC()
			e.Start = &t
		}
		return e, nil
	}
	c, err := parseCron(s.Expr)
	if err != nil {
		return Expression{}, err
	}
	return Expression{Expr: "cron(" + c.aws + ")", TimeZone: tz}, nil
}

// rate is rate(n unit) for an interval of whole minutes.
func rate(everyMs int64) string {
	minutes := everyMs / time.Minute.Milliseconds()
	n, unit := minutes, "minute"
	switch {
	case minutes%(24*60) == 0:
		n, unit = minutes/(24*60), "day"
	case minutes%60 == 0:
		n, unit = minutes/60, "hour"
	}
	if n != 1 {
		unit += "s"
	}
	return fmt.Sprintf("rate(%d %s)", n, unit)
}

// cronSpec is a parsed cron expression: the set of each field, and the
// expression in EventBridge's 6-field form.
type cronSpec struct {
	minute, hour, dom, month, dow [64]bool // dow: 0 = Sunday
	domAny, dowAny                bool     // "*" or "?"
	years                         map[int]bool
	aws                           string
}

var (
	monthNames = map[string]int{"JAN": 1, "FEB": 2, "MAR": 3, "APR": 4, "MAY": 5, "JUN": 6, "JUL": 7, "AUG": 8, "SEP": 9, "OCT": 10, "NOV": 11, "DEC": 12}
	dayNames   = map[string]int{"SUN": 0, "MON": 1, "TUE": 2, "WED": 3, "THU": 4, "FRI": 5, "SAT": 6}
)

// parseCron parses a cron expression in one of three forms:
//
//   - 5 fields, standard cron: minute hour day-of-month month day-of-week
//     (0-7, Sunday 0 or 7). It becomes EventBridge's 6 fields by adding the
//     year "*", writing "?" for the day field that is "*" (EventBridge
//     wants exactly one of the two as "?") and shifting day-of-week
//     numbers to EventBridge's 1-7 (Sunday 1). Restricting both day fields
//     (cron's "either matches") has no EventBridge form and is refused.
//   - 6 fields with a "?" day field: EventBridge's own form (minute hour
//     day-of-month month day-of-week year, Sunday 1), kept as is.
//   - 6 fields without "?": upstream's seconds-first form; the seconds
//     must be 0 (one-minute precision) and the rest is read as 5 fields.
//
// Supported in each field: *, ?, numbers, names (JAN-DEC, SUN-SAT),
// ranges a-b, lists a,b and steps */n or a-b/n (no steps in
// day-of-week); years in the 6th field as numbers, ranges and lists. L, W
// and # are refused (they read as "not a number").
func parseCron(expr string) (*cronSpec, error) {
	f, awsForm, err := cronFields(expr)
	if err != nil {
		return nil, err
	}
	c := &cronSpec{}
	if err = fill(c.minute[:], f[0], 0, 59, nil, "minute"); err != nil {
		return nil, err
	}
	if err = fill(c.hour[:], f[1], 0, 23, nil, "hour"); err != nil {
		return nil, err
	}
	c.domAny = f[2] == "*" || f[2] == "?"
	if err = fill(c.dom[:], f[2], 1, 31, nil, "day-of-month"); err != nil {
		return nil, err
	}
	if err = fill(c.month[:], strings.ToUpper(f[3]), 1, 12, monthNames, "month"); err != nil {
		return nil, err
	}
	c.dowAny = f[4] == "*" || f[4] == "?"
	if strings.Contains(f[4], "/") {
		return nil, invalidf("schedule.expr: day-of-week: steps are not supported, in %q", expr)
	}
	if awsForm {
		err = c.awsDays(f, expr)
	} else {
		err = c.standardDays(f, expr)
	}
	if err != nil {
		return nil, err
	}
	return c, nil
}

// cronFields splits expr into its five standard fields, or the six of
// EventBridge's form (awsForm: a "?" day field and a year); a standard
// six-field expression with seconds must have 0 seconds.
func cronFields(expr string) (f []string, awsForm bool, err error) {
	f = strings.Fields(expr)
	switch {
	case len(f) == 5:
		return f, false, nil
	case len(f) == 6 && (f[2] == "?" || f[4] == "?"):
		return f, true, nil
	case len(f) == 6 && f[0] != "0":
		return nil, false, invalidf("schedule.expr: a 6-field expression with seconds must have 0 seconds (one-minute precision), got %q", f[0])
	case len(f) == 6:
		return f[1:], false, nil
	}
	return nil, false, invalidf("schedule.expr: want 5 fields (minute hour day-of-month month day-of-week), got %d in %q", len(f), expr)
}

// awsDays reads the day-of-week (1-7, Sunday 1) and year fields of
// EventBridge's form, exactly one day field being "?".
func (c *cronSpec) awsDays(f []string, expr string) error {
	if f[2] == "?" && f[4] == "?" || f[2] != "?" && f[4] != "?" {
		return invalidf("schedule.expr: exactly one of day-of-month and day-of-week must be \"?\", in %q", expr)
	}
	var set [64]bool
	names := map[string]int{}
	for k, v := range dayNames {
		names[k] = v + 1
	}
	if err := fill(set[:], strings.ToUpper(f[4]), 1, 7, names, "day-of-week"); err != nil {
		return err
	}
	for d := 1; d <= 7; d++ {
		c.dow[d-1] = set[d]
	}
	years, err := parseYears(f[5])
	if err != nil {
		return err
	}
	c.years, c.aws = years, strings.Join(f, " ")
	return nil
}

// parseYears reads a year field ("*": any, nil; else years and ranges
// within 1970-2199).
func parseYears(field string) (map[int]bool, error) {
	if field == "*" {
		return nil, nil
	}
	years := map[int]bool{}
	for _, part := range strings.Split(field, ",") {
		lo, hi, ok := strings.Cut(part, "-")
		a, err1 := strconv.Atoi(lo)
		b := a
		var err2 error
		if ok {
			b, err2 = strconv.Atoi(hi)
		}
		if err1 != nil || err2 != nil || a < 1970 || b > 2199 || a > b {
			return nil, invalidf("schedule.expr: year: %q is not a year or range of years (1970-2199)", part)
		}
		for y := a; y <= b; y++ {
			years[y] = true
		}
	}
	return years, nil
}

// standardDays reads a standard day-of-week field (0-7, Sunday 0 or 7)
// and derives EventBridge's form, which cannot restrict both day fields.
func (c *cronSpec) standardDays(f []string, expr string) error {
	dowField := strings.ToUpper(f[4])
	var set [64]bool
	if err := fill(set[:], dowField, 0, 7, dayNames, "day-of-week"); err != nil {
		return err
	}
	for d := 0; d <= 6; d++ {
		c.dow[d] = set[d]
	}
	c.dow[0] = c.dow[0] || set[7]
	if !c.domAny && !c.dowAny {
		return invalidf("schedule.expr: EventBridge cannot restrict both day-of-month and day-of-week; make one of them *, in %q", expr)
	}
	dom, dow := f[2], awsDow(dowField)
	if c.dowAny {
		dow = "?"
	} else {
		dom = "?"
	}
	c.aws = strings.Join([]string{f[0], f[1], dom, f[3], dow, "*"}, " ")
	return nil
}

// awsDow shifts a standard day-of-week field (0-7, Sunday 0 or 7) to
// EventBridge's numbering (1-7, Sunday 1); names stay.
func awsDow(field string) string {
	parts := strings.Split(field, ",")
	for i, part := range parts {
		lo, hi, isRange := strings.Cut(part, "-")
		conv := func(s string) string {
			n, err := strconv.Atoi(s)
			if err != nil {
				return s
			}
			return strconv.Itoa(n%7 + 1)
		}
		if isRange {
			a, errA := strconv.Atoi(lo)
			b, errB := strconv.Atoi(hi)
			if errA == nil && errB == nil && b == 7 && a > 0 {
				// a-7 ends on Sunday: EventBridge's week starts on Sunday,
				// so it is a-6 plus Sunday.
				parts[i] = "1," + conv(lo) + "-7"
				if a == 6 {
					parts[i] = "1,7"
				}
				continue
			}
			parts[i] = conv(lo) + "-" + conv(hi)
			continue
		}
		parts[i] = conv(part)
	}
	return strings.Join(parts, ",")
}

// fill sets the members of one field in set.
func fill(set []bool, field string, min, max int, names map[string]int, name string) error {
	bad := func(why string) error {
		return invalidf("schedule.expr: %s: %s, in field %q (allowed %d-%d)", name, why, field, min, max)
	}
	if field == "*" || field == "?" {
		for i := min; i <= max; i++ {
			set[i] = true
		}
		return nil
	}
	num := func(s string) (int, error) {
		if n, ok := names[s]; ok {
			return n, nil
		}
		n, err := strconv.Atoi(s)
		if err != nil {
			return 0, bad(fmt.Sprintf("%q is not a number", s))
		}
		if n < min || n > max {
			return 0, bad(fmt.Sprintf("%d is out of range", n))
		}
		return n, nil
	}
	for _, part := range strings.Split(field, ",") {
		rng, stepStr, hasStep := strings.Cut(part, "/")
		step := 1
		if hasStep {
			s, err := strconv.Atoi(stepStr)
			if err != nil || s < 1 {
				return bad(fmt.Sprintf("step %q is not a positive number", stepStr))
			}
			step = s
		}
		lo, hi := min, max
		switch {
		case rng == "*":
		case strings.Contains(rng, "-"):
			a, b, _ := strings.Cut(rng, "-")
			var err error
			if lo, err = num(a); err != nil {
				return err
			}
			if hi, err = num(b); err != nil {
				return err
			}
			if lo > hi {
				return bad(fmt.Sprintf("range %q runs backwards", rng))
			}
		default:
			n, err := num(rng)
			if err != nil {
				return err
			}
			lo, hi = n, n
			if hasStep {
				hi = max
			}
		}
		for i := lo; i <= hi; i += step {
			set[i] = true
		}
	}
	return nil
}

// next is the first minute after now (in loc) that c matches.
func (c *cronSpec) next(now time.Time, loc *time.Location) (time.Time, bool) {
	t := now.In(loc).Truncate(time.Minute).Add(time.Minute)
	limit := t.AddDate(5, 0, 0)
	for t.Before(limit) {
		if c.years != nil && !c.years[t.Year()] {
			t = time.Date(t.Year()+1, 1, 1, 0, 0, 0, 0, loc)
			continue
		}
		if !c.month[int(t.Month())] {
			t = time.Date(t.Year(), t.Month()+1, 1, 0, 0, 0, 0, loc)
			continue
		}
		if !c.dayMatches(t) {
			t = time.Date(t.Year(), t.Month(), t.Day()+1, 0, 0, 0, 0, loc)
			continue
		}
		if !c.hour[t.Hour()] {
			t = time.Date(t.Year(), t.Month(), t.Day(), t.Hour()+1, 0, 0, 0, loc)
			continue
		}
		if !c.minute[t.Minute()] {
			t = t.Add(time.Minute)
			continue
		}
		return t, true
	}
	return time.Time{}, false
}

func (c *cronSpec) dayMatches(t time.Time) bool {
	switch {
	case c.domAny && c.dowAny:
		return true
	case c.domAny:
		return c.dow[int(t.Weekday())]
	case c.dowAny:
		return c.dom[t.Day()]
	}
	return c.dom[t.Day()] || c.dow[int(t.Weekday())]
}
