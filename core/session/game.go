package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"sync"
)

// Info describes a registered game to rooms and clients.
type Info struct {
	ID           string `json:"id"`
	Name         string `json:"name"`
	RulesVersion string `json:"rulesVersion"`
	Modes        []Mode `json:"modes"`
	// Ranking says how results rank on the game's leaderboards; nil when it
	// keeps none.
	Ranking *Ranking `json:"ranking,omitempty"`
	// Tick is the fixed step of a real-time game (its rules implement
	// Stepper); nil for a game driven by commands.
	Tick *Rate `json:"tick,omitempty"`
	// TurnClock says the game's matches may be played on a turn clock (a
	// room's settings.clock): a game of turns between opponents. A seat's
	// turn is the stretch of the match it is pending. OnTimeout is what
	// happens to a seat whose time runs out: TimeoutResign (the default,
	// ""), the seat resigns — it loses a two-seat match and leaves a larger
	// one; or TimeoutAI, the game's AI plays the seat's turn. A real-time
	// game (Tick) has no turns to time.
	TurnClock bool   `json:"turnClock,omitempty"`
	OnTimeout string `json:"onTimeout,omitempty"`
	// MaxMoves bounds the moves one match may log (a room refuses more).
	// Zero means DefaultMaxMoves.
	MaxMoves int `json:"maxMoves,omitempty"`
	// MaxViewBytes and MaxEventBytes bound what the game sends one viewer:
	// a projection's JSON, and the JSON array of one step's events. The
	// game kit checks them over many matches; a room may rely on them.
	// Zero means undeclared (the kit fails).
	MaxViewBytes  int `json:"maxViewBytes,omitempty"`
	MaxEventBytes int `json:"maxEventBytes,omitempty"`
	// ConfigSchema and CommandSchema are JSON Schemas (draft 2020-12) of the
	// config a match starts from and of one command.
	ConfigSchema  json.RawMessage `json:"configSchema"`
	CommandSchema json.RawMessage `json:"commandSchema"`
}

// The rules a game may declare for a seat whose turn clock runs out
// (Info.OnTimeout).
const (
	TimeoutResign = "resign"
	TimeoutAI     = "ai"
)

// DefaultMaxMoves is the bound of a match's log for a game that sets none.
const DefaultMaxMoves = 10_000

// MovesCap returns the game's bound of a match's log.
func (i Info) MovesCap() int {
	if i.MaxMoves > 0 {
		return i.MaxMoves
	}
	return DefaultMaxMoves
}

// Mode is one way to play a game, with its seat limits.
type Mode struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	MinSeats int    `json:"minSeats"`
	MaxSeats int    `json:"maxSeats"`
	// AI is true when seats of this mode can be filled with the game's AI.
	AI bool `json:"ai"`
}

// Setup is what a room learns from a config before any match starts.
type Setup struct {
	// Config is the config's canonical JSON: decoded into the game's type
	// and encoded again, so that unknown keys and client formatting are
	// gone. It is what a room stores and echoes, never the client's bytes.
	Config json.RawMessage
	Mode   Mode
	// Board names the leaderboard this config's results go to ("" for none),
	// e.g. a Minesweeper level id.
	Board string
}

// Command is one command in erased form: who sent it, its JSON, and the host
// time (ms) it was accepted at.
type Command struct {
	Seat Seat
	Move json.RawMessage
	T    float64
}

// Errors of the erased form.
var (
	// ErrNoCheckpoint is returned by Checkpoint and Resume for a game that
	// does not implement Checkpointer.
	ErrNoCheckpoint = errors.New("session: the game keeps no checkpoints")
	// ErrNotStepped is returned by Advance for a game driven by commands,
	// and ErrStepped by Apply for a fixed-step game.
	ErrNotStepped = errors.New("session: the game has no fixed step")
	ErrStepped    = errors.New("session: a fixed-step game takes its commands as inputs of its next tick")
)

// Game is the type-erased form of a game's rules, driven with JSON configs
// and commands. It is safe for concurrent use; a Match is not.
type Game interface {
	Info() Info
	// Configure validates a config and says how it is played.
	Configure(config json.RawMessage) (Setup, error)
	// New starts a match for seats players.
	New(seed Seed, config json.RawMessage, seats int) (Match, error)
	// Resume rebuilds a match from its Checkpoint, or fails with
	// ErrNoCheckpoint.
	Resume(seed Seed, config json.RawMessage, seats int, checkpoint []byte) (Match, error)
}

