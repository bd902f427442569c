package bot

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"log/slog"
	"math"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/roomd/roomd/protocol"
	"github.com/roomd/roomd/transport/client"
)

// rated.go: roombot's rated mode (--rated, PROTOCOL.md §2.13). N bots, each
// signed in with a token roombot mints itself (HS256 under --jwt-secret,
// sub and name bot-N) and given a strength, queue for rated quick play,
// wait on their tickets, play the match they are paired into, and queue
// again until --duration ends. A match's winner is drawn from the two
// strengths (Elo's expectation, 1/(1+10^(Δ/400))), the same draw on both
// sides (seeded by the room code): the loser resigns at its second turn,
// after both have moved (a resignation before the second move is not
// rated). The report gives the time to match (p50, p99), the rating
// difference of the pairs at pairing, and how the ratings the bots last
// queued with rank against their strengths (Spearman's ρ).

// ratedConfig is what --rated adds to a scenario.
type ratedConfig struct {
	Enabled   bool
	JWTSecret string
	Bots      int
	Strengths []float64
}

// parseStrengths reads --strengths: a list (1200,1500,1800: bot i has
// the (i mod len)th) or a spread A-B (spread evenly over the bots).
func parseStrengths(s string, bots int) ([]float64, error) {
	bad := fmt.Errorf("--strengths %q: want a list such as 1200,1500,1800 or a spread such as 1200-1800", s)
	if lo, hi, ok := strings.Cut(s, "-"); ok && !strings.Contains(s, ",") {
		a, err1 := strconv.ParseFloat(lo, 64)
		b, err2 := strconv.ParseFloat(hi, 64)
		if err1 != nil || err2 != nil || b < a {
			return nil, bad
		}
		out := make([]float64, bots)
		for i := range out {
			out[i] = a
			if bots > 1 {
				out[i] = a + (b-a)*float64(i)/float64(bots-1)
			}
		}
		return out, nil
	}
	var list []float64
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, bad
		}
		list = append(list, v)
	}
	out := make([]float64, bots)
	for i := range out {
		out[i] = list[i%len(list)]
	}
	return out, nil
}

// ratedSeat is a ticket's outcome on the wire.
type ratedSeat struct {
	Room           string  `json:"room"`
	Token          string  `json:"token"`
	Seat           int     `json:"seat"`
	Node           string  `json:"node"`
	URL            string  `json:"url"`
	Opponent       string  `json:"opponent"`
	OpponentRating float64 `json:"opponentRating"`
	// WaitedMs and OpponentWaitedMs: how long each ticket had waited
	// when they were paired.
	WaitedMs         int64  `json:"waitedMs"`
	OpponentWaitedMs int64  `json:"opponentWaitedMs"`
	Error            string `json:"error"`
}

// window is the rating window of a ticket that has waited ms, as
// PROTOCOL.md §2.13 documents it (roombot links nothing of the server):
// ±100, 50 more every 5 s, at most ±500, unbounded from 60 s.
func window(ms int64) float64 {
	if ms >= 60_000 {
		return math.Inf(1)
	}
	return math.Min(100+50*float64(max(ms, 0)/5000), 500)
}

// ratedTicket is a ticket on the wire.
type ratedTicket struct {
	Ticket   string     `json:"ticket"`
	Pool     string     `json:"pool"`
	State    string     `json:"state"`
	Rating   float64    `json:"rating"`
	WaitedMs int64      `json:"waitedMs"`
	Window   float64    `json:"window"`
	Outcome  *ratedSeat `json:"outcome"`
	Poll     string     `json:"poll"`
}

// ratedStats is what the bots of a rated run record.
type ratedStats struct {
	mu       sync.Mutex
	toMatch  []time.Duration
	spread   []float64 // |rating − opponent's| at pairing
	last     map[int]float64
	matches  int // matches finished (counted by seat 0)
	wins     map[string]int
	upsets   int // matches the weaker won
	outside  int // pairs whose ratings were apart by more than the window
	failures map[string]int
}

func (s *ratedStats) fail(what string) {
	s.mu.Lock()
	s.failures[what]++
	s.mu.Unlock()
}

