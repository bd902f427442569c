package room

import (
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/roomd/roomd/core/session"
	"github.com/roomd/roomd/internal/ids"
	"github.com/roomd/roomd/protocol"
)

// Room phases (stored as these words; the wire uses the same).
const (
	phaseLobby   = "lobby"
	phaseRunning = "running"
	phaseEnded   = "ended"
)

// player is a seat holder. Seat numbers are positions in state.Players:
// compact in the lobby (a removal renumbers the seats after it), fixed while
// a match runs.
type player struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	TokenHash string `json:"tokenHash,omitempty"` // hex SHA-256 of the seat token; never the token
	AI        bool   `json:"ai,omitempty"`
	Ready     bool   `json:"ready,omitempty"`
	// Gone marks a player who left during a match: the seat stays (played
	// by the AI where the game has one) until the match ends.
	Gone bool `json:"gone,omitempty"`
	// Muted: the host muted this seat's chat.
	Muted bool `json:"muted,omitempty"`
	// Player is the player id the embedding site signed this seat's player
	// in with (the token's sub); "" for an anonymous player.
	Player string `json:"player,omitempty"`
}

// matchResult is a finished match as the room keeps it. Its log is the
// session's (and the store's), never copied here.
type matchResult struct {
	Match   int             `json:"match"`
	Status  string          `json:"status"`
	TimeMs  float64         `json:"time"`
	Winners []int           `json:"winners"`
	Ranked  bool            `json:"ranked,omitempty"`
	Score   float64         `json:"score,omitempty"`
	Seed    session.Seed    `json:"seed"`
	Config  json.RawMessage `json:"config"`
	// Ticks is how many ticks a real-time match ran.
	Ticks uint64 `json:"ticks,omitempty"`
	// Detail is the game's own word on the ended match (session.Outcome).
	Detail json.RawMessage `json:"detail,omitempty"`
}

// state is everything durable about a room. Only the room's actor touches
// it, through apply.
type state struct {
	games *session.Registry
	game  session.Game
	setup session.Setup

	Code     string
	Epoch    string
	Rev      uint64
	Game     string
	Settings json.RawMessage
	Phase    string
	Host     string
	Players  []*player
	Match    int
	// MatchRev is the revision at which the current match started;
	// commands seen before it are stale.
	MatchRev uint64
	// MetaRev is the revision of the last change to seats or settings;
	// a start or settings control seen before it is stale.
	MetaRev  uint64
	Result   *matchResult
	Created  int64
	Activity int64
	Closed   bool
	Dedup    map[string]*dedup
	// Access is public, unlisted ("" reads as unlisted) or locked; a locked
	// room's seats need Invite, and watching it too when WatchLocked.
	Access      string
	Invite      string
	WatchLocked bool
	// Daily is set in a room that plays a ranked daily (daily.go).
	Daily *dailyState
	// SpectatorChat: the host lets spectators chat (chat.go).
	SpectatorChat bool
	// Paused is the downtime of graceful restarts during the current match
	// (ms): the match's clock, its moves' times and its result leave it
	// out. Stopped is the host time of the last graceful stop during a
	// running match (0: none since), written into the final snapshot; the
	// next process credits the gap with a kindResume entry (pause.go).
	Paused  int64
	Stopped int64

	sess *session.GameSession
	// roster is the player id of each seat of the match (fixed while it
	// runs; the lobby may renumber seats after it ends).
	roster []string
	// logFrom is the first revision of the current match whose entry the
	// store keeps (the log is not in the snapshot); the match's moves
	// before it — from a room stored before the log was kept — are the
	// first prefix entries of the session's log, kept in the snapshot.
	logFrom uint64
	prefix  int
	// oldRules: the current match was played under rules this build does
	// not run; it was ended on loading, and its stored moves are skipped.
	oldRules bool
	// movers marks, by seat, the seats whose human player made an
	// effective move this match; assisted is true once the AI has held a
	// seat of the match (from its start, or for a player who left). They
	// decide what a match may rank and under whose names (leaderboard.go),
	// and when the AI may first move.
	movers   []bool
	assisted bool
}

