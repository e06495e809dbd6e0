package awscalls

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"

	"github.com/zero-gateway/zero/cmd/zero/devstack/iampolicy"
)

// schedulerOps maps EventBridge Scheduler's REST routes on one schedule
// (/schedules/<name>) to their operations.
var schedulerOps = map[string]string{
	http.MethodPost: "CreateSchedule", http.MethodPut: "UpdateSchedule",
	http.MethodDelete: "DeleteSchedule", http.MethodGet: "GetSchedule",
}

// parseScheduler maps a call on one schedule to the schedule's ARN
// (…:schedule/<group>/<name>, group "default" when none is named); a
// create or update also needs iam:PassRole on its target's role, as AWS
// checks. Other Scheduler calls are left unparsed.
func parseScheduler(a args) (string, []iampolicy.Request) {
	name, ok := strings.CutPrefix(a.req.URL.Path, "/schedules/")
	op := schedulerOps[a.req.Method]
	if !ok || name == "" || strings.Contains(name, "/") || op == "" {
		return unparsed("scheduler", a.req)
	}
	name, _ = url.PathUnescape(name)
	var body struct {
		GroupName string
		Target    struct{ RoleArn string }
	}
	_ = json.Unmarshal(a.body, &body)
	group := body.GroupName
	if group == "" {
		group = a.req.URL.Query().Get("groupName")
	}
	if group == "" {
		group = "default"
	}
	arn := "arn:aws:scheduler:" + a.region + ":" + a.account + ":schedule/" + group + "/" + name
	out := []iampolicy.Request{{Action: "scheduler:" + op, Resource: arn}}
	if role := body.Target.RoleArn; role != "" && (op == "CreateSchedule" || op == "UpdateSchedule") {
		out = append(out, iampolicy.Request{Action: "iam:PassRole", Resource: role,
			Context: map[string][]string{"iam:PassedToService": {"scheduler.amazonaws.com"}}})
	}
	return "Scheduler." + op, out
}
