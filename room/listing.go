package room

import (
	"bytes"
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/roomd/roomd/protocol"
)

// listing.go: the public rooms (GET /api/rooms) and quick play (POST
// /api/quickplay). Both read what rooms publish (Info, Stats) and never wait
// on a room's actor, except quick play's one Join.
//
// The list is built from every live room at most once per listTTL and kept
// sorted; a request filters and pages that copy, so a lobby polled by many
// visitors costs one pass over the rooms per second, not one per visitor.

// listTTL is how long a built list of public rooms is served.
const listTTL = time.Second

// Limits of one page of the list.
const (
	DefaultListLimit = 20
	MaxListLimit     = 50
)

// quickPlayTries bounds the open rooms one quick play tries to join before
// it makes a room.
const quickPlayTries = 4

var (
	// ErrBadCursor is returned for a cursor this server did not make.
	ErrBadCursor = errors.New("room: bad cursor")
	// ErrSoloQuickPlay is returned by QuickPlay for a mode of one seat.
	ErrSoloQuickPlay = errors.New("quick play is for modes with several seats")
	// ErrAccessConflict is returned by Create for "public": true with
	// another access level.
	ErrAccessConflict = fmt.Errorf("%w: \"public\": true conflicts with the access asked", ErrBadSettings)
)

// Listed is one public room as GET /api/rooms lists it: no token, invite or
// secret.
type Listed struct {
	Code     string          `json:"code"`
	Game     string          `json:"game"`
	Mode     string          `json:"mode"`
	Settings json.RawMessage `json:"settings"`
	Phase    string          `json:"phase"`
	// Seats counts the seats taken; Free those a join may still take (0
	// unless the room is in its lobby).
	Seats      int      `json:"seats"`
	MinSeats   int      `json:"minSeats"`
	MaxSeats   int      `json:"maxSeats"`
	Free       int      `json:"free"`
	Spectators int      `json:"spectators"`
	Players    []string `json:"players"`
	// Host is the host's name, "" when the host has no seat.
	Host string `json:"host"`
	// Created is when the room was made (ms since the Unix epoch).
	Created     int64 `json:"created"`
	WatchLocked bool  `json:"watchLocked,omitempty"`
}

// ListQuery picks a page of public rooms. Empty filters match every room.
type ListQuery struct {
	Game  string
	Mode  string
	Phase string // "", "lobby" or "running"
	// Limit is the page size, 1 to MaxListLimit; zero means
	// DefaultListLimit.
	Limit int
	// Cursor is a page's Next: the page after it.
	Cursor string
}

// ListPage is one page of public rooms; Next is "" on the last page.
type ListPage struct {
	Rooms []Listed `json:"rooms"`
	Next  string   `json:"next"`
}

// listKey orders the list: lobby rooms with a free seat (newest first),
// then running rooms (most spectators first, then newest), then the rest
// (newest first); the code breaks ties. A cursor is the key of the last
// room of its page, so a page follows its predecessor even when the list
// was rebuilt between them.
type listKey struct {
	class int
	a, b  int64
	code  string
}

func (k listKey) compare(o listKey) int {
	return cmp.Or(cmp.Compare(k.class, o.class), cmp.Compare(k.a, o.a), cmp.Compare(k.b, o.b), strings.Compare(k.code, o.code))
}

func (k listKey) cursor() string {
	return base64.RawURLEncoding.EncodeToString(fmt.Appendf(nil, "%d.%d.%d.%s", k.class, k.a, k.b, k.code))
}

func parseCursor(s string) (listKey, error) {
	raw, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return listKey{}, ErrBadCursor
	}
	parts := strings.SplitN(string(raw), ".", 4)
	if len(parts) != 4 {
		return listKey{}, ErrBadCursor
	}
	var k listKey
	var errs [3]error
	k.class, errs[0] = strconv.Atoi(parts[0])
	k.a, errs[1] = strconv.ParseInt(parts[1], 10, 64)
	k.b, errs[2] = strconv.ParseInt(parts[2], 10, 64)
	k.code = parts[3]
	if errors.Join(errs[:]...) != nil {
		return listKey{}, ErrBadCursor
	}
	return k, nil
}

// listedRoom is one entry of a built list.
type listedRoom struct {
	key  listKey
	item Listed
}

// listing is a manager's built list of public rooms and quick play's
// state. Its zero value works.
type listing struct {
	mu    sync.Mutex
	built time.Time
	rooms []listedRoom // sorted by key; never changed once built

	// Quick play takes one lock per stripe of (game, settings), so that
	// two quick plays for the same thing never both make a room.
	qpOnce  sync.Once
	qpLocks [64]chan struct{}
}