// effect says what an applied entry changed, for fan-out.
type effect struct {
	step         session.Step // the game step of a command
	input        bool         // an input of a real-time match: shown by the next tick, not an update
	meta         bool         // seats, settings, phase or host changed
	clock        bool         // the match clock started: publish the room's clocks
	seats        bool         // seat numbers may have moved
	seatsBefore  []string     // with seats: the player ids by seat before the change
	started      bool         // a match started: everyone needs a view
	ended        bool         // the match ended: publish the result
	bySeat       *int
	nameReplaced map[string]string // player id → the name asked for, when changed
	invite       bool              // the room was locked: seated players get its invite
}

// newState makes a room in the lobby. Its settings are kept in the game's
// canonical form, never as the client sent them.
func newState(games *session.Registry, code, epoch, gameID string, settings json.RawMessage, t int64) (*state, error) {
	s := &state{games: games, Code: code, Epoch: epoch, Game: gameID, Settings: settings,
		Phase: phaseLobby, Created: t, Activity: t, Dedup: map[string]*dedup{}}
	if err := s.bind(); err != nil {
		return nil, err
	}
	s.Settings = s.setup.Config
	return s, nil
}

// bind resolves the game and the settings' setup.
func (s *state) bind() error {
	g, ok := s.games.Lookup(s.Game)
	if !ok {
		return fmt.Errorf("%w %q", ErrUnknownGame, s.Game)
	}
	setup, err := g.Configure(s.Settings)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrBadSettings, err)
	}
	s.game, s.setup = g, setup
	return nil
}

func (s *state) seatOf(id string) int {
	for i, p := range s.Players {
		if p.ID == id {
			return i
		}
	}
	return -1
}

// seatIDs returns the player ids by seat.
func (s *state) seatIDs() []string {
	ids := make([]string, len(s.Players))
	for i, p := range s.Players {
		ids[i] = p.ID
	}
	return ids
}

// seatMoved reports whether a change with this effect gave player id (who
// still has a seat, now) another seat number than it had.
func (eff *effect) seatMoved(id string, now int) bool {
	if !eff.seats || id == "" || now < 0 {
		return false
	}
	was := slices.Index(eff.seatsBefore, id)
	return was >= 0 && was != now
}

func (s *state) player(id string) *player {
	if i := s.seatOf(id); i >= 0 {
		return s.Players[i]
	}
	return nil
}

func (s *state) window(id string) *dedup {
	d := s.Dedup[id]
	if d == nil {
		d = &dedup{}
		s.Dedup[id] = d
	}
	return d
}

// apply checks e against the state and, if it is allowed, applies it. A
// refusal leaves the state unchanged. During recovery a refusal means the
// log does not belong to this state.
func (s *state) apply(e *entry) (effect, error) {
	if e.Rev != s.Rev+1 {
		return effect{}, fmt.Errorf("room %s: entry rev %d after %d", s.Code, e.Rev, s.Rev)
	}
	if s.Closed {
		return effect{}, refuse(protocol.CodeWrongPhase, "the room is closed")
	}
	eff, err := s.dispatch(e)
	if err != nil {
		return effect{}, err
	}
	s.Rev = e.Rev
	s.Activity = e.T
	if eff.meta {
		s.MetaRev = e.Rev
	}
	if e.By != "" && e.Aid != "" {
		s.window(e.By).add(dedupEntry{H: actionHash(e.Aid), Rev: e.Rev, Tick: e.Tick})
	}
	if i := s.seatOf(e.By); i >= 0 && e.By != "" {
		eff.bySeat = &i
	}
	return eff, nil
}

