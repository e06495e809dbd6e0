package modeltest

// WireMessage is one message of a request as the vendor's wire carries
// it, for the fake's tool-pairing check: Sent.Wire holds every message of
// the wire's messages array, in order, so an index in it is the index the
// provider's errors name (a Chat Completions system message included).
type WireMessage struct {
	// Role as the wire names it: "system", "user", "assistant", or "tool"
	// (a Chat Completions tool message, which carries one result).
	Role string
	// Text is the message's text (its text blocks joined), results aside.
	Text string
	// Calls are the ids of the tool calls the message makes, in order.
	Calls []string
	// Results are the call ids its tool results answer, in block order.
	// The Messages and Converse APIs want results first in a message, so
	// an index here is the result's content block index.
	Results []string
}

// Unpaired is the first broken tool pairing CheckPairing found, with the
// positions a provider's 400 names.
type Unpaired struct {
	// Orphan: results of message Message answer no call of the message
	// they follow (or answer one twice); Result is the index of the first
	// of them in its Results, IDs all of them.
	//
	// Else the calls IDs of message Message have no result: After is the
	// index of the first message after its results (the message that
	// should have been a Chat Completions tool message).
	Orphan  bool
	Message int
	Result  int
	After   int
	IDs     []string
}

// CheckPairing applies the tool-pairing rule the three providers share,
// message by message:
//   - the calls of a message are all answered by its answers: the tool
//     messages right after it (Chat Completions: one per result), else
//     the next message's results (Messages, Converse: one user message);
//   - each result answers, once, a call of the message its answers
//     follow.
//
// It returns the first violation, false when there is none.
func CheckPairing(wire []WireMessage) (Unpaired, bool) {
	for i, m := range wire {
		if u, bad := orphans(wire, i); bad {
			return u, true
		}
		if len(m.Calls) == 0 {
			continue
		}
		start, end := answers(wire, i)
		answered := map[string]bool{}
		for _, a := range wire[start:end] {
			for _, id := range a.Results {
				answered[id] = true
			}
		}
		var missing []string
		for _, id := range m.Calls {
			if !answered[id] {
				answered[id] = true // name a repeated id once
				missing = append(missing, id)
			}
		}
		if len(missing) > 0 {
			return Unpaired{Message: i, After: end, IDs: missing}, true
		}
	}
	return Unpaired{}, false
}

// answers is the range of the messages that answer the calls of wire[i]:
// the run of tool messages after it, else the next message when it
// carries results, else none.
func answers(wire []WireMessage, i int) (start, end int) {
	end = i + 1
	for end < len(wire) && wire[end].Role == "tool" {
		end++
	}
	if end == i+1 && end < len(wire) && len(wire[end].Results) > 0 {
		end++
	}
	return i + 1, end
}

// orphans checks the results of wire[k] against the calls of the message
// whose answers they are part of.
func orphans(wire []WireMessage, k int) (Unpaired, bool) {
	asker := k - 1
	for asker >= 0 && wire[k].Role == "tool" && wire[asker].Role == "tool" {
		asker--
	}
	calls, seen := map[string]bool{}, map[string]bool{}
	if asker >= 0 {
		for _, id := range wire[asker].Calls {
			calls[id] = true
		}
		for _, earlier := range wire[asker+1 : k] {
			for _, id := range earlier.Results {
				seen[id] = true
			}
		}
	}
	u := Unpaired{Orphan: true, Message: k, Result: -1}
	for r, id := range wire[k].Results {
		if !calls[id] || seen[id] {
			if u.Result < 0 {
				u.Result = r
			}
			u.IDs = append(u.IDs, id)
		}
		seen[id] = true
	}
	return u, len(u.IDs) > 0
}

// Check is what the fake does with a request body before it answers:
// Read it, then, when its tool pairing is broken, the provider's refusal
// (Refuse). refused is false for a body whose pairing is sound.
func (v Vendor) Check(body []byte) (sent Sent, refusal Reply, refused bool, err error) {
	sent, err = v.Read(body)
	if err != nil {
		return Sent{}, Reply{}, false, err
	}
	u, bad := CheckPairing(sent.Wire)
	if !bad {
		return sent, Reply{}, false, nil
	}
	return sent, v.Refuse(u), true, nil
}