// publicRooms returns the sorted public rooms, built at most listTTL ago.
func (m *Manager) publicRooms() []listedRoom {
	l := &m.listing
	l.mu.Lock()
	defer l.mu.Unlock()
	now := m.cfg.Now()
	if l.rooms != nil && now.Sub(l.built) < listTTL && !now.Before(l.built) {
		return l.rooms
	}
	all := m.Rooms()
	out := make([]listedRoom, 0, len(all)/4+1)
	for _, r := range all {
		if lr, ok := listRoom(r); ok {
			out = append(out, lr)
		}
	}
	slices.SortFunc(out, func(x, y listedRoom) int { return x.key.compare(y.key) })
	l.rooms, l.built = out, now
	return out
}

// listRoom is r's entry in the list, or false when r is not public or is
// closed. It reads what r has published.
func listRoom(r *Room) (listedRoom, bool) {
	info := r.info.Load() // read only: no copy
	if info.Access != protocol.AccessPublic || info.Phase == "closed" {
		return listedRoom{}, false
	}
	created := r.stat.Load().Created.UnixMilli()
	it := Listed{Code: info.Code, Game: info.Game.ID, Mode: info.Mode, Settings: info.Settings, Phase: info.Phase,
		Seats: len(info.Seats), MinSeats: info.MinSeats, MaxSeats: info.MaxSeats, Spectators: info.Spectators,
		Players: make([]string, len(info.Seats)), Created: created, WatchLocked: info.WatchLocked}
	for i, s := range info.Seats {
		it.Players[i] = s.Name
	}
	if info.Host != nil && *info.Host >= 0 && *info.Host < len(info.Seats) {
		it.Host = info.Seats[*info.Host].Name
	}
	if info.Phase == phaseLobby {
		it.Free = max(0, info.MaxSeats-len(info.Seats))
	}
	return listedRoom{key: keyOf(&it), item: it}, true
}

// keyOf is a listed room's place in the list.
func keyOf(it *Listed) listKey {
	key := listKey{class: 2, a: -it.Created, code: it.Code}
	switch {
	case it.Free > 0:
		key.class = 0
	case it.Phase == phaseRunning:
		key.class, key.a, key.b = 1, -int64(it.Spectators), -it.Created
	}
	return key
}

// CompareListed orders two listed rooms as the list does (several nodes'
// pages merge by it).
func CompareListed(x, y Listed) int { return keyOf(&x).compare(keyOf(&y)) }

// ListCursor is the Next of a page whose last room is it.
func ListCursor(it Listed) string { return keyOf(&it).cursor() }

// ListRooms returns a page of the public rooms live in this process. An
// unknown game matches no room.
func (m *Manager) ListRooms(q ListQuery) (ListPage, error) {
	if q.Limit == 0 {
		q.Limit = DefaultListLimit
	}
	if q.Limit < 1 || q.Limit > MaxListLimit {
		return ListPage{}, fmt.Errorf("%w: limit must be 1 to %d", ErrBadSettings, MaxListLimit)
	}
	if q.Phase != "" && q.Phase != phaseLobby && q.Phase != phaseRunning {
		return ListPage{}, fmt.Errorf("%w: phase must be lobby or running, not %q", ErrBadSettings, q.Phase)
	}
	rooms := m.publicRooms()
	from := 0
	if q.Cursor != "" {
		after, err := parseCursor(q.Cursor)
		if err != nil {
			return ListPage{}, err
		}
		from, _ = slices.BinarySearchFunc(rooms, after, func(lr listedRoom, k listKey) int {
			if lr.key.compare(k) <= 0 {
				return -1
			}
			return 1
		})
	}
	page := ListPage{Rooms: []Listed{}}
	last := -1 // the index of the page's last room
	for i := from; i < len(rooms); i++ {
		it := &rooms[i].item
		if (q.Game != "" && it.Game != q.Game) || (q.Mode != "" && it.Mode != q.Mode) || (q.Phase != "" && it.Phase != q.Phase) {
			continue
		}
		if len(page.Rooms) == q.Limit {
			page.Next = rooms[last].key.cursor()
			break
		}
		page.Rooms = append(page.Rooms, *it)
		last = i
	}
	return page, nil
}

// resolvePublic turns "public": true into access "public", refusing it
// with another access level.
func (req *CreateRequest) resolvePublic() error {
	if !req.Public {
		return nil
	}
	if req.Access != "" && req.Access != protocol.AccessPublic {
		return fmt.Errorf("%w, not %q", ErrAccessConflict, req.Access)
	}
	req.Access = protocol.AccessPublic
	return nil
}

// QuickPlayRequest asks for a seat in an open quick-play room of a game
// with the same canonical settings, or a new one with them.
type QuickPlayRequest struct {
	Game     string
	Settings json.RawMessage
	Name     string
	// Player is the site's player id when the player signed in; Client the
	// client's address (as in CreateRequest).
	Player, Client string
	// Spend, when not nil, is called once before quick play takes a seat
	// (create false) and once before it makes a room (create true); its
	// error ends quick play with that error (a quota refused).
	Spend func(create bool) error
}