// RatedResult is a rated run's report.
type RatedResult struct {
	Bots      int                `json:"bots"`
	Strengths []float64          `json:"strengths"`
	Matches   int                `json:"matches"`
	Paired    int                `json:"paired"`
	MatchP50  float64            `json:"timeToMatchP50Ms"`
	MatchP99  float64            `json:"timeToMatchP99Ms"`
	SpreadP50 float64            `json:"pairSpreadP50"`
	SpreadMax float64            `json:"pairSpreadMax"`
	Ratings   map[string]float64 `json:"finalRatings"`
	// Rho is Spearman's rank correlation of the final ratings with the
	// strengths; null when the ratings do not vary (all default: the
	// server records none).
	Rho    *float64 `json:"rho"`
	Upsets int      `json:"upsets"`
	// OutsideWindow counts the pairs whose ratings differed by more than
	// the smaller of their windows when they were paired: 0 on a server
	// that keeps PROTOCOL.md §2.13.
	OutsideWindow int            `json:"outsideWindow"`
	Failures      map[string]int `json:"failures,omitempty"`
}

// runRated runs --rated and prints its report; it returns the exit
// status (1 when no match was played or a bot failed).
func runRated(ctx context.Context, cfg config, log *slog.Logger, stdout io.Writer) int {
	res, err := playRated(ctx, cfg, log)
	if err != nil {
		log.Error("rated run failed", "err", err)
		return 1
	}
	printRated(stdout, res)
	if cfg.JSON != "" {
		data, _ := json.MarshalIndent(res, "", "  ")
		if err := writeFileAtomic(cfg.JSON, data); err != nil {
			log.Error("writing --json", "err", err)
			return 1
		}
	}
	if res.OutsideWindow > 0 {
		return 3 // an invariant of the server's
	}
	if res.Matches == 0 || len(res.Failures) > 0 {
		return 1
	}
	return 0
}

func writeFileAtomic(path string, data []byte) error {
	return os.WriteFile(path, append(data, '\n'), 0o644)
}

func playRated(ctx context.Context, cfg config, log *slog.Logger) (RatedResult, error) {
	hc := &http.Client{Timeout: 40 * time.Second}
	server, err := fetchGames(ctx, hc, cfg.Nodes[0])
	if err != nil {
		return RatedResult{}, err
	}
	cfg.Players, cfg.AI = 2, 0
	pl, err := choosePlay(server, &cfg)
	if err != nil {
		return RatedResult{}, err
	}
	settings := pl.settings // with --clock's settings.clock
	st := &ratedStats{last: map[int]float64{}, wins: map[string]int{}, failures: map[string]int{}}
	strength := map[string]float64{}
	for i, s := range cfg.RatedCfg.Strengths {
		strength[botName(i)] = s
	}
	ctx, cancel := context.WithTimeout(ctx, cfg.Duration)
	defer cancel()
	var wg sync.WaitGroup
	for i := range cfg.RatedCfg.Bots {
		rb := &ratedBot{i: i, name: botName(i), node: cfg.Nodes[i%len(cfg.Nodes)], cfg: &cfg, pl: pl, settings: settings,
			hc: hc, st: st, log: log, strength: strength}
		tok, err := mintToken(cfg.RatedCfg.JWTSecret, rb.name, cfg.Duration+time.Hour)
		if err != nil {
			return RatedResult{}, err
		}
		rb.token = tok
		wg.Go(func() { rb.run(ctx) })
	}
	wg.Wait()
	return st.result(cfg.RatedCfg.Strengths), nil
}

func botName(i int) string { return "bot-" + strconv.Itoa(i) }

// mintToken signs a site token for player, as the site would.
func mintToken(secret, player string, life time.Duration) (string, error) {
	tok := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{"sub": player, "name": player,
		"exp": time.Now().Add(life).Unix()})
	return tok.SignedString([]byte(secret))
}

// ratedBot is one signed-in player queueing again and again.
type ratedBot struct {
	i           int
	name, token string
	node        string
	cfg         *config
	pl          play
	settings    json.RawMessage
	hc          *http.Client
	st          *ratedStats
	log         *slog.Logger
	strength    map[string]float64
}

