package room

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/roomd/roomd/core/session"
	"github.com/roomd/roomd/protocol"
)

// Verification is what `roomd verify` and POST /api/verify say of a
// finished match: whether the host's disclosed secret matches the
// commitment it published at the start, and whether the logged moves,
// replayed on the board that secret gives, end the way the host said.
// Nothing in it takes the host's word: it is computed from the record.
type Verification struct {
	Game string `json:"game"`
	// Fair is true when the commitment and the outcome both check out.
	Fair       bool        `json:"fair"`
	Commitment CheckResult `json:"commitment"`
	// Replay is the replay's own verdict on the log.
	Replay  session.Verdict `json:"replay"`
	Outcome CheckResult     `json:"outcome"`
}

// CheckResult is one check: whether it holds, and why (or why not).
type CheckResult struct {
	OK     bool   `json:"ok"`
	Detail string `json:"detail"`
}

// ErrBadRecord wraps a record verify cannot read.
var ErrBadRecord = errors.New("room: unreadable match record")

// Verify checks a finished match as GET /api/rooms/{code}/replay serves it
// ({game, seed, config, seats, log, result}); a top-level "commitment" —
// the one the player saw in room.commitment when the match started — is
// checked too, and takes the place of result.commitment when that is
// missing. It is pure: it needs only the game's rules.
func Verify(games *session.Registry, data []byte) (Verification, error) {
	if len(data) > MaxReplayBytes {
		return Verification{}, fmt.Errorf("%w: a record is at most %d bytes", ErrBadRecord, MaxReplayBytes)
	}
	var head struct {
		protocol.Replay
		Commitment string `json:"commitment"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return Verification{}, fmt.Errorf("%w: %v", ErrBadRecord, err)
	}
	g, ok := games.LookupVersion(head.Game, head.RulesVersion)
	if !ok {
		if _, known := games.Lookup(head.Game); known {
			return Verification{}, fmt.Errorf("%w: %s rules %q are not known to this build", ErrBadRecord, head.Game, head.RulesVersion)
		}
		return Verification{}, fmt.Errorf("%w %q", ErrUnknownGame, head.Game)
	}
	rec, err := session.DecodeRecord(data)
	if err != nil {
		return Verification{}, fmt.Errorf("%w: %v", ErrBadRecord, err)
	}
	if limit := g.Info().MovesCap(); len(rec.Log) > limit {
		return Verification{}, fmt.Errorf("%w: %d moves, more than the %d a match may have", ErrBadRecord, len(rec.Log), limit)
	}
	out := Verification{Game: head.Game, Commitment: checkCommitment(rec.Seed, head.Commitment, head.Result.Commitment)}
	verdict, match := session.ReplayMatch(g, rec)
	out.Replay = verdict
	out.Outcome = checkOutcome(verdict, match, head.Result)
	if i, err := session.FirstRefused(g, rec); out.Outcome.OK && i >= 0 {
		// The room logged only what it accepted: on the match the secret
		// deals, every entry must be accepted again (a card in the hand it
		// was played from, a mine where it exploded).
		out.Outcome = CheckResult{Detail: fmt.Sprintf("entry %d of the log is refused on the match the secret deals (%v): the moves were not played on it", i, err)}
	}
	out.Fair = out.Commitment.OK && out.Outcome.OK
	return out, nil
}

// checkCommitment checks the secret against the commitments given (the
// player's own, the result's; either may be empty).
func checkCommitment(seed session.Seed, seen, published string) CheckResult {
	got := seed.Commitment()
	switch {
	case seed.Generator() != session.ChaCha8:
		return CheckResult{Detail: fmt.Sprintf("the match used the %v generator, which has no secret and no commitment: it cannot be checked", seed.Generator())}
	case seen == "" && published == "":
		return CheckResult{Detail: "no commitment given: pass the one published at the start (room.commitment) as \"commitment\""}
	case seen != "" && seen != got:
		return CheckResult{Detail: fmt.Sprintf("SHA-256 of the disclosed secret is %s, not the commitment %s seen at the start", got, seen)}
	case published != "" && published != got:
		return CheckResult{Detail: fmt.Sprintf("SHA-256 of the disclosed secret is %s, not the result's commitment %s", got, published)}
	}
	return CheckResult{OK: true, Detail: "SHA-256 of the disclosed secret is " + got + ", the commitment published at the start: the board was fixed before the first move"}
}

// checkOutcome compares the replayed match with the result the host gave.
// A match the room ended (a resignation, a player who left) does not reach
// the game's end: its moves must then all replay and stop short of it.
func checkOutcome(v session.Verdict, m session.Match, res protocol.Result) CheckResult {
	if m == nil {
		return CheckResult{Detail: "the config does not start a match: " + reasonOf(v)}
	}
	st := m.Status()
	if !st.Over {
		if v.Reason != nil && *v.Reason == session.ReasonNotTerminal && res.Status != st.Phase && res.Status != "" && !v.Valid {
			return CheckResult{OK: true, Detail: fmt.Sprintf("every move replays, and the match was ended by the room (%s) before the game's end", res.Status)}
		}
		return CheckResult{Detail: "the log does not replay to the end the result claims: " + reasonOf(v)}
	}
	winners := st.Outcome.Winners
	if winners == nil {
		winners = []int{}
	}
	switch {
	case !v.Valid:
		return CheckResult{Detail: "the log does not replay: " + reasonOf(v)}
	case v.Status != res.Status:
		return CheckResult{Detail: fmt.Sprintf("replayed, the match ends %q; the result says %q", v.Status, res.Status)}
	case v.Time != res.TimeMs:
		return CheckResult{Detail: fmt.Sprintf("replayed, the match takes %v ms; the result says %v", v.Time, res.TimeMs)}
	case !slices.Equal(winners, res.Winners):
		return CheckResult{Detail: fmt.Sprintf("replayed, the winners are %v; the result says %v", winners, res.Winners)}
	}
	return CheckResult{OK: true, Detail: fmt.Sprintf("replayed on the board the secret gives, the match ends %q in %v ms, winners %v, as the result says", v.Status, v.Time, winners)}
}

func reasonOf(v session.Verdict) string {
	if v.Reason == nil {
		return "no reason given"
	}
	return *v.Reason
}