// QuickPlayResult is a seat found or made by quick play.
type QuickPlayResult struct {
	JoinResult
	Created bool `json:"created"`
}

// QuickPlay seats req's player in an open quick-play room of req's game
// whose canonical settings equal req's (a lobby with a free seat), or makes
// one: a public room with those settings that starts its match by itself
// (quick.go). A public room a host made is not one: its host starts it.
// Quick plays for the same game and settings take turns in this process,
// so two at once never both make a room.
func (m *Manager) QuickPlay(ctx context.Context, req QuickPlayRequest) (QuickPlayResult, error) {
	if len(req.Settings) == 0 || string(req.Settings) == "null" {
		req.Settings = json.RawMessage("{}")
	}
	g, ok := m.cfg.Games.Lookup(req.Game)
	if !ok {
		return QuickPlayResult{}, fmt.Errorf("%w %q", ErrUnknownGame, req.Game)
	}
	setup, err := configure(g, req.Settings)
	if err != nil {
		return QuickPlayResult{}, fmt.Errorf("%w: %v", ErrBadSettings, err)
	}
	if setup.Mode.MaxSeats < 2 {
		return QuickPlayResult{}, ErrSoloQuickPlay
	}
	key := req.Game + "\x00" + string(setup.Settings)
	unlock, err := m.listing.lockQuickPlay(ctx, key)
	if err != nil {
		return QuickPlayResult{}, err
	}
	defer unlock()

	spend := func(create bool) error {
		if req.Spend == nil {
			return nil
		}
		return req.Spend(create)
	}
	spent := false
	for _, r := range m.quickPlayRooms(req.Game, setup.Settings) {
		if !spent {
			if err := spend(false); err != nil {
				return QuickPlayResult{}, err
			}
			spent = true
		}
		res, err := r.Join(ctx, req.Name, "", req.Player)
		switch {
		case err == nil:
			return QuickPlayResult{JoinResult: res}, nil
		case ctx.Err() != nil:
			return QuickPlayResult{}, ctx.Err()
		case errors.Is(err, ErrRoomFull), errors.Is(err, ErrNotLobby), errors.Is(err, ErrLocked),
			errors.Is(err, ErrClosed), errors.Is(err, ErrBusy):
			continue // taken, started, locked or gone since it published
		default:
			return QuickPlayResult{}, err
		}
	}
	if err := spend(true); err != nil {
		return QuickPlayResult{}, err
	}
	res, err := m.Create(ctx, CreateRequest{Game: req.Game, Settings: setup.Settings, Name: req.Name,
		Access: protocol.AccessPublic, Player: req.Player, Client: req.Client, Quick: true})
	if err != nil {
		return QuickPlayResult{}, err
	}
	return QuickPlayResult{JoinResult: res, Created: true}, nil
}

// quickPlayRooms are the rooms quick play tries for game and config, best
// first: open public quick-play lobbies with those settings, the fullest
// first (the nearest to starting), then the oldest. It reads every live room's
// published information (no copy, no wait on an actor), not the list
// built for GET /api/rooms, so that a room made a moment ago is found.
func (m *Manager) quickPlayRooms(game string, config json.RawMessage) []*Room {
	type candidate struct {
		r     *Room
		seats int
	}
	var found []candidate
	for _, r := range m.Rooms() {
		info := r.info.Load()
		if info.Quick && info.Access == protocol.AccessPublic && info.Phase == phaseLobby && !info.Frozen &&
			len(info.Seats) < info.MaxSeats && info.Game.ID == game && bytes.Equal(info.Settings, config) {
			found = append(found, candidate{r, len(info.Seats)})
		}
	}
	slices.SortFunc(found, func(x, y candidate) int {
		return cmp.Or(cmp.Compare(y.seats, x.seats), x.r.stat.Load().Created.Compare(y.r.stat.Load().Created), strings.Compare(x.r.code, y.r.code))
	})
	out := make([]*Room, 0, quickPlayTries)
	for _, c := range found[:min(len(found), quickPlayTries)] {
		out = append(out, c.r)
	}
	return out
}

// lockQuickPlay takes key's quick-play lock, or fails when ctx ends first.
func (l *listing) lockQuickPlay(ctx context.Context, key string) (unlock func(), err error) {
	l.qpOnce.Do(func() {
		for i := range l.qpLocks {
			l.qpLocks[i] = make(chan struct{}, 1)
		}
	})
	h := fnv.New32a()
	h.Write([]byte(key))
	lock := l.qpLocks[h.Sum32()%uint32(len(l.qpLocks))]
	select {
	case lock <- struct{}{}:
		return func() { <-lock }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