// Match is one running game in erased form. It is owned by one goroutine.
type Match interface {
	// Apply decodes and plays one command. The error is a *Rejection when
	// the command is refused; the state is then unchanged. A fixed-step
	// game answers ErrStepped.
	Apply(c Command) (Step, error)
	// Check decodes a command without playing it — what a fixed-step game's
	// input must pass before it is queued — and returns its canonical JSON.
	Check(c Command) (json.RawMessage, error)
	// Advance runs tick (numbered from 1) of a fixed-step game with the
	// inputs that take effect at it, in arrival order. A game driven by
	// commands answers ErrNotStepped.
	Advance(tick uint64, inputs []Command) (Step, error)
	Status() Status
	Pending() []Seat
	// View is viewer's projection, ready for json.Marshal.
	View(viewer Seat) any
	// Audience groups viewers that see the same thing right now.
	Audience(viewer Seat) int
	// AIMove chooses a command for seat from its own view, drawing from src
	// (GameSession.AIMove gives the match's AI source); ok is false when
	// the game has no AI or the seat has nothing to do.
	AIMove(seat Seat, src Source) (command json.RawMessage, ok bool)
	// Checkpoint encodes the state (JSON), or fails with ErrNoCheckpoint.
	Checkpoint() ([]byte, error)
}

// Step is the outcome of one accepted command or tick.
type Step interface {
	// Move is the accepted command's canonical JSON (nil for a tick): what
	// a log stores instead of the client's bytes.
	Move() json.RawMessage
	// Beats are the events viewer may see, ready for json.Marshal. Call it
	// before the match's next Apply.
	Beats(viewer Seat) any
	// AppendBeats appends the JSON array of Beats(viewer) to dst, using the
	// events' own AppendJSON when they have one (the hot path of a room).
	AppendBeats(dst []byte, viewer Seat) ([]byte, error)
}

// CanonicalParser is implemented by moves that recognise their own
// canonical JSON — what a room stores and what a well-behaved client sends
// — without encoding/json: ParseCanonical reports whether data is exactly
// one such encoding, byte for byte, and sets the move when it is. Anything
// else is decoded the strict way. It is the hot path of a real-time game,
// whose inputs arrive many times a second.
type CanonicalParser interface {
	ParseCanonical(data []byte) bool
}

// JSONAppender is implemented by events and moves that write their own
// JSON.
type JSONAppender interface {
	AppendJSON(dst []byte) []byte
}

// Canonicaler is implemented by configs and moves whose canonical JSON is
// not simply their encoding/json form.
type Canonicaler interface {
	Canonical() json.RawMessage
}

// canonical encodes v in its canonical form: Canonical, AppendJSON or
// encoding/json, in that order of preference.
func canonical(v any) (json.RawMessage, error) {
	switch c := v.(type) {
	case Canonicaler:
		return c.Canonical(), nil
	case JSONAppender:
		return c.AppendJSON(nil), nil
	}
	return json.Marshal(v)
}

// Definition ties typed rules to their erased form.
type Definition[C, S, M, E, V any] struct {
	Info  Info
	Rules Rules[C, S, M, E, V]
	// Setup reports how a decoded config is played.
	Setup func(C) (Setup, error)
}

// Define returns the erased form of d. Configs and commands are decoded with
// encoding/json; a config whose pointer implements Validator is validated.
// It panics when the rules implement neither Mover nor Stepper, or when
// Info.Tick and Stepper disagree: a programming error found at start.
func Define[C, S, M, E, V any](d Definition[C, S, M, E, V]) Game {
	g := &erased[C, S, M, E, V]{d: d}
	g.mover, _ = d.Rules.(Mover[S, M, E])
	g.stepper, _ = d.Rules.(Stepper[S, M, E])
	g.cp, _ = d.Rules.(Checkpointer[C, S])
	g.ai, _ = d.Rules.(AI[M, V])
	g.hider, _ = d.Rules.(Hider[S])
	switch {
	case d.Info.Tick != nil && g.stepper == nil:
		panic(fmt.Sprintf("session: %s declares a tick but its rules have no Step", d.Info.ID))
	case d.Info.Tick == nil && g.stepper != nil:
		panic(fmt.Sprintf("session: %s has Step but declares no tick (Info.Tick)", d.Info.ID))
	case d.Info.Tick != nil && d.Info.Tick.Hz <= 0:
		panic(fmt.Sprintf("session: %s ticks at %d Hz", d.Info.ID, d.Info.Tick.Hz))
	case g.mover == nil && g.stepper == nil:
		panic(fmt.Sprintf("session: %s rules implement neither Apply nor Step", d.Info.ID))
	}
	return g
}