func (s *state) dispatch(e *entry) (effect, error) {
	switch e.Kind {
	case kindJoin:
		return s.join(e)
	case kindReady:
		if err := s.need(phaseLobby); err != nil {
			return effect{}, err
		}
		p := s.player(e.By)
		if p == nil || p.AI {
			return effect{}, refuse(protocol.CodeWrongSeat, "only a seated player can be ready")
		}
		p.Ready = e.Ready
		return effect{meta: true}, nil
	case kindSettings:
		return s.settings(e)
	case kindFill:
		return s.fill(e)
	case kindRemove:
		return s.remove(e)
	case kindStart, kindRematch:
		return s.start(e)
	case kindCommand:
		return s.command(e)
	case kindTick:
		return s.ended(e)
	case kindResign:
		if err := s.need(phaseRunning); err != nil {
			return effect{}, err
		}
		seat := s.seatOf(e.By)
		if seat < 0 {
			return effect{}, refuse(protocol.CodeWrongSeat, "only a seated player can resign")
		}
		s.endMatch(e.T, "resigned", others(len(s.Players), seat))
		return effect{meta: true, ended: true}, nil
	case kindStall:
		if err := s.need(phaseRunning); err != nil {
			return effect{}, err
		}
		s.endMatch(e.T, "stalled", nil)
		return effect{meta: true, ended: true}, nil
	case kindLeave:
		return s.leave(e)
	case kindEpoch:
		s.Epoch = e.Epoch
		return effect{meta: true}, nil
	case kindClose:
		s.Closed = true
		return effect{meta: true}, nil
	case kindAccess:
		if err := s.needHost(e.By); err != nil {
			return effect{}, err
		}
		switch e.Access {
		case protocol.AccessPublic, protocol.AccessUnlisted:
			s.Access, s.Invite, s.WatchLocked = e.Access, "", false
		case protocol.AccessLocked:
			if e.Invite == "" {
				return effect{}, refuse(protocol.CodeInvalidControl, "a locked room needs an invite")
			}
			s.Access, s.Invite, s.WatchLocked = e.Access, e.Invite, e.WatchLocked
		default:
			return effect{}, refuse(protocol.CodeInvalidControl, fmt.Sprintf("access must be public, unlisted or locked, not %q", e.Access))
		}
		return effect{meta: true, invite: s.Access == protocol.AccessLocked}, nil
	case kindMute:
		if err := s.needHost(e.By); err != nil {
			return effect{}, err
		}
		p := s.player(e.Target)
		if p == nil || p.AI || p.ID == s.Host {
			return effect{}, refuse(protocol.CodeInvalidControl, "mute needs the seat of another human player")
		}
		p.Muted = e.Muted
		return effect{meta: true}, nil
	case kindChat:
		if err := s.needHost(e.By); err != nil {
			return effect{}, err
		}
		s.SpectatorChat = e.SpectatorChat
		return effect{meta: true}, nil
	case kindResume:
		if s.Phase != phaseRunning || e.Pause < 0 {
			return effect{}, refuse(protocol.CodeWrongPhase, "no running match to resume")
		}
		s.Paused += e.Pause
		s.Stopped = 0
		return effect{clock: true}, nil
	}
	return effect{}, fmt.Errorf("room %s: unknown entry kind %q", s.Code, e.Kind)
}

func (s *state) need(phase string) error {
	if s.Phase != phase {
		return refuse(protocol.CodeWrongPhase, fmt.Sprintf("the room is in the %s, not the %s", s.Phase, phase))
	}
	return nil
}

func (s *state) needHost(id string) error {
	if id == "" || id != s.Host {
		return refuse(protocol.CodeNotHost, "only the host can do this")
	}
	return nil
}

func (s *state) join(e *entry) (effect, error) {
	if err := s.need(phaseLobby); err != nil {
		return effect{}, err
	}
	if len(s.Players)+len(e.Players) > s.setup.Mode.MaxSeats {
		return effect{}, refuse(protocol.CodeRoomFull, fmt.Sprintf("all %d seats are taken", s.setup.Mode.MaxSeats))
	}
	eff := effect{meta: true}
	for _, p := range e.Players {
		np := *p
		if unique := s.uniqueName(np.Name); unique != np.Name {
			if eff.nameReplaced == nil {
				eff.nameReplaced = map[string]string{}
			}
			eff.nameReplaced[np.ID] = np.Name
			np.Name = unique
		}
		s.Players = append(s.Players, &np)
		if s.Host == "" && !np.AI {
			s.Host = np.ID
		}
	}
	return eff, nil
}