func (b *ratedBot) run(ctx context.Context) {
	for ctx.Err() == nil {
		seat, ok := b.queue(ctx)
		if !ok {
			return
		}
		if err := b.playMatch(ctx, seat); err != nil && ctx.Err() == nil {
			b.log.Warn("rated match failed", "bot", b.name, "room", seat.Room, "err", err)
			b.st.fail("match")
		}
	}
}

// call sends one API request as this bot.
func (b *ratedBot) call(ctx context.Context, method, path string, body any, out any) (int, error) {
	var rd io.Reader
	if body != nil {
		data, _ := json.Marshal(body)
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequestWithContext(ctx, method, b.node+path, rd)
	if err != nil {
		return 0, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Authorization", "Bearer "+b.token)
	resp, err := b.hc.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if err != nil {
		return resp.StatusCode, err
	}
	if out != nil && resp.StatusCode < 300 {
		if err := json.Unmarshal(data, out); err != nil {
			return resp.StatusCode, err
		}
	} else if resp.StatusCode >= 300 {
		return resp.StatusCode, fmt.Errorf("%s %s: %s: %s", method, path, resp.Status, bytes.TrimSpace(data))
	}
	return resp.StatusCode, nil
}

// queue enters the pool and waits for a seat; false when the run ended
// first (the ticket cancelled).
func (b *ratedBot) queue(ctx context.Context) (ratedSeat, bool) {
	start := time.Now()
	var tk ratedTicket
	if _, err := b.call(ctx, http.MethodPost, "/api/quickplay", map[string]any{"game": b.pl.pin.ID, "rated": true,
		"settings": b.settings}, &tk); err != nil {
		if ctx.Err() == nil {
			b.log.Warn("rated quick play refused", "bot", b.name, "err", err)
			b.st.fail("enter")
		}
		return ratedSeat{}, false
	}
	b.st.mu.Lock()
	b.st.last[b.i] = tk.Rating
	b.st.mu.Unlock()
	for tk.State != "settled" {
		if ctx.Err() != nil {
			cctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
			b.call(cctx, http.MethodDelete, tk.Poll, nil, nil)
			cancel()
			return ratedSeat{}, false
		}
		if _, err := b.call(ctx, http.MethodGet, tk.Poll+"?waitMs=5000", nil, &tk); err != nil {
			if ctx.Err() == nil {
				b.log.Warn("rated poll failed", "bot", b.name, "err", err)
				b.st.fail("poll")
			}
			return ratedSeat{}, false
		}
	}
	if tk.Outcome == nil || tk.Outcome.Error != "" {
		b.st.fail("no-seat")
		return ratedSeat{}, ctx.Err() == nil
	}
	b.st.mu.Lock()
	b.st.toMatch = append(b.st.toMatch, time.Since(start))
	if tk.Outcome.Seat == 0 {
		diff := math.Abs(tk.Rating - tk.Outcome.OpponentRating)
		b.st.spread = append(b.st.spread, diff)
		if w := math.Min(window(tk.Outcome.WaitedMs), window(tk.Outcome.OpponentWaitedMs)); diff > w {
			b.st.outside++
			b.log.Warn("a pair outside its rating window", "bot", b.name, "opponent", tk.Outcome.Opponent, "diff", diff, "window", w)
		}
	}
	b.st.mu.Unlock()
	return *tk.Outcome, true
}

// loses draws whether seat 0 loses the match in room: the stronger wins
// with Elo's expectation; both players draw the same from the room code.
func loses(room string, s0, s1 float64) bool {
	h := fnv.New64a()
	h.Write([]byte(room))
	u := float64(h.Sum64()>>11) / float64(1<<53)
	p0 := 1 / (1 + math.Pow(10, (s1-s0)/400))
	return u >= p0
}

// playMatch plays the rated room's match: the host starts it once the
// other seat is ready, each moves with the game's AI, and the loser drawn
// resigns at its second turn.
func (b *ratedBot) playMatch(ctx context.Context, seat ratedSeat) error {
	mine, theirs := b.strength[b.name], b.strength[seat.Opponent]
	s0, s1 := mine, theirs
	if seat.Seat != 0 {
		s0, s1 = theirs, mine
	}
	iLose := loses(seat.Room, s0, s1) == (seat.Seat == 0)
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	tr, err := client.NewRemote(client.Config{URL: b.node, Room: seat.Room, Token: seat.Token, Name: b.name,
		Game: b.pl.pin, Auth: b.token})
	if err != nil {
		return err
	}
	if err := tr.Start(ctx); err != nil {
		return err
	}
	defer tr.Close()
	fol := b.pl.game.newFollower()
	var info *protocol.Room
	moved, readied, pending, resigned := 0, false, false, false
	act := func(a protocol.Action) {
		if _, err := tr.Send(ctx, a); err != nil && !errors.Is(err, client.ErrOffline) {
			b.log.Debug("send failed", "bot", b.name, "err", err)
		}
	}
	lastStart := time.Time{}
	for {
		var ev client.Event
		select {
		case ev = <-tr.Events():
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
		switch ev.Kind {
		case client.EventSnapshot:
			info = &ev.Snapshot.Room
			v, err := fol.decodeView(viewOf(ev.Snapshot.View))
			if err != nil {
				return err
			}
			fol.setDecoded(v)
		case client.EventReceipt:
			if !ev.Receipt.OK {
				pending = false // refused: choose again from the view
			}
		case client.EventUpdate:
			pending = false
			u := ev.Update
			if u.Room != nil {
				info = u.Room
			}
			if u.Result != nil {
				if seat.Seat == 0 {
					b.countResult(u.Result, seat, mine, theirs)
				}
				return nil
			}
			if raw := viewOf(u.View); raw != nil {
				v, err := fol.decodeView(raw)
				if err != nil {
					return err
				}
				fol.setDecoded(v)
			} else if raw := viewOf(u.Beats); raw != nil {
				beats, err := fol.decodeBeats(raw)
				if err != nil {
					return err
				}
				if err := fol.applyDecoded(beats); err != nil {
					return err
				}
			}
		case client.EventState:
			if ev.State == client.StateClosed {
				return fmt.Errorf("socket closed (%d)", ev.Close)
			}
		}
		if info == nil {
			continue
		}
		switch info.Phase {
		case "lobby":
			if info.Rated {
				continue // a rated room starts by itself once both are in
			}
			if seat.Seat != 0 && !readied {
				readied = true
				act(protocol.Action{Type: protocol.TypeControl, ID: b.name + "-ready-" + seat.Room,
					Control: &protocol.Control{Op: protocol.ControlReady, Ready: true}})
			}
			if seat.Seat == 0 && len(info.Seats) == 2 && time.Since(lastStart) > 300*time.Millisecond {
				lastStart = time.Now()
				act(protocol.Action{Type: protocol.TypeControl, ID: fmt.Sprintf("%s-start-%s-%d", b.name, seat.Room, lastStart.UnixNano()),
					Control: &protocol.Control{Op: protocol.ControlStart}})
			}
		case "running":
			if !fol.have() || pending || resigned {
				continue
			}
			cmd, ok := fol.choose(seat.Seat)
			if !ok {
				continue
			}
			if iLose && moved >= 1 {
				act(protocol.Action{Type: protocol.TypeResign, ID: fmt.Sprintf("%s-resign-%s", b.name, seat.Room)})
				resigned = true // wait for the result
				continue
			}
			act(protocol.Action{Type: protocol.TypeCommand, ID: fmt.Sprintf("%s-%s-%d", b.name, seat.Room, moved), Command: cmd})
			moved, pending = moved+1, true // the next choice waits for the update
		case "ended", "closed":
			return nil
		}
	}
}

// countResult records a finished match (seat 0 counts it).
func (b *ratedBot) countResult(res *protocol.Result, seat ratedSeat, mine, theirs float64) {
	b.st.mu.Lock()
	defer b.st.mu.Unlock()
	b.st.matches++
	if len(res.Winners) != 1 {
		return
	}
	winner, stronger := b.name, mine >= theirs
	if res.Winners[0] != seat.Seat {
		winner, stronger = seat.Opponent, theirs >= mine
	}
	b.st.wins[winner]++
	if !stronger && mine != theirs {
		b.st.upsets++
	}
}

func (s *ratedStats) result(strengths []float64) RatedResult {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := RatedResult{Bots: len(strengths), Strengths: strengths, Matches: s.matches, Paired: len(s.toMatch),
		Ratings: map[string]float64{}, Upsets: s.upsets, OutsideWindow: s.outside}
	if len(s.failures) > 0 {
		r.Failures = s.failures
	}
	ms := make([]float64, len(s.toMatch))
	for i, d := range s.toMatch {
		ms[i] = float64(d) / float64(time.Millisecond)
	}
	r.MatchP50, r.MatchP99 = quantile(ms, 0.5), quantile(ms, 0.99)
	r.SpreadP50 = quantile(s.spread, 0.5)
	if len(s.spread) > 0 {
		r.SpreadMax = slices.Max(s.spread)
	}
	var xs, ys []float64
	for i, st := range strengths {
		if v, ok := s.last[i]; ok {
			r.Ratings[botName(i)] = v
			xs, ys = append(xs, st), append(ys, v)
		}
	}
	if rho, ok := spearman(xs, ys); ok {
		r.Rho = &rho
	}
	return r
}

// quantile is the q-quantile of xs by the nearest rank (0 for none).
func quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	i := int(math.Ceil(q*float64(len(s)))) - 1
	return s[min(max(i, 0), len(s)-1)]
}

// spearman is the rank correlation of xs and ys (ties share their mean
// rank); false when either does not vary.
func spearman(xs, ys []float64) (float64, bool) {
	if len(xs) < 2 || !varies(xs) || !varies(ys) {
		return 0, false
	}
	rx, ry := ranks(xs), ranks(ys)
	n := float64(len(xs))
	var mx, my float64
	for i := range rx {
		mx, my = mx+rx[i]/n, my+ry[i]/n
	}
	var sxy, sxx, syy float64
	for i := range rx {
		sxy += (rx[i] - mx) * (ry[i] - my)
		sxx += (rx[i] - mx) * (rx[i] - mx)
		syy += (ry[i] - my) * (ry[i] - my)
	}
	return sxy / math.Sqrt(sxx*syy), true
}

// varies reports whether xs holds two different values.
func varies(xs []float64) bool {
	return slices.ContainsFunc(xs, func(x float64) bool { return x != xs[0] })
}

func ranks(xs []float64) []float64 {
	idx := make([]int, len(xs))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return cmpFloat(xs[a], xs[b]) })
	out := make([]float64, len(xs))
	for i := 0; i < len(idx); {
		j := i
		for j+1 < len(idx) && xs[idx[j+1]] == xs[idx[i]] {
			j++
		}
		for k := i; k <= j; k++ {
			out[idx[k]] = float64(i+j)/2 + 1
		}
		i = j + 1
	}
	return out
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func printRated(w io.Writer, r RatedResult) {
	fmt.Fprintf(w, "rated quick play: %d bots, strengths %.0f to %.0f\n", r.Bots, slices.Min(r.Strengths), slices.Max(r.Strengths))
	fmt.Fprintf(w, "  paired %d times, %d matches finished (%d won by the weaker)\n", r.Paired, r.Matches, r.Upsets)
	fmt.Fprintf(w, "  time to match: p50 %.0f ms, p99 %.0f ms\n", r.MatchP50, r.MatchP99)
	fmt.Fprintf(w, "  rating spread of pairs at pairing: p50 %.0f, max %.0f; %d pairs outside their window\n", r.SpreadP50, r.SpreadMax, r.OutsideWindow)
	if r.Rho != nil {
		fmt.Fprintf(w, "  ratings vs strengths: Spearman's rho %.2f\n", *r.Rho)
	} else {
		fmt.Fprintf(w, "  ratings vs strengths: n/a (the ratings do not vary: the server records none yet)\n")
	}
	if len(r.Failures) > 0 {
		fmt.Fprintf(w, "  failures: %v\n", r.Failures)
	}
}

// check validates --rated's flags.
func (r *ratedConfig) check(strengths string) error {
	switch {
	case len(r.JWTSecret) < 32:
		return errors.New("--rated needs --jwt-secret: the server's HS256 secret (32 bytes at least), to mint the bots' tokens")
	case r.Bots < 2 || r.Bots > 10000:
		return errors.New("--bots must be 2 to 10000")
	}
	var err error
	r.Strengths, err = parseStrengths(strengths, r.Bots)
	return err
}
