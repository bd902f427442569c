package room

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/roomd/roomd/core/session"
	"github.com/roomd/roomd/store"
)

// SnapshotVersion is the version of the room snapshots this build writes.
// It reads this one and version 1 (STORAGE.md, "Stored format").
const SnapshotVersion = 2

// snapshot is a room as it is stored: the room's own types, never wire
// types, so that the stored format changes only with this version. It does
// not grow with the match: the match is its header and the game's latest
// checkpoint, and its moves stay in the store's log (store.Snapshot.Keep).
type snapshot struct {
	V        int               `json:"v"`
	Code     string            `json:"code"`
	Epoch    string            `json:"epoch"`
	Rev      uint64            `json:"rev"`
	Game     string            `json:"game"`
	Settings json.RawMessage   `json:"settings"`
	Phase    string            `json:"phase"`
	Host     string            `json:"host"`
	Players  []*player         `json:"players"`
	Match    int               `json:"match"`
	MatchRev uint64            `json:"matchRev"`
	MetaRev  uint64            `json:"metaRev"`
	Result   *matchResult      `json:"result,omitempty"`
	Created  int64             `json:"created"`
	Activity int64             `json:"activity"`
	Closed   bool              `json:"closed,omitempty"`
	Dedup    map[string]*dedup `json:"dedup"`
	Session  *storedMatch      `json:"session,omitempty"`
	// Access, Invite and WatchLocked: see state (absent: unlisted).
	Access      string `json:"access,omitempty"`
	Invite      string `json:"invite,omitempty"`
	WatchLocked bool   `json:"watchLocked,omitempty"`
	// Daily: see state (absent: not a daily room).
	Daily *dailyState `json:"daily,omitempty"`
	// Rated: see state (absent: not a rated room).
	Rated *ratedState `json:"rated,omitempty"`
	// Quick: see state (absent: not made by quick play).
	Quick bool `json:"quick,omitempty"`
	// SpectatorChat, Paused and Stopped: see state.
	SpectatorChat bool  `json:"spectatorChat,omitempty"`
	Paused        int64 `json:"paused,omitempty"`
	Stopped       int64 `json:"stopped,omitempty"`
	// TurnClock: see state (absent: the room has no clock, or no match
	// has started under it).
	TurnClock *turnClock `json:"turnClock,omitempty"`
}

// storedMatch is the current (or last) match.
type storedMatch struct {
	session.Header
	// Roster is the player id of each seat, fixed for the match: the command
	// entries in the log name their player, the session's log a seat.
	Roster []string `json:"roster"`
	// LogFrom is the first revision whose entry the store keeps for this
	// match: the match's moves are the command entries from there on.
	LogFrom uint64 `json:"logFrom"`
	// Prefix are the match's moves from before LogFrom, for a room that
	// version 1 stored with the whole log in its snapshot.
	Prefix []session.Entry `json:"prefix,omitempty"`
	// Checkpoint is the game's saved state at the snapshot, when the game
	// keeps checkpoints: a restore replays only the moves after it.
	Checkpoint *session.Checkpoint `json:"checkpoint,omitempty"`
	// Movers are the seats whose human player has moved this match, and
	// Assisted says the AI has held a seat of it (state.movers,
	// state.assisted). A snapshot written before they existed has neither:
	// they are then worked out from the log and the players (trackLegacy).
	Movers   []int `json:"movers,omitempty"`
	Assisted bool  `json:"assisted,omitempty"`
	// Ticks is how many ticks a real-time match had run at the snapshot:
	// a restore runs them again (from the checkpoint's tick, with the
	// stored inputs) before the entries after the snapshot.
	Ticks uint64 `json:"ticks,omitempty"`
}

// encode returns the room's snapshot and the first revision whose entry the
// store must keep after it (0: none it covers).
func (s *state) encode() (data []byte, keep uint64, err error) {
	snap := snapshot{V: SnapshotVersion, Code: s.Code, Epoch: s.Epoch, Rev: s.Rev, Game: s.Game,
		Settings: s.Settings, Phase: s.Phase, Host: s.Host, Players: s.Players, Match: s.Match,
		MatchRev: s.MatchRev, MetaRev: s.MetaRev, Result: s.Result, Created: s.Created,
		Activity: s.Activity, Closed: s.Closed, Dedup: s.Dedup, Access: s.Access, Invite: s.Invite, WatchLocked: s.WatchLocked, Daily: s.Daily, SpectatorChat: s.SpectatorChat, Paused: s.Paused, Stopped: s.Stopped, TurnClock: s.TurnClock,
		Rated: s.Rated, Quick: s.Quick}
	if s.sess != nil {
		cp, err := s.sess.Save()
		if err != nil {
			return nil, 0, fmt.Errorf("room %s: %w", s.Code, err)
		}
		snap.Session = &storedMatch{Header: s.sess.Header(), Roster: s.roster, LogFrom: s.logFrom,
			Prefix: s.sess.Log()[:s.prefix], Checkpoint: cp, Assisted: s.assisted, Ticks: s.sess.Tick()}
		for seat, moved := range s.movers {
			if moved {
				snap.Session.Movers = append(snap.Session.Movers, seat)
			}
		}
		keep = s.logFrom
	}
	data, err = json.Marshal(snap)
	return data, keep, err
}

