// Package floor is roomd's performance floor: a bare coder/websocket relay
// that answers just enough of roomd's protocol for cmd/roomload. Per action
// it does one read and the writes roomd does for a flag toggle: a receipt to
// the sender and an update to every member of its room, the sender's two in
// one frame as roomd batches them (or apart, with Config.SeparateReceipt).
// No room actor, no store, no JSON decoding but the hello's; it validates
// nothing.
package floor

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"sync"

	"github.com/coder/websocket"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/roomd/roomd/internal/rawscan"
)

// Canned frames, copied from PROTOCOL.md §4 so that their sizes are those
// of roomd's: a player's welcome and a co-op snapshot.
var (
	welcome  = []byte(`{"type":"welcome","conn":"01JDQ80A1B2C3D4E5F6G7H8J9K","seat":1,"token":"Zx9Yw8Vu7Ts6Rq5Po4Nm3L","heartbeatMs":15000}`)
	snapshot = []byte(`{"type":"snapshot","epoch":"01JDQ7Z8X9Y0A1B2C3D4E5F6G7","rev":12,"seat":0,"view":{"config":{"mode":"coop","level":"beginner"},"phase":"active","cells":[{"r":0,"c":0,"status":"revealed","adjacent":0,"mine":false},{"r":0,"c":1,"status":"revealed","adjacent":1,"mine":false},{"r":1,"c":1,"status":"flagged"}]},"room":{"code":"K7QXMP","phase":"running","host":0,"seats":[{"seat":0,"name":"Ann","ready":false,"ai":false,"connected":true},{"seat":1,"name":"Bob","ready":true,"ai":false,"connected":true}],"settings":{"mode":"coop","level":"beginner"},"mode":"coop","minSeats":1,"maxSeats":4,"ai":true,"game":{"id":"minesweeper","rulesVersion":"minesweeper/1"},"connected":[0,1],"spectators":2,"frozen":false,"match":1,"clocks":{"now":1750000012000,"elapsedMs":4100,"running":true,"startedAt":1750000007900},"access":"unlisted","commitment":"954d5a49fd70d9b8bcdb35d252267829957f7ef7fa6c74f88419bdc5e82209f4"}}`)
)

// firstRev is the revision of the canned snapshot; a room's first update
// goes from it to the next.
const firstRev = 12

// Config configures a Floor; its zero value batches as roomd does.
type Config struct {
	// SeparateReceipt writes the mover's receipt and update as two frames;
	// zero means one frame holding both, as roomd sends them.
	SeparateReceipt bool
}

// Floor is the bare relay: rooms are a member list and a revision counter.
type Floor struct {
	batch bool

	mu    sync.Mutex
	rooms map[string]*floorRoom
	conns map[*websocket.Conn]struct{} // every open socket, for close
}

type floorRoom struct {
	mu      sync.Mutex
	seats   int // seats given by create and join
	rev     uint64
	members []*websocket.Conn // copied on change: a sender reads it unlocked
}

// New returns a relay with no rooms.
func New(cfg Config) *Floor {
	return &Floor{batch: !cfg.SeparateReceipt, rooms: map[string]*floorRoom{}, conns: map[*websocket.Conn]struct{}{}}
}

// Handler serves the API subset roomload uses (POST /api/rooms, POST
// /api/rooms/{code}/join), the socket (GET /ws) and GET /metrics with the
// Go and process collectors, as roomd's.
func (f *Floor) Handler() http.Handler {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	mux.HandleFunc("POST /api/rooms", f.create)
	mux.HandleFunc("POST /api/rooms/{code}/join", f.join)
	mux.HandleFunc("GET /ws", f.socket)
	return mux
}

// The token names the seat ("t0", "t1"…): the hello gives it back, and the
// relay puts it in the updates' "by".
func seatAnswer(w http.ResponseWriter, status int, code string, seat int) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	fmt.Fprintf(w, `{"room":%q,"token":"t%d","seat":%d}`, code, seat, seat)
}

func (f *Floor) create(w http.ResponseWriter, _ *http.Request) {
	code := make([]byte, 6)
	f.mu.Lock()
	for {
		for i := range code {
			code[i] = byte('A' + rand.IntN(26))
		}
		if f.rooms[string(code)] == nil {
			break
		}
	}
	f.rooms[string(code)] = &floorRoom{seats: 1, rev: firstRev}
	f.mu.Unlock()
	seatAnswer(w, http.StatusCreated, string(code), 0)
}