func (s *state) settings(e *entry) (effect, error) {
	if err := s.need(phaseLobby); err != nil {
		return effect{}, err
	}
	if err := s.needHost(e.By); err != nil {
		return effect{}, err
	}
	setup, err := s.game.Configure(e.Settings)
	if err != nil {
		return effect{}, refuse(protocol.CodeInvalidSettings, err.Error())
	}
	if len(s.Players) > setup.Mode.MaxSeats {
		return effect{}, refuse(protocol.CodeInvalidSettings,
			fmt.Sprintf("%s takes at most %d seats and %d are taken; remove seats first", setup.Mode.Name, setup.Mode.MaxSeats, len(s.Players)))
	}
	s.Settings, s.setup = setup.Config, setup
	for _, p := range s.Players {
		p.Ready = false
	}
	return effect{meta: true}, nil
}

func (s *state) fill(e *entry) (effect, error) {
	if err := s.need(phaseLobby); err != nil {
		return effect{}, err
	}
	if err := s.needHost(e.By); err != nil {
		return effect{}, err
	}
	if !s.setup.Mode.AI {
		return effect{}, refuse(protocol.CodeInvalidControl, s.setup.Mode.Name+" has no AI")
	}
	if len(e.Players) == 0 {
		return effect{}, refuse(protocol.CodeRoomFull, "no seat to fill")
	}
	return s.join(e)
}

func (s *state) remove(e *entry) (effect, error) {
	if err := s.needHost(e.By); err != nil {
		return effect{}, err
	}
	i := s.seatOf(e.Target)
	if i < 0 {
		return effect{}, refuse(protocol.CodeInvalidControl, "no such seat")
	}
	if e.Target == s.Host {
		return effect{}, refuse(protocol.CodeInvalidControl, "the host cannot remove their own seat; leave instead")
	}
	if s.Phase == phaseRunning {
		// During a match the seat leaves as its player would (moderation):
		// the AI plays it to the end where the mode has one, else the
		// player resigns.
		if s.Players[i].Gone {
			return effect{}, refuse(protocol.CodeInvalidControl, "that seat's player has already left")
		}
		return s.leaveSeat(i, e.T), nil
	}
	before := s.seatIDs()
	s.Players = slices.Delete(s.Players, i, i+1)
	delete(s.Dedup, e.Target)
	return effect{meta: true, seats: true, seatsBefore: before}, nil
}

func (s *state) start(e *entry) (effect, error) {
	if e.Kind == kindStart {
		if err := s.need(phaseLobby); err != nil {
			return effect{}, err
		}
	} else if err := s.need(phaseEnded); err != nil {
		return effect{}, err
	}
	if err := s.needHost(e.By); err != nil {
		return effect{}, err
	}
	eff := effect{meta: true, started: true}
	players := s.Players
	settings, setup := s.Settings, s.setup
	if e.Kind == kindRematch {
		players = slices.DeleteFunc(slices.Clone(players), func(p *player) bool { return p.Gone })
		if len(players) != len(s.Players) {
			eff.seats, eff.seatsBefore = true, s.seatIDs()
		}
		if len(e.Settings) > 0 { // a rematch under new settings
			var err error
			if setup, err = s.game.Configure(e.Settings); err != nil {
				return effect{}, refuse(protocol.CodeInvalidSettings, err.Error())
			}
			settings = setup.Config
			if !setup.Mode.AI && slices.ContainsFunc(players, func(p *player) bool { return p.AI }) {
				return effect{}, refuse(protocol.CodeInvalidSettings, setup.Mode.Name+" has no AI seats; remove them first")
			}
		}
	}
	n := len(players)
	if (n < setup.Mode.MinSeats || n > setup.Mode.MaxSeats) && len(e.Settings) > 0 && e.Kind == kindRematch {
		return effect{}, refuse(protocol.CodeInvalidSettings,
			fmt.Sprintf("%s takes %d to %d seats, there are %d", setup.Mode.Name, setup.Mode.MinSeats, setup.Mode.MaxSeats, n))
	}
	if n < setup.Mode.MinSeats || n > setup.Mode.MaxSeats {
		return effect{}, refuse(protocol.CodeNotReady,
			fmt.Sprintf("%s needs %d to %d seats, there are %d", setup.Mode.Name, setup.Mode.MinSeats, setup.Mode.MaxSeats, n))
	}
	if e.Kind == kindStart {
		for i, p := range s.Players {
			if !p.AI && !p.Ready && p.ID != s.Host {
				return effect{}, refuse(protocol.CodeNotReady, fmt.Sprintf("seat %d (%s) is not ready", i, p.Name))
			}
		}
	}
	rv := e.RV
	if rv == "" {
		rv = legacyRules[s.Game]
	}
	if current := s.game.Info().RulesVersion; rv != "" && rv != current {
		// A stored match of rules this build does not run (a restart onto
		// new rules): it cannot be replayed; it starts and ends at once.
		s.Players, s.Phase, s.Match, s.MatchRev = players, phaseEnded, s.Match+1, e.Rev
		s.Settings, s.setup = settings, setup
		s.sess, s.roster, s.prefix = nil, nil, 0
		s.endOldRules()
		return eff, nil
	}
	sess, err := session.NewSession(s.game, e.Seed, settings, n, nil)
	if err != nil {
		return effect{}, refuse(protocol.CodeInvalidSettings, err.Error())
	}
	s.Settings, s.setup = settings, setup
	s.oldRules = false
	s.Paused, s.Stopped = 0, 0 // a new match's clock
	s.Players = players
	s.sess, s.logFrom, s.prefix = sess, e.Rev+1, 0
	s.roster = make([]string, len(players))
	s.movers, s.assisted = make([]bool, len(players)), false
	for i, p := range players {
		s.roster[i] = p.ID
		s.assisted = s.assisted || p.AI
	}
	s.Phase = phaseRunning
	s.Match++
	s.MatchRev = e.Rev
	s.Result = nil
	return eff, nil
}