type erased[C, S, M, E, V any] struct {
	d       Definition[C, S, M, E, V]
	mover   Mover[S, M, E]
	stepper Stepper[S, M, E]
	cp      Checkpointer[C, S]
	ai      AI[M, V]
	hider   Hider[S]
}

func (g *erased[C, S, M, E, V]) Info() Info { return g.d.Info }

func (g *erased[C, S, M, E, V]) decodeConfig(raw json.RawMessage) (C, error) {
	var c C
	if t := jsonTrim(raw); len(t) == 0 || bytes.Equal(t, []byte("null")) {
		raw = json.RawMessage("{}")
	}
	if err := decodeStrict(raw, &c); err != nil {
		return c, fmt.Errorf("%s config: %w", g.d.Info.ID, err)
	}
	if v, ok := any(&c).(Validator); ok {
		if err := v.Validate(); err != nil {
			return c, fmt.Errorf("%s config: %w", g.d.Info.ID, err)
		}
	}
	return c, nil
}

func (g *erased[C, S, M, E, V]) Configure(raw json.RawMessage) (Setup, error) {
	c, err := g.decodeConfig(raw)
	if err != nil {
		return Setup{}, err
	}
	setup, err := g.d.Setup(c)
	if err != nil {
		return Setup{}, err
	}
	if setup.Config, err = canonical(c); err != nil {
		return Setup{}, fmt.Errorf("%s config: %w", g.d.Info.ID, err)
	}
	return setup, nil
}

// prepare decodes a config and checks the seat count against its mode.
func (g *erased[C, S, M, E, V]) prepare(raw json.RawMessage, seats int) (C, error) {
	c, err := g.decodeConfig(raw)
	if err != nil {
		return c, err
	}
	setup, err := g.d.Setup(c)
	if err != nil {
		return c, err
	}
	if seats < setup.Mode.MinSeats || seats > setup.Mode.MaxSeats {
		return c, fmt.Errorf("%s %s: %d seats, want %d to %d", g.d.Info.ID, setup.Mode.ID, seats, setup.Mode.MinSeats, setup.Mode.MaxSeats)
	}
	return c, nil
}

func (g *erased[C, S, M, E, V]) New(seed Seed, raw json.RawMessage, seats int) (Match, error) {
	c, err := g.prepare(raw, seats)
	if err != nil {
		return nil, err
	}
	s, err := g.d.Rules.Init(seed, c, seats)
	if err != nil {
		return nil, err
	}
	return &match[C, S, M, E, V]{g: g, state: s, seats: seats}, nil
}

func (g *erased[C, S, M, E, V]) Resume(seed Seed, raw json.RawMessage, seats int, checkpoint []byte) (Match, error) {
	if g.cp == nil {
		return nil, ErrNoCheckpoint
	}
	c, err := g.prepare(raw, seats)
	if err != nil {
		return nil, err
	}
	s, err := g.cp.Resume(seed, c, seats, checkpoint)
	if err != nil {
		return nil, fmt.Errorf("%s checkpoint: %w", g.d.Info.ID, err)
	}
	return &match[C, S, M, E, V]{g: g, state: s, seats: seats}, nil
}

type match[C, S, M, E, V any] struct {
	g     *erased[C, S, M, E, V]
	state S
	seats int
	step  step[C, S, M, E, V]
	ins   []Input[M] // scratch for Advance
}

// jsonTrim strips JSON whitespace only (bytes.TrimSpace would also take
// \v, \f and Unicode spaces, which JSON does not allow).
func jsonTrim(b []byte) []byte { return bytes.Trim(b, " \t\r\n") }

// DecodeMove decodes one JSON command strictly: null, empty and non-object
// input, unknown fields of the wrong type and trailing data are malformed.
func DecodeMove[M any](raw json.RawMessage) (M, error) {
	var m M
	trimmed := jsonTrim(raw)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return m, Malformed(CodeMalformedInput, "a command must be a JSON object")
	}
	if p, ok := any(&m).(CanonicalParser); ok && p.ParseCanonical(trimmed) {
		return m, nil
	}
	if err := decodeStrict(trimmed, &m); err != nil {
		var rej *Rejection
		if errors.As(err, &rej) {
			return m, rej
		}
		return m, Malformed(CodeMalformedInput, "%v", err)
	}
	if v, ok := any(&m).(Validator); ok {
		if err := v.Validate(); err != nil {
			var rej *Rejection
			if errors.As(err, &rej) {
				return m, rej
			}
			return m, Malformed(CodeMalformedInput, "%v", err)
		}
	}
	return m, nil
}

