package room

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/roomd/roomd/core/cardgame"
	"github.com/roomd/roomd/core/games"
	"github.com/roomd/roomd/protocol"
	"github.com/roomd/roomd/store/boltstore"
	"github.com/roomd/roomd/store/memstore"
)

// cards1Dir holds two duels stored under rules cards/1 (testdata/fixtures/README.md).
const cards1Dir = "../testdata/fixtures/cards1"

type cards1Room struct {
	Code       string                     `json:"code"`
	What       string                     `json:"what"`
	Tokens     map[string]string          `json:"tokens"`
	Frames     map[string]json.RawMessage `json:"frames"`
	Replay     json.RawMessage            `json:"replay"`
	Commitment string                     `json:"commitment"`
}

func loadCards1(t *testing.T) []cards1Room {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(cards1Dir, "bolt.json"))
	if err != nil {
		t.Fatal(err)
	}
	var fx struct {
		Rooms []cards1Room `json:"rooms"`
	}
	if err := json.Unmarshal(data, &fx); err != nil {
		t.Fatal(err)
	}
	if len(fx.Rooms) != 2 || fx.Rooms[1].Replay == nil {
		t.Fatalf("%s: %d rooms, want a running and a finished duel", cards1Dir, len(fx.Rooms))
	}
	return fx.Rooms
}