func (s *state) command(e *entry) (effect, error) {
	if err := s.need(phaseRunning); err != nil {
		return effect{}, err
	}
	seat := s.seatOf(e.By)
	if seat < 0 {
		return effect{}, refuse(protocol.CodeWrongSeat, "only a seated player can play")
	}
	if s.stepped() {
		return s.input(e, seat)
	}
	_, wasStarted := s.sess.Started()
	step, err := s.sess.ApplyAt(seat, e.Move, float64(e.T-s.Paused))
	if err != nil {
		return effect{}, commandRefusal(err)
	}
	e.Move = step.Move() // stored and echoed: the canonical form, not the client's bytes
	if !s.Players[seat].AI && seat < len(s.movers) {
		s.movers[seat] = true
	}
	eff := effect{step: step}
	if _, started := s.sess.Started(); started && !wasStarted {
		eff.clock = true
	}
	if res, over := s.sess.Result(); over {
		s.Phase = phaseEnded
		s.Result = s.result(res.Status, res.Time, res.Outcome)
		eff.meta, eff.ended = true, true
	}
	return eff, nil
}

// commandRefusal is the refusal of a command the session did not take.
func commandRefusal(err error) error {
	var rej *session.Rejection
	if errors.As(err, &rej) {
		code := rej.Code
		if rej.Malformed && code == session.CodeMalformedInput {
			code = protocol.CodeInvalidCommand
		}
		return refuse(code, rej.Reason)
	}
	return refuse(protocol.CodeInvalidCommand, err.Error())
}

// tick is the current real-time match's tick (0 for other matches).
func (s *state) tick() uint64 {
	if !s.stepped() {
		return 0
	}
	return s.sess.Tick()
}

// stepped reports whether the current match is a real-time one, run on
// its game's fixed step.
func (s *state) stepped() bool { return s.sess != nil && s.sess.Game().Info().Tick != nil }