// decodeStrict decodes data into v: through v's own UnmarshalJSON when it
// has one, else with Strict when v is a struct (a game that declares plain
// structs writes no decoder), else with encoding/json.
func decodeStrict[T any](data []byte, v *T) error {
	if _, own := any(v).(json.Unmarshaler); own {
		return json.Unmarshal(data, v)
	}
	if reflect.TypeFor[T]().Kind() == reflect.Struct {
		return Strict(data, v)
	}
	return json.Unmarshal(data, v)
}

// input decodes c for this match.
func (m *match[C, S, M, E, V]) input(c Command, tick uint64) (Input[M], error) {
	if c.Seat < 0 || c.Seat >= m.seats {
		return Input[M]{}, Malformed(CodeNoSuchSeat, "seat %d is not in this match of %d", c.Seat, m.seats)
	}
	mv, err := DecodeMove[M](c.Move)
	if err != nil {
		return Input[M]{}, err
	}
	return Input[M]{Seat: c.Seat, Move: mv, T: c.T, Tick: tick}, nil
}

func (m *match[C, S, M, E, V]) Apply(c Command) (Step, error) {
	if m.g.mover == nil {
		return nil, ErrStepped
	}
	in, err := m.input(c, 0)
	if err != nil {
		return nil, err
	}
	s, events, err := m.g.mover.Apply(m.state, in)
	if err != nil {
		return nil, err
	}
	m.state = s
	m.step = step[C, S, M, E, V]{m: m, events: events, move: in.Move, moved: true}
	return &m.step, nil
}

func (m *match[C, S, M, E, V]) Check(c Command) (json.RawMessage, error) {
	in, err := m.input(c, 0)
	if err != nil {
		return nil, err
	}
	return canonical(in.Move)
}

func (m *match[C, S, M, E, V]) Advance(tick uint64, inputs []Command) (Step, error) {
	if m.g.stepper == nil {
		return nil, ErrNotStepped
	}
	m.ins = m.ins[:0]
	for _, c := range inputs {
		in, err := m.input(c, tick)
		if err != nil {
			continue // it passed Check when it was queued; nothing else can fail
		}
		m.ins = append(m.ins, in)
	}
	s, events := m.g.stepper.Step(m.state, tick, m.ins)
	m.state = s
	m.step = step[C, S, M, E, V]{m: m, events: events}
	return &m.step, nil
}

func (m *match[C, S, M, E, V]) Status() Status       { return m.g.d.Rules.Status(m.state) }
func (m *match[C, S, M, E, V]) Pending() []Seat      { return m.g.d.Rules.Pending(m.state) }
func (m *match[C, S, M, E, V]) View(viewer Seat) any { return m.g.d.Rules.Project(m.state, viewer) }
func (m *match[C, S, M, E, V]) Audience(viewer Seat) int {
	return m.g.d.Rules.Audience(m.state, viewer)
}

func (m *match[C, S, M, E, V]) AIMove(seat Seat, src Source) (json.RawMessage, bool) {
	if m.g.ai == nil || seat < 0 || seat >= m.seats {
		return nil, false
	}
	mv, ok := m.g.ai.Choose(m.g.d.Rules.Project(m.state, seat), seat, src)
	if !ok {
		return nil, false
	}
	raw, err := json.Marshal(mv)
	if err != nil {
		return nil, false
	}
	return raw, true
}

func (m *match[C, S, M, E, V]) Checkpoint() ([]byte, error) {
	if m.g.cp == nil {
		return nil, ErrNoCheckpoint
	}
	return m.g.cp.Checkpoint(m.state)
}

// State exposes the typed state of an erased match made by Define, for tests
// and tools in the same binary that know the game's types.
func State[S any](m Match) (S, bool) {
	type stater interface{ typedState() any }
	if st, ok := m.(stater); ok {
		s, ok := st.typedState().(S)
		return s, ok
	}
	var zero S
	return zero, false
}

func (m *match[C, S, M, E, V]) typedState() any { return m.state }

// hidden is what the erased match of a game made by Define offers the game
// kit of its rules' Hider.
type hidden interface {
	hides() bool
	secrets(viewer Seat) []Secret
	resample(viewer Seat, src Source) Match
}

