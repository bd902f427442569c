package local

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/roomd/roomd/core/minesweeper"
	"github.com/roomd/roomd/core/session"
	"github.com/roomd/roomd/protocol"
)

func TestLocalTransport(t *testing.T) {
	now := 1000.0
	lt := New(Config{Game: minesweeper.Game, Config: json.RawMessage(`{"rows":3,"cols":3,"mines":0}`), Seed: 5,
		Clock: func() float64 { now += 10; return now }})
	defer lt.Close()
	ctx := context.Background()
	if err := lt.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if ev := <-lt.Events(); ev.Snapshot == nil || !strings.Contains(string(mustJSON(ev.Snapshot.View)), `"phase":"fresh"`) {
		t.Fatalf("first event %+v", ev)
	}
	id, err := lt.Send(ctx, protocol.Action{Type: protocol.TypeCommand, Command: json.RawMessage(`{"type":"reveal","r":1,"c":1}`)})
	if err != nil {
		t.Fatal(err)
	}
	if ev := <-lt.Events(); ev.Receipt == nil || ev.Receipt.ID != id || !ev.Receipt.OK {
		t.Fatalf("receipt %+v", ev)
	}
	ev := <-lt.Events()
	if ev.Update == nil || ev.Update.Result == nil || ev.Update.Result.Status != "won" {
		t.Fatalf("update %+v", ev.Update)
	}
	if res, ok := lt.Result(); !ok || res.Status != "won" {
		t.Fatalf("result %+v", res)
	}
	if _, err := lt.Send(ctx, protocol.Action{Type: protocol.TypeCommand, Command: json.RawMessage(`{"type":"reveal","r":0,"c":0}`)}); err != nil {
		t.Fatal(err)
	}
	if ev := <-lt.Events(); ev.Receipt == nil || ev.Receipt.OK || ev.Receipt.Notice.Code != session.CodeGameOver {
		t.Fatalf("move after the end: %+v", ev.Receipt)
	}
}

func mustJSON(v any) []byte { b, _ := json.Marshal(v); return b }