// input queues a real-time match's input for tick e.Tick, the tick after
// the one the room had run when it took it. Replaying, the ticks before it
// run first: the world at any tick follows from the inputs and their ticks.
func (s *state) input(e *entry, seat int) (effect, error) {
	if e.Tick == 0 {
		return effect{}, fmt.Errorf("room %s: an input of a real-time match without its tick (rev %d)", s.Code, e.Rev)
	}
	if e.Tick <= s.sess.Tick() {
		return effect{}, fmt.Errorf("room %s: an input for tick %d after tick %d ran (rev %d)", s.Code, e.Tick, s.sess.Tick(), e.Rev)
	}
	if err := s.advanceTo(e.Tick - 1); err != nil {
		return effect{}, err
	}
	if s.sess.Status().Over {
		return effect{}, fmt.Errorf("room %s: an input for tick %d of a match over at tick %d (rev %d)", s.Code, e.Tick, s.sess.Tick(), e.Rev)
	}
	if _, err := s.sess.Input(seat, e.Move, float64(e.T-s.Paused)); err != nil {
		return effect{}, commandRefusal(err)
	}
	log := s.sess.Log()
	e.Move = log[len(log)-1].Move // stored: the canonical form, not the client's bytes
	if !s.Players[seat].AI && seat < len(s.movers) {
		s.movers[seat] = true
	}
	return effect{input: true}, nil
}

// advanceTo runs the real-time match's ticks up to tick n. Live, the room
// has run them already; replaying a stored room, they run here. Running
// past the match's end means the entries do not belong to this match.
func (s *state) advanceTo(n uint64) error {
	for s.sess.Tick() < n {
		if s.sess.Status().Over {
			return fmt.Errorf("room %s: the match ended at tick %d, before tick %d", s.Code, s.sess.Tick(), n)
		}
		if _, err := s.sess.Advance(); err != nil {
			return fmt.Errorf("room %s: tick %d: %w", s.Code, s.sess.Tick(), err)
		}
	}
	return nil
}

// ended ends a real-time match at tick e.Tick, where its world ended it.
func (s *state) ended(e *entry) (effect, error) {
	if err := s.need(phaseRunning); err != nil {
		return effect{}, err
	}
	if !s.stepped() || e.Tick < s.sess.Tick() {
		return effect{}, fmt.Errorf("room %s: a tick entry for tick %d (rev %d) does not fit the match", s.Code, e.Tick, e.Rev)
	}
	if err := s.advanceTo(e.Tick); err != nil {
		return effect{}, err
	}
	res, over := s.sess.Result()
	if !over {
		return effect{}, fmt.Errorf("room %s: the match is not over at tick %d (rev %d)", s.Code, e.Tick, e.Rev)
	}
	s.Phase = phaseEnded
	s.Result = s.result(res.Status, res.Time, res.Outcome)
	return effect{meta: true, ended: true}, nil
}

// humanMoved reports whether a human player has made a move this match.
func (s *state) humanMoved() bool { return slices.Contains(s.movers, true) }

// awaitsHuman reports whether the running match waits for its first human
// move: the AI never moves before a human has (it would open the board for
// them, or race ahead while they are still loading the page). A match with
// no human left does not wait.
func (s *state) awaitsHuman() bool {
	if s.Phase != phaseRunning || s.humanMoved() {
		return false
	}
	for _, p := range s.Players {
		if !p.AI {
			return true
		}
	}
	return false
}

// endOldRules ends a match played under rules version rv, which this build
// does not run: its result says so, names no winner and ranks nothing.
func (s *state) endOldRules() {
	s.Phase, s.oldRules = phaseEnded, true
	s.Result = &matchResult{Match: s.Match, Status: "rules-changed", Winners: []int{}, Config: s.Settings}
}

// skipOldRules passes over a stored entry of a match ended for its old
// rules (a move, a resignation): it took its revision, and its action id
// keeps its receipt, but it changes nothing now.
func (s *state) skipOldRules(e *entry) bool {
	if !s.oldRules || e.Rev != s.Rev+1 {
		return false
	}
	switch e.Kind {
	case kindCommand, kindResign:
	default:
		return false
	}
	s.Rev, s.Activity = e.Rev, e.T
	if e.By != "" && e.Aid != "" {
		s.window(e.By).add(dedupEntry{H: actionHash(e.Aid), Rev: e.Rev})
	}
	return true
}

