package client_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/roomd/roomd/core/minesweeper"
	"github.com/roomd/roomd/core/session"
	"github.com/roomd/roomd/protocol"
	"github.com/roomd/roomd/room"
	"github.com/roomd/roomd/store/memstore"
	"github.com/roomd/roomd/transport"
	"github.com/roomd/roomd/transport/client"
)

// A player creates a Minesweeper room over HTTP, connects to it with the
// seat token it was given, starts the match and flags a cell: each action
// is answered by a receipt among the events.
func Example() {
	base, stop := startRoomd() // a roomd on a loopback port
	defer stop()
	code, token := createRoom(base, "minesweeper", `{"mode":"solo","level":"beginner"}`, "Ann")

	ctx := context.Background()
	r, err := client.Dial(ctx, client.Config{
		URL:   base,
		Room:  code,
		Token: token,
		Game:  protocol.GamePin{ID: "minesweeper", RulesVersion: minesweeper.Game.Info().RulesVersion},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer r.Close() // a close frame (1000), and the server's answer

	// receipt waits for the receipt of action id.
	receipt := func(id string) *protocol.Receipt {
		for ev := range r.Events() {
			if ev.Kind == client.EventReceipt && ev.Receipt.ID == id {
				return ev.Receipt
			}
		}
		return nil // the transport stopped
	}
	for ev := range r.Events() {
		if ev.Kind == client.EventState && ev.State == client.StateOnline {
			fmt.Println("online")
			break
		}
	}
	id, _ := r.Send(ctx, protocol.Action{Type: protocol.TypeControl, Control: &protocol.Control{Op: protocol.ControlStart}})
	fmt.Println("start:", receipt(id).OK)
	id, _ = r.Send(ctx, protocol.Action{Type: protocol.TypeCommand, Command: json.RawMessage(`{"type":"flag","r":0,"c":0}`)})
	fmt.Println("flag:", receipt(id).OK)
	// Output:
	// online
	// start: true
	// flag: true
}

// A program that holds many sockets takes their events in a Handler,
// called on each socket's reader goroutine as each message is read (no
// hand-off to another goroutine): it must not block, as the socket is not
// read while it runs.
func Example_handler() {
	base, stop := startRoomd()
	defer stop()
	code, _ := createRoom(base, "minesweeper", `{"mode":"coop","level":"beginner"}`, "Ann")

	online := make(chan string, 3)
	for _, name := range []string{"Bo", "Cy", "Di"} {
		r, err := client.Dial(context.Background(), client.Config{
			URL:   base,
			Room:  code,
			Watch: true, // spectators
			Game:  protocol.GamePin{ID: "minesweeper", RulesVersion: minesweeper.Game.Info().RulesVersion},
			Handler: func(ev client.Event) { // on the socket's reader: do not block
				if ev.Kind == client.EventState && ev.State == client.StateOnline {
					online <- name
				}
			},
		})
		if err != nil {
			log.Fatal(err)
		}
		defer r.Close()
	}
	for range 3 {
		<-online
	}
	fmt.Println("three spectators online")
	// Output:
	// three spectators online
}

// A Tracker is the protocol without the socket: fed the server's messages,
// it keeps the client's position and says what to send back. An update
// that does not follow the revision seen is dropped and answered with a
// resync.
func ExampleTracker() {
	k := client.NewTracker("")
	k.SetState(client.StateConnecting, 0)
	for _, frame := range []string{
		`{"type":"welcome","conn":"c1","seat":0,"token":"tok-1","heartbeatMs":15000}`,
		`{"type":"snapshot","epoch":"E1","rev":4,"seat":0,"view":null,"room":{"code":"ROOM01","phase":"running","seats":[]}}`,
		`{"type":"update","epoch":"E1","from":4,"to":5,"by":0,"beats":[]}`,
		`{"type":"update","epoch":"E1","from":7,"to":8,"by":0,"beats":[]}`,
	} {
		msg, err := protocol.DecodeServer([]byte(frame))
		if err != nil {
			log.Fatal(err)
		}
		st := k.Receive(msg, nil)
		if st.Online {
			k.SetState(client.StateOnline, 0)
		}
		_, rev := k.Position()
		switch {
		case st.Resync != nil:
			fmt.Printf("%s: a gap; send a resync from %d\n", msg.Type, st.Resync.Rev)
		default:
			fmt.Printf("%s: at revision %d\n", msg.Type, rev)
		}
	}
	fmt.Println("token:", k.Token())
	// Output:
	// welcome: at revision 0
	// snapshot: at revision 4
	// update: at revision 5
	// update: a gap; send a resync from 7
	// token: tok-1
}

// startRoomd runs a roomd front (Minesweeper, a memory store) on a
// loopback port and returns its base URL, and how to stop it.
func startRoomd() (base string, stop func()) {
	rooms, err := room.NewManager(room.Config{Games: session.NewRegistry(minesweeper.Game), Store: memstore.New()})
	if err != nil {
		log.Fatal(err)
	}
	front, err := transport.NewServer(transport.Config{Rooms: rooms})
	if err != nil {
		log.Fatal(err)
	}
	hs := httptest.NewServer(front.Handler())
	return hs.URL, func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = front.Shutdown(ctx)
		hs.Close()
	}
}

// createRoom creates a room over HTTP, seated as its host: the room's
// code and the host's seat token.
func createRoom(base, game, settings, name string) (code, token string) {
	body, _ := json.Marshal(map[string]any{"game": game, "settings": json.RawMessage(settings), "name": name})
	resp, err := http.Post(base+"/api/rooms", "application/json", bytes.NewReader(body))
	if err != nil {
		log.Fatal(err)
	}
	defer resp.Body.Close()
	var res room.JoinResult
	if err := json.NewDecoder(resp.Body).Decode(&res); err != nil || resp.StatusCode != http.StatusCreated {
		log.Fatalf("create: %d %v", resp.StatusCode, err)
	}
	return res.Room, res.Token
}