func (g *erased[C, S, M, E, V]) hides() bool { return g.hider != nil }
func (m *match[C, S, M, E, V]) hides() bool  { return m.g.hider != nil }

func (m *match[C, S, M, E, V]) secrets(viewer Seat) []Secret {
	return m.g.hider.Secrets(m.state, viewer)
}

func (m *match[C, S, M, E, V]) resample(viewer Seat, src Source) Match {
	return &match[C, S, M, E, V]{g: m.g, state: m.g.hider.Resample(m.state, viewer, src), seats: m.seats}
}

// Hides reports whether g's rules implement Hider: the game declares
// hidden information.
func Hides(g Game) bool {
	h, ok := g.(interface{ hides() bool })
	return ok && h.hides()
}

// Secrets returns what viewer must not learn in m (Hider.Secrets); ok is
// false when m's rules declare no hidden information.
func Secrets(m Match, viewer Seat) (secrets []Secret, ok bool) {
	h, ok := m.(hidden)
	if !ok || !h.hides() {
		return nil, false
	}
	return h.secrets(viewer), true
}

// Resample returns a copy of m whose hidden state, as viewer knows it, is
// drawn again from src (Hider.Resample); ok is false when m's rules
// declare no hidden information.
func Resample(m Match, viewer Seat, src Source) (Match, bool) {
	h, ok := m.(hidden)
	if !ok || !h.hides() {
		return nil, false
	}
	return h.resample(viewer, src), true
}

type step[C, S, M, E, V any] struct {
	m      *match[C, S, M, E, V]
	events []E
	move   M
	moved  bool // a command's step (not a tick's)
}

func (s *step[C, S, M, E, V]) Move() json.RawMessage {
	if !s.moved {
		return nil
	}
	b, err := canonical(s.move)
	if err != nil {
		return nil // a move that decoded encodes: a game whose does not is caught by its tests
	}
	return b
}

func (s *step[C, S, M, E, V]) Beats(viewer Seat) any {
	return s.m.g.d.Rules.ProjectEvents(s.m.state, s.events, viewer)
}

func (s *step[C, S, M, E, V]) AppendBeats(dst []byte, viewer Seat) ([]byte, error) {
	evs := s.m.g.d.Rules.ProjectEvents(s.m.state, s.events, viewer)
	if len(evs) > 0 {
		if _, ok := any(&evs[0]).(JSONAppender); ok {
			dst = append(dst, '[')
			for i := range evs {
				if i > 0 {
					dst = append(dst, ',')
				}
				dst = any(&evs[i]).(JSONAppender).AppendJSON(dst)
			}
			return append(dst, ']'), nil
		}
	}
	if evs == nil {
		return append(dst, "[]"...), nil
	}
	b, err := json.Marshal(evs)
	return append(dst, b...), err
}

// Registry maps game ids to games. It is safe for concurrent use. Beside
// the games it runs it may hold retired versions of their rules, which only
// LookupVersion finds: what `roomd verify` checks old matches with.
type Registry struct {
	mu      sync.RWMutex
	games   map[string]Game
	retired map[[2]string]Game // by id and rules version
}

// NewRegistry returns a registry holding games.
func NewRegistry(games ...Game) *Registry {
	r := &Registry{games: make(map[string]Game)}
	for _, g := range games {
		r.Register(g)
	}
	return r
}

// Register adds g, replacing a game of the same id.
func (r *Registry) Register(g Game) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.games[g.Info().ID] = g
}

// Retire adds g as a retired version of its game's rules: LookupVersion
// finds it, Lookup and Games do not.
func (r *Registry) Retire(g Game) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.retired == nil {
		r.retired = make(map[[2]string]Game)
	}
	info := g.Info()
	r.retired[[2]string{info.ID, info.RulesVersion}] = g
}

// LookupVersion returns the game with id under rules version rv: the game
// Lookup returns when it runs rv (or rv is ""), else a retired version.
func (r *Registry) LookupVersion(id, rv string) (Game, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if g, ok := r.games[id]; ok && (rv == "" || g.Info().RulesVersion == rv) {
		return g, true
	}
	g, ok := r.retired[[2]string{id, rv}]
	return g, ok
}

// Lookup returns the game with id.
func (r *Registry) Lookup(id string) (Game, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	g, ok := r.games[id]
	return g, ok
}

// Games returns every registered game's info, sorted by id.
func (r *Registry) Games() []Info {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]Info, 0, len(r.games))
	for _, g := range r.games {
		out = append(out, g.Info())
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}