// endMatch ends the match for the room (a resignation, a player who left a
// game with no AI): the winners are given, nothing is ranked.
func (s *state) endMatch(t int64, status string, winners []int) {
	elapsed := 0.0
	if t0, ok := s.sess.Started(); ok {
		elapsed = float64(t-s.Paused) - t0
		if s.stepped() {
			elapsed = s.sess.Elapsed() // ticks, not the host's clock
		}
	}
	s.Phase = phaseEnded
	s.Result = s.result(status, elapsed, session.Outcome{Winners: winners})
}

func (s *state) result(status string, elapsed float64, out session.Outcome) *matchResult {
	winners := out.Winners
	if winners == nil {
		winners = []int{}
	}
	res := &matchResult{Match: s.Match, Status: status, TimeMs: elapsed, Winners: winners, Ranked: out.Ranked,
		Score: out.Score, Seed: s.sess.Seed(), Config: s.sess.Config(), Detail: out.Detail}
	if s.stepped() {
		res.Ticks = s.sess.Tick()
	}
	return res
}

func (s *state) leave(e *entry) (effect, error) {
	i := s.seatOf(e.By)
	if i < 0 {
		return effect{}, refuse(protocol.CodeWrongSeat, "no seat to leave")
	}
	return s.leaveSeat(i, e.T), nil
}

// leaveSeat lets seat i's player go at host time t: during a match the
// seat stays, played by the AI or resigned; otherwise it is given up.
func (s *state) leaveSeat(i int, t int64) effect {
	eff := effect{meta: true}
	p := s.Players[i]
	id := p.ID
	if s.Phase == phaseRunning {
		p.Gone, p.TokenHash = true, ""
		if s.setup.Mode.AI {
			p.AI = true // the game's AI plays the seat to the end of the match
			s.assisted = true
		} else {
			s.endMatch(t, "resigned", others(len(s.Players), i))
			eff.ended = true
		}
	} else {
		eff.seats, eff.seatsBefore = true, s.seatIDs()
		s.Players = slices.Delete(s.Players, i, i+1)
		delete(s.Dedup, id)
	}
	if s.Host == id {
		s.Host = ""
		for _, q := range s.Players {
			if !q.AI && !q.Gone {
				s.Host = q.ID
				break
			}
		}
	}
	return eff
}

func others(n, seat int) []int {
	out := []int{}
	for i := range n {
		if i != seat {
			out = append(out, i)
		}
	}
	return out
}

// clock is the match clock read at now (ms since the Unix epoch).
type clock struct {
	now       int64
	elapsed   float64
	running   bool
	startedAt float64
}

// clock reads the match clock at now.
func (s *state) clock(now int64) clock {
	c := clock{now: now}
	if s.sess == nil {
		return c
	}
	t0, started := s.sess.Started()
	if !started {
		return c
	}
	c.startedAt = t0
	if s.stepped() {
		// A real-time match's time is its ticks: the room's tick messages
		// carry it, and it stands still while the match is paused.
		c.startedAt, c.elapsed = 0, s.sess.Elapsed()
		return c
	}
	switch {
	case s.Phase == phaseRunning:
		c.running = true
		c.elapsed = float64(now-s.Paused) - t0
		c.startedAt = t0 + float64(s.Paused) // in host time: now − startedAt is the elapsed time
	case s.Result != nil:
		c.elapsed = s.Result.TimeMs
	}
	return c
}

// access is the room's access level.
func (s *state) access() string {
	if s.Access == "" {
		return protocol.AccessUnlisted
	}
	return s.Access
}

// admits reports whether invite opens the room: any invite (or none) opens
// a room that is not locked.
func (s *state) admits(invite string) bool {
	return s.Access != protocol.AccessLocked || subtle.ConstantTimeCompare([]byte(invite), []byte(s.Invite)) == 1
}

// byToken returns the seat holder whose token this is.
// byPlayer is the seat the site's player id holds in the room (a player
// who has not left), or nil.
func (s *state) byPlayer(id string) *player {
	if id == "" {
		return nil
	}
	for _, p := range s.Players {
		if p.Player == id && !p.Gone && !p.AI {
			return p
		}
	}
	return nil
}

func (s *state) byToken(token string) *player {
	var found *player
	for _, p := range s.Players {
		if ids.TokenMatches(token, p.TokenHash) && found == nil {
			found = p
		}
	}
	return found
}