func (f *Floor) join(w http.ResponseWriter, r *http.Request) {
	code := r.PathValue("code")
	f.mu.Lock()
	rm := f.rooms[code]
	f.mu.Unlock()
	if rm == nil {
		http.Error(w, `{"error":"no room"}`, http.StatusNotFound)
		return
	}
	rm.mu.Lock()
	seat := rm.seats
	rm.seats++
	rm.mu.Unlock()
	seatAnswer(w, http.StatusOK, code, seat)
}

func (f *Floor) socket(w http.ResponseWriter, r *http.Request) {
	ws, err := websocket.Accept(w, r, &websocket.AcceptOptions{InsecureSkipVerify: true})
	if err != nil {
		return
	}
	ws.SetReadLimit(16 << 10)
	f.mu.Lock()
	f.conns[ws] = struct{}{}
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		delete(f.conns, ws)
		f.mu.Unlock()
		ws.CloseNow()
	}()
	_, data, err := ws.Read(context.Background())
	if err != nil {
		return
	}
	var hello struct{ Room, Token string }
	_ = json.Unmarshal(data, &hello)
	seat, _ := strconv.Atoi(hello.Token[min(1, len(hello.Token)):])
	f.mu.Lock()
	rm := f.rooms[hello.Room]
	f.mu.Unlock()
	if rm == nil {
		ws.Close(4004, "no room")
		return
	}
	rm.mu.Lock()
	rm.members = append(rm.members[:len(rm.members):len(rm.members)], ws)
	rm.mu.Unlock()
	defer rm.leave(ws)
	if ws.Write(context.Background(), websocket.MessageText, welcome) != nil ||
		ws.Write(context.Background(), websocket.MessageText, snapshot) != nil {
		return
	}
	var buf []byte
	for {
		_, data, err := ws.Read(context.Background())
		if err != nil {
			return
		}
		buf = f.relay(rm, ws, seat, data, buf)
	}
}

func (rm *floorRoom) leave(ws *websocket.Conn) {
	rm.mu.Lock()
	defer rm.mu.Unlock()
	out := make([]*websocket.Conn, 0, len(rm.members))
	for _, m := range rm.members {
		if m != ws {
			out = append(out, m)
		}
	}
	rm.members = out
}

// relay answers one action: a receipt to its sender and an update to every
// member, the sender included. buf is the sender's reusable frame buffer.
func (f *Floor) relay(rm *floorRoom, from *websocket.Conn, seat int, action, buf []byte) []byte {
	id := rawscan.String(action, `"id":"`)
	r, c := 0, 0
	if i := bytes.Index(action, []byte(`"command":`)); i >= 0 {
		r64, _ := rawscan.Uint(action[i:], `"r":`)
		c64, _ := rawscan.Uint(action[i:], `"c":`)
		r, c = int(r64), int(c64)
	}
	rm.mu.Lock()
	rm.rev++
	to := rm.rev
	members := rm.members
	rm.mu.Unlock()

	buf = append(buf[:0], '[')
	buf = append(buf, `{"type":"update","epoch":"01JDQ7Z8X9Y0A1B2C3D4E5F6G7","from":`...)
	buf = strconv.AppendUint(buf, to-1, 10)
	buf = append(buf, `,"to":`...)
	buf = strconv.AppendUint(buf, to, 10)
	buf = append(buf, `,"by":`...)
	buf = strconv.AppendInt(buf, int64(seat), 10)
	buf = append(buf, `,"beats":[{"type":"flag","r":`...)
	buf = strconv.AppendInt(buf, int64(r), 10)
	buf = append(buf, `,"c":`...)
	buf = strconv.AppendInt(buf, int64(c), 10)
	buf = append(buf, `,"flagged":true}]}`...)
	end := len(buf) // the update is buf[1:end], the receipt buf[end+1:len(buf)-1]
	buf = append(buf, `,{"type":"receipt","id":"`...)
	buf = append(buf, id...)
	buf = append(buf, `","ok":true,"rev":`...)
	buf = strconv.AppendUint(buf, to, 10)
	buf = append(buf, "}]"...)
	update, receipt := buf[1:end], buf[end+1:len(buf)-1]

	ctx := context.Background()
	if f.batch {
		_ = from.Write(ctx, websocket.MessageText, buf)
	} else {
		_ = from.Write(ctx, websocket.MessageText, receipt)
	}
	for _, m := range members {
		if m != from || !f.batch {
			_ = m.Write(ctx, websocket.MessageText, update) // a failed member's own reader ends it
		}
	}
	return buf
}

// Close cuts every open socket; their handlers then return.
func (f *Floor) Close() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for ws := range f.conns {
		ws.CloseNow()
	}
}
