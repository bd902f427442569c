package room

import (
	"crypto/subtle"
	"encoding/json"
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
	// TimedOut and RemainingMs: a match with a turn clock (turnclock.go).
	TimedOut    []int   `json:"timedOut,omitempty"`
	RemainingMs []int64 `json:"remainingMs,omitempty"`
}

// state is everything durable about a room. Only the room's actor touches
// it, through apply.
type state struct {
	games *session.Registry
	game  session.Game
	setup roomSetup

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
	// Rated is set in a rated room (rated.go).
	Rated *ratedState
	// Quick marks a room made by quick play: it starts its match by
	// itself after a countdown (quick.go).
	Quick bool
	// SpectatorChat: the host lets spectators chat (chat.go).
	SpectatorChat bool
	// Paused is the downtime of graceful restarts during the current match
	// (ms): the match's clock, its moves' times and its result leave it
	// out. Stopped is the host time of the last graceful stop during a
	// running match (0: none since), written into the final snapshot; the
	// next process credits the gap with a kindResume entry (pause.go).
	Paused  int64
	Stopped int64
	// TurnClock is the current (or last) match's turn clock, when the
	// room's settings have one (turnclock.go).
	TurnClock *turnClock

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
	s.Settings = s.setup.Settings
	return s, nil
}

// bind resolves the game and the settings' setup.
func (s *state) bind() error {
	g, ok := s.games.Lookup(s.Game)
	if !ok {
		return fmt.Errorf("%w %q", ErrUnknownGame, s.Game)
	}
	setup, err := configure(g, s.Settings)
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
	if eff.started {
		s.startClock(e.T)
	} else if s.TurnClock != nil && !eff.input {
		s.moveClock(e.T)
	}
	if eff.ended && s.TurnClock != nil && s.Result != nil {
		s.Result.RemainingMs = slices.Clone(s.TurnClock.Left)
		s.Result.TimedOut = slices.Clone(s.TurnClock.TimedOut)
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
	if eff, done, err := s.ratedDispatch(e); done {
		return eff, err
	}
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
	case kindTimeout:
		return s.timeout(e)
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
	setup, err := configure(s.game, e.Settings)
	if err != nil {
		return effect{}, refuse(protocol.CodeInvalidSettings, err.Error())
	}
	if len(s.Players) > setup.Mode.MaxSeats {
		return effect{}, refuse(protocol.CodeInvalidSettings,
			fmt.Sprintf("%s takes at most %d seats and %d are taken; remove seats first", setup.Mode.Name, setup.Mode.MaxSeats, len(s.Players)))
	}
	s.Settings, s.setup = setup.Settings, setup
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
		if s.setup.Mode.AI && s.Rated == nil { // a rated seat resigns
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
