package ssmparam

import (
	"context"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ssm"
	"github.com/aws/aws-sdk-go-v2/service/ssm/types"

	"github.com/zero-gateway/zero/shared/fault"
)

// PutIfVersion replaces the parameter's value only if its version is
// still version (as Fetch returned it; "" means the parameter must not
// exist yet) and returns the new version. A parameter written by someone
// else since is fault.Conflict: read it again and redo the change.
//
// SSM has no conditional overwrite, so the check is built on its version
// numbers, which every write raises by exactly one:
//
//  1. version "": PutParameter without Overwrite, which SSM refuses
//     atomically when the parameter exists (ParameterAlreadyExists).
//  2. Otherwise GetParameter: another version is a conflict, nothing
//     written. Then PutParameter: the new version must be version+1.
//  3. A higher one means a write landed between the check and the put
//     (a window of one round trip). Ours is then undone: the value of the
//     version just before ours (the other writer's) is put back, unless
//     the parameter moved on again meanwhile, and the call is a conflict,
//     so the other writer's change is the one that stands. The undo's own
//     put is checked the same way: a third write landing inside it is put
//     back in turn (undo).
//
// What SSM cannot give: while our value stands (the undo's two round
// trips), a reader sees it, and a compare-and-set based on its version
// succeeds and stops the undo; that writer's document then holds our
// change and lacks the first writer's. Closing that needs a lock beside
// the parameter.
//
// AWS calls: create 1; replace 2, 4-5 on a lost race (3 more per write
// landing inside the undo). IAM: ssm:GetParameter
// and ssm:PutParameter on the parameter.
func (p *Parameter) PutIfVersion(ctx context.Context, data []byte, version string) (string, error) {
	if version == "" {
		return p.create(ctx, data)
	}
	want, err := strconv.ParseInt(version, 10, 64)
	if err != nil {
		return "", fault.New(fault.Invalid, "parameter %s: version %q is not a version number", p.name, version)
	}
	_, current, err := p.Fetch(ctx)
	if fault.Is(err, fault.NotFound) {
		return "", fault.New(fault.Conflict, "parameter %s was deleted since version %s; read it again", p.name, version)
	}
	if err != nil {
		return "", err
	}
	if current != version {
		return "", fault.New(fault.Conflict, "parameter %s changed since version %s (now %s); read it again and redo the change", p.name, version, current)
	}
	got, err := p.Put(ctx, data)
	if err != nil {
		return "", err
	}
	if n, _ := strconv.ParseInt(got, 10, 64); n != want+1 {
		p.undo(ctx, n)
		return "", fault.New(fault.Conflict, "parameter %s was written by someone else while this change was written; read it again and redo the change", p.name)
	}
	return got, nil
}

// create writes the parameter only when it does not exist.
func (p *Parameter) create(ctx context.Context, data []byte) (string, error) {
	out, err := p.client.PutParameter(ctx, &ssm.PutParameterInput{
		Name:  aws.String(p.name),
		Value: aws.String(string(data)),
		Type:  types.ParameterTypeString,
		Tier:  types.ParameterTierIntelligentTiering,
	})
	if err != nil {
		err = classify(err, "create parameter "+p.name)
		if fault.Is(err, fault.Conflict) {
			return "", fault.Wrap(fault.Conflict, err, "parameter %s was created by someone else; read it again and redo the change", p.name)
		}
		return "", err
	}
	return strconv.FormatInt(out.Version, 10), nil
}

// undoTries bounds how often undo puts a value back: each try after the
// first needs yet another write to land inside the previous try.
const undoTries = 3

// undo puts back the value of the version before ours (the write that
// raced ours) while ours, version ours, is still the current one. Its own
// put has the same window as PutIfVersion's: when it does not get
// ours+1, a write landed between its check and its put and was just
// overwritten, so that write's value is put back in turn (up to
// undoTries). Best effort: a failure leaves the last value put, and the
// caller reports a conflict either way.
func (p *Parameter) undo(ctx context.Context, ours int64) {
	for range undoTries {
		got, ok := p.restore(ctx, ours)
		if !ok || got == ours+1 {
			return
		}
		ours = got
	}
}

// restore puts the value of version ours-1 back while version ours is
// current, returning the version it put; ok is false when it put nothing.
func (p *Parameter) restore(ctx context.Context, ours int64) (int64, bool) {
	out, err := p.client.GetParameter(ctx, &ssm.GetParameterInput{
		Name: aws.String(p.name + ":" + strconv.FormatInt(ours-1, 10)), WithDecryption: aws.Bool(true),
	})
	if err != nil || out.Parameter == nil {
		return 0, false
	}
	if _, current, err := p.Fetch(ctx); err != nil || current != strconv.FormatInt(ours, 10) {
		return 0, false
	}
	got, err := p.Put(ctx, []byte(aws.ToString(out.Parameter.Value)))
	if err != nil {
		return 0, false
	}
	n, err := strconv.ParseInt(got, 10, 64)
	return n, err == nil
}