// TestStoredCards1DuelsLoad: the duels an earlier build stored under rules
// cards/1 load with this build, as STORAGE.md's rule for changed rules
// says: the running one ends "rules-changed" (its moves are not replayed
// under the new deal), the finished one keeps its result (and its seed),
// and neither match is rebuilt (no view). The record the finished one's
// replay served before the change still verifies, re-derived the cards/1
// way, and does not under cards/2's derivation.
func TestStoredCards1DuelsLoad(t *testing.T) {
	rooms := loadCards1(t)
	dir := t.TempDir()
	for _, name := range []string{boltstore.BoltFile, boltstore.WALFile, boltstore.WALFile + ".1"} {
		data, err := os.ReadFile(filepath.Join(cards1Dir, "bolt", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	st, err := boltstore.Open(dir, boltstore.BoltOptions{SweepInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	m, err := NewManager(Config{Games: games.Registry(), Store: st, Leaderboards: st, AIDelay: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		m.Shutdown(ctx)
	}()
	for i, fr := range rooms {
		r, err := m.Get(context.Background(), fr.Code)
		if err != nil {
			t.Fatalf("%s (%s): %v", fr.Code, fr.What, err)
		}
		for _, who := range []string{"0", "spectator"} {
			c := newFake(fr.Code + "/" + who)
			if err := r.Hello(c, &protocol.Hello{Room: fr.Code, Token: fr.Tokens[who], Watch: who == "spectator"}); err != nil {
				t.Fatal(err)
			}
			got := c.last(t, protocol.TypeSnapshot).Snapshot
			want, err := protocol.DecodeServer(fr.Frames[who])
			if err != nil || want.Snapshot == nil {
				t.Fatalf("%s: fixture frame %s: %v", fr.Code, who, err)
			}
			if gv, _ := json.Marshal(got.View); string(gv) != "null" {
				t.Errorf("%s %s: the cards/1 match was rebuilt under cards/2: view %s", fr.Code, who, gv)
			}
			switch {
			case got.Result == nil:
				t.Fatalf("%s %s: no result; want the match ended", fr.Code, who)
			case i == 0 && got.Result.Status != "rules-changed":
				t.Errorf("%s %s: the running cards/1 match loaded with result %q, want rules-changed", fr.Code, who, got.Result.Status)
			case i == 1 && (got.Result.Status != want.Snapshot.Result.Status || string(got.Result.Seed) != string(want.Snapshot.Result.Seed)):
				t.Errorf("%s %s: result %s seed %s, want %s %s", fr.Code, who, got.Result.Status, got.Result.Seed, want.Snapshot.Result.Status, want.Snapshot.Result.Seed)
			}
			r.Drop(c)
		}
	}
	// The finished duel's record verifies as cards/1, and not as cards/2:
	// the derivation is what the check turns on.
	rec := rooms[1].Replay
	v, err := Verify(games.Registry(), withCommitment(t, rec, rooms[1].Commitment))
	if err != nil || !v.Fair {
		t.Fatalf("verify the stored cards/1 duel: %+v, %v", v, err)
	}
	var probe map[string]json.RawMessage
	json.Unmarshal(rec, &probe)
	probe["rulesVersion"] = json.RawMessage(`"cards/2"`)
	as2, _ := json.Marshal(probe)
	if v, err := Verify(games.Registry(), withCommitment(t, as2, rooms[1].Commitment)); err != nil || v.Fair || v.Outcome.OK {
		t.Fatalf("the cards/1 duel verified under cards/2's derivation: %+v, %v", v, err)
	}
	probe["rulesVersion"] = json.RawMessage(`"cards/0"`)
	unknown, _ := json.Marshal(probe)
	if _, err := Verify(games.Registry(), unknown); err == nil {
		t.Fatal("a duel of rules unknown to this build was verified")
	}
}

func withCommitment(t *testing.T, rec json.RawMessage, commitment string) []byte {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(rec, &m); err != nil {
		t.Fatal(err)
	}
	m["commitment"], _ = json.Marshal(commitment)
	out, _ := json.Marshal(m)
	return out
}

// TestDuelDealsFromTheSecret: a duel played to its end against the AI.
// Once its secret is disclosed, the hand seat 0 saw at the start is the
// top of its deck as PROTOCOL.md documents the deal (ChaCha8 keyed with the
// secret), and not as cards/1 derived it (mulberry32 seeded with the
// secret's first 32-bit output), which an attacker could search; the
// record verifies.
func TestDuelDealsFromTheSecret(t *testing.T) {
	st := memstore.New()
	defer st.Close()
	m, err := NewManager(Config{Games: games.Registry(), Store: st, AIDelay: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		m.Shutdown(ctx)
	}()
	ctx := context.Background()
	created, err := m.Create(ctx, CreateRequest{Game: "cards", Settings: json.RawMessage(`{"decks":["raiders","wardens"]}`), Name: "Ann"})
	if err != nil {
		t.Fatal(err)
	}
	r, _ := m.Get(ctx, created.Room)
	host := newFake("host")
	r.Hello(host, &protocol.Hello{Room: r.Code(), Token: created.Token})
	act(t, r, host, "ai", protocol.TypeControl, nil, &protocol.Control{Op: protocol.ControlFillWithAI})
	act(t, r, host, "go", protocol.TypeControl, nil, &protocol.Control{Op: protocol.ControlStart})
	var (
		firstHand []cardgame.HandCard
		first     int
		commit    string
	)
	for n := 0; ; n++ {
		if n > 3000 {
			t.Fatal("the duel does not end")
		}
		c := newFake(fmt.Sprint("probe", n))
		r.Hello(c, &protocol.Hello{Room: r.Code(), Token: created.Token})
		snap := c.last(t, protocol.TypeSnapshot).Snapshot
		r.Drop(c)
		if snap.Room.Phase != protocol.PhaseRunning {
			break
		}
		var v cardgame.View
		raw, _ := json.Marshal(snap.View)
		if err := json.Unmarshal(raw, &v); err != nil {
			t.Fatal(err)
		}
		if firstHand == nil {
			firstHand, first, commit = slices.Clone(v.Players[0].Hand), v.First, snap.Room.Commitment
		}
		if v.Active != 0 {
			time.Sleep(2 * time.Millisecond)
			continue
		}
		mv, ok := cardgame.Rules{}.Choose(v, 0, rand.New(rand.NewPCG(uint64(n), 1)))
		if !ok {
			t.Fatalf("no move in %s", raw)
		}
		cmd, _ := json.Marshal(mv)
		c = newFake(fmt.Sprint("mover", n))
		r.Hello(c, &protocol.Hello{Room: r.Code(), Token: created.Token})
		c.last(t, protocol.TypeSnapshot)
		if rc := act(t, r, c, fmt.Sprint("m", n), protocol.TypeCommand, cmd, nil); !rc.OK {
			t.Fatalf("%s refused: %+v", cmd, rc.Notice)
		}
		r.Drop(c)
	}
	rp, err := r.Replay(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var key [32]byte
	var hexSeed string
	if json.Unmarshal(rp.Seed, &hexSeed) != nil || len(hexSeed) != 64 {
		t.Fatalf("disclosed seed %s", rp.Seed)
	}
	hex.Decode(key[:], []byte(hexSeed))
	c := rand.NewChaCha8(key)
	documented := func() uint32 { return uint32(c.Uint64() >> 32) }
	old := mulberry(uint32(rand.NewChaCha8(key).Uint64() >> 32))
	decks := [2][]string{}
	for p, name := range []string{"raiders", "wardens"} {
		decks[p], _ = cardgame.PresetCards(name)
	}
	top := func(next func() uint32) ([]string, int) {
		var d [2][]string
		for p := range decks {
			d[p] = slices.Clone(decks[p])
			for i := len(d[p]) - 1; i > 0; i-- {
				j := int(uint64(next()) * uint64(i+1) >> 32)
				d[p][i], d[p][j] = d[p][j], d[p][i]
			}
		}
		return d[0], int(uint64(next()) * 2 >> 32)
	}
	seen := make([]string, len(firstHand))
	for i, h := range firstHand {
		seen[i] = h.Name
	}
	want, wantFirst := top(documented)
	if !slices.Equal(want[:len(seen)], seen) || wantFirst != first {
		t.Fatalf("re-derived as documented: hand %v, first seat %d; seat 0 saw %v, first %d", want[:len(seen)], wantFirst, seen, first)
	}
	if got, _ := top(old); slices.Equal(got[:len(seen)], seen) {
		t.Fatalf("cards/1's derivation from the secret's first 32 bits also gives the hand %v", seen)
	}
	v, err := Verify(games.Registry(), withCommitment(t, mustJSON(t, rp), commit))
	if err != nil || !v.Fair {
		t.Fatalf("verify the duel: %+v, %v", v, err)
	}
}

// mulberry is the reference's generator, seeded with a.
func mulberry(a uint32) func() uint32 {
	return func() uint32 {
		a += 0x6D2B79F5
		t := (a ^ (a >> 15)) * (a | 1)
		t = (t + (t^(t>>7))*(t|61)) ^ t
		return t ^ (t >> 14)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