// rebuild restores a room from its stored snapshot and the entries the
// store keeps (in revision order): the match from its checkpoint (or its
// header) and its moves, then every entry after the snapshot through the
// reducer.
func rebuild(games *session.Registry, data []byte, entries []store.Entry) (*state, error) {
	var head struct {
		V    int    `json:"v"`
		Code string `json:"code"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, fmt.Errorf("room snapshot: %w", err)
	}
	var (
		s   *state
		err error
	)
	switch head.V {
	case SnapshotVersion:
		s, err = decodeSnapshot(games, data, entries)
	case 1:
		s, err = decodeV1(games, data)
	default:
		return nil, fmt.Errorf("room snapshot %s: version %d, this build reads 1 and %d", head.Code, head.V, SnapshotVersion)
	}
	if err != nil {
		return nil, err
	}
	for _, se := range entries {
		if se.Rev <= s.Rev {
			continue // covered by the snapshot
		}
		e, err := decodeEntry(se.Data)
		if err != nil {
			return nil, fmt.Errorf("room %s: entry %d: %w", s.Code, se.Rev, err)
		}
		if s.skipOldRules(e) {
			continue
		}
		if _, err := s.apply(e); err != nil {
			return nil, fmt.Errorf("room %s: replay rev %d (%s): %w", s.Code, e.Rev, e.Kind, err)
		}
	}
	return s, nil
}

func decodeSnapshot(games *session.Registry, data []byte, entries []store.Entry) (*state, error) {
	var snap snapshot
	if err := json.Unmarshal(data, &snap); err != nil {
		return nil, fmt.Errorf("room snapshot: %w", err)
	}
	s := &state{games: games, Code: snap.Code, Epoch: snap.Epoch, Rev: snap.Rev, Game: snap.Game,
		Settings: snap.Settings, Phase: snap.Phase, Host: snap.Host, Players: snap.Players,
		Match: snap.Match, MatchRev: snap.MatchRev, MetaRev: snap.MetaRev, Result: snap.Result,
		Created: snap.Created, Activity: snap.Activity, Closed: snap.Closed, Dedup: snap.Dedup,
		Access: snap.Access, Invite: snap.Invite, WatchLocked: snap.WatchLocked, Daily: snap.Daily, SpectatorChat: snap.SpectatorChat, Paused: snap.Paused, Stopped: snap.Stopped,
		TurnClock: snap.TurnClock, Rated: snap.Rated, Quick: snap.Quick}
	if s.Dedup == nil {
		s.Dedup = map[string]*dedup{}
	}
	if err := s.bind(); err != nil {
		return nil, fmt.Errorf("room snapshot %s: %w", snap.Code, err)
	}
	if m := snap.Session; m != nil {
		log, err := matchLog(m, snap.Rev, entries)
		if err != nil {
			return nil, fmt.Errorf("room snapshot %s: %w", snap.Code, err)
		}
		game, ok := games.Lookup(m.Game)
		if !ok {
			return nil, fmt.Errorf("room snapshot %s: %w %q", snap.Code, ErrUnknownGame, m.Game)
		}
		sess, err := session.Restore(game, m.Header, m.Checkpoint, log, m.Ticks, nil)
		switch {
		case errors.Is(err, session.ErrRulesVersion):
			s.oldRulesLoaded()
		case err != nil:
			return nil, fmt.Errorf("room snapshot %s: %w", snap.Code, err)
		default:
			s.sess, s.roster, s.logFrom, s.prefix = sess, m.Roster, m.LogFrom, len(m.Prefix)
			s.movers, s.assisted = make([]bool, len(m.Roster)), m.Assisted
			for _, seat := range m.Movers {
				if seat >= 0 && seat < len(s.movers) {
					s.movers[seat] = true
				}
			}
			if len(m.Movers) == 0 && !m.Assisted {
				s.trackLegacy()
			}
		}
	}
	return s, nil
}

// matchLog is the match's moves up to the snapshot at rev: its prefix, then
// the command entries the store keeps from LogFrom, which must all be there.
func matchLog(m *storedMatch, rev uint64, entries []store.Entry) ([]session.Entry, error) {
	seatOf := make(map[string]int, len(m.Roster))
	for i, id := range m.Roster {
		seatOf[id] = i
	}
	log := append([]session.Entry(nil), m.Prefix...)
	next := m.LogFrom
	var paused int64 // the match's downtime credited so far (kindResume): its moves' times leave it out
	for _, se := range entries {
		if se.Rev < m.LogFrom || se.Rev > rev {
			continue
		}
		if se.Rev != next {
			return nil, fmt.Errorf("the store has entry %d where the match's entry %d should be", se.Rev, next)
		}
		next++
		e, err := decodeEntry(se.Data)
		if err != nil {
			return nil, fmt.Errorf("entry %d: %w", se.Rev, err)
		}
		if e.Kind == kindResume {
			paused += e.Pause
		}
		if e.Kind != kindCommand {
			continue
		}
		seat, ok := seatOf[e.By]
		if !ok {
			return nil, fmt.Errorf("entry %d: a command by %q, who has no seat in the match", se.Rev, e.By)
		}
		log = append(log, session.Entry{Seat: seat, Move: e.Move, T: float64(e.T - paused), Tick: e.Tick})
	}
	if next <= rev {
		return nil, fmt.Errorf("the store keeps the match's entries only up to %d of %d", next-1, rev)
	}
	return log, nil
}

// trackLegacy works out movers and assisted for a match stored before they
// were kept: a seat that moved and is not the AI's now was moved by its
// human, and a match with an AI seat now was assisted. (A player who left
// after moving counts as the AI's: the match is not ranked, which is the
// safe side.)
func (s *state) trackLegacy() {
	for _, p := range s.Players {
		s.assisted = s.assisted || p.AI
	}
	for _, e := range s.sess.Log() {
		if e.Seat >= 0 && e.Seat < len(s.movers) && e.Seat < len(s.Players) && !s.Players[e.Seat].AI {
			s.movers[e.Seat] = true
		}
	}
}

// oldRulesLoaded handles a stored match of rules this build does not run:
// a running one ends ("rules-changed"); a finished one keeps its result but
// not its moves. Either way the room loads, and a rematch plays the new
// rules.
func (s *state) oldRulesLoaded() {
	s.sess, s.roster, s.prefix = nil, nil, 0
	if s.Phase == phaseRunning {
		s.endOldRules()
	}
	s.oldRules = true
}

// snapshotV1 is the format version 1 wrote: wire-shaped results and the
// match's whole log inside its session snapshot.
type snapshotV1 struct {
	snapshot
	Result *struct {
		Match   int             `json:"match"`
		Status  string          `json:"status"`
		TimeMs  float64         `json:"time"`
		Winners []int           `json:"winners"`
		Seed    session.Seed    `json:"seed"`
		Config  json.RawMessage `json:"config"`
	} `json:"result,omitempty"`
	Session json.RawMessage `json:"session,omitempty"`
}

// decodeV1 reads a version 1 snapshot. Its match keeps its whole log as the
// prefix (the store trimmed what that snapshot covered); the entries the
// store has after it follow.
func decodeV1(games *session.Registry, data []byte) (*state, error) {
	var snap snapshotV1
	if err := json.Unmarshal(data, &snap); err != nil {
		return nil, fmt.Errorf("room snapshot: %w", err)
	}
	s := &state{games: games, Code: snap.Code, Epoch: snap.Epoch, Rev: snap.Rev, Game: snap.Game,
		Settings: snap.Settings, Phase: snap.Phase, Host: snap.Host, Players: snap.Players,
		Match: snap.Match, MatchRev: snap.MatchRev, MetaRev: snap.MetaRev,
		Created: snap.Created, Activity: snap.Activity, Closed: snap.Closed, Dedup: snap.snapshot.Dedup}
	if s.Dedup == nil {
		s.Dedup = map[string]*dedup{}
	}
	if r := snap.Result; r != nil {
		// Version 1 ranked a won match: the only kind it recorded.
		s.Result = &matchResult{Match: r.Match, Status: r.Status, TimeMs: r.TimeMs, Winners: r.Winners,
			Ranked: r.Status == "won", Seed: r.Seed, Config: r.Config}
	}
	if err := s.bind(); err != nil {
		return nil, fmt.Errorf("room snapshot %s: %w", snap.Code, err)
	}
	if len(snap.Session) > 0 {
		sess, err := session.DecodeLegacySnapshot(games, snap.Session, nil)
		if errors.Is(err, session.ErrRulesVersion) {
			s.oldRulesLoaded()
			return s, nil
		}
		if err != nil {
			return nil, fmt.Errorf("room snapshot %s: %w", snap.Code, err)
		}
		s.sess, s.logFrom, s.prefix = sess, snap.Rev+1, len(sess.Log())
		for _, p := range s.Players {
			s.roster = append(s.roster, p.ID)
		}
		s.movers = make([]bool, len(s.roster))
		s.trackLegacy()
	}
	return s, nil
}
