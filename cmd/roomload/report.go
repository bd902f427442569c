package main

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// result is one run's figures; moves are those sent inside the window.
type result struct {
	URL          string  `json:"url"`
	Rooms        int     `json:"rooms"`
	Players      int     `json:"players"` // per room
	Sockets      int     `json:"sockets"`
	Rate         float64 `json:"ratePerPlayer"`
	WindowS      float64 `json:"windowSeconds"`
	SetupS       float64 `json:"setupSeconds"`
	Sent         int64   `json:"movesSent"`
	MovesPerSec  float64 `json:"movesPerSecond"`
	Receipts     int64   `json:"receipts"`    // accepted or refused
	Refused      int64   `json:"refused"`     // any refusal is a failure
	OwnUpdates   int64   `json:"ownUpdates"`  // the update each accepted move caused, back to its sender
	Unanswered   int64   `json:"unanswered"`  // moves without their receipt, or accepted without their update, after the drain
	SocketsLost  int64   `json:"socketsLost"` // sockets that ended before the tool closed them
	Behind       int64   `json:"behindSchedule"`
	FramesPerMov float64 `json:"framesPerMove"` // frames all players received in the window, per move sent

	ServerCPUS         float64 `json:"serverCpuSeconds"`
	ServerCPUPerMoveUs float64 `json:"serverCpuPerMoveUs"`
	ToolCPUS           float64 `json:"toolCpuSeconds"`
	ToolCPUPerMoveUs   float64 `json:"toolCpuPerMoveUs"`

	Spectators             int     `json:"spectators"`             // per room
	SpecDeliveries         int64   `json:"spectatorDeliveries"`    // updates spectators received in the window
	ServerCPUPerDeliveryUs float64 `json:"serverCpuPerDeliveryUs"` // server CPU per update delivered to anyone (players' own and others', spectators')

	Receipt  latency          `json:"receiptLatency"`   // send → own receipt (accepted moves)
	Update   latency          `json:"updateLatency"`    // send → own update
	Spectate latency          `json:"spectatorLatency"` // send → a spectator's copy
	Refusals map[string]int64 `json:"refusals,omitempty"`
}

type latency struct {
	Count int64   `json:"count"`
	P50   float64 `json:"p50Ms"`
	P90   float64 `json:"p90Ms"`
	P99   float64 `json:"p99Ms"`
	Max   float64 `json:"maxMs"`
}

func summarize(h *hdrhistogram.Histogram) latency {
	ms := func(q float64) float64 { return float64(h.ValueAtQuantile(q)) / 1000 }
	return latency{Count: h.TotalCount(), P50: ms(50), P90: ms(90), P99: ms(99), Max: float64(h.Max()) / 1000}
}

func (l *loader) result(sockets int, setup time.Duration, serverCPU, toolCPU float64) *result {
	st := l.st
	st.mu.Lock()
	defer st.mu.Unlock()
	r := &result{URL: l.cfg.URL, Rooms: l.cfg.Rooms, Players: l.cfg.Players, Sockets: sockets, Rate: l.cfg.Rate,
		WindowS: l.cfg.Duration.Seconds(), SetupS: setup.Seconds(),
		Sent: st.sent.Load(), Receipts: st.receipts.Load(), OwnUpdates: st.updates.Load(),
		SocketsLost: st.lost.Load(), Behind: st.behind.Load(),
		ServerCPUS: serverCPU, ToolCPUS: toolCPU,
		Receipt: summarize(st.receiptLat), Update: summarize(st.updateLat), Refusals: maps.Clone(st.refusals),
		Spectators: l.cfg.Spectators, SpecDeliveries: st.specUpdates.Load(), Spectate: summarize(st.specLat)}
	for _, n := range r.Refusals {
		r.Refused += n
	}
	r.Unanswered = r.Sent - st.done.Load()
	r.MovesPerSec = float64(r.Sent) / r.WindowS
	if r.Sent > 0 {
		r.FramesPerMov = float64(st.frames.Load()) / float64(r.Sent)
		r.ServerCPUPerMoveUs = serverCPU / float64(r.Sent) * 1e6
		r.ToolCPUPerMoveUs = toolCPU / float64(r.Sent) * 1e6
		// Each move's update goes to every player and spectator of its room.
		r.ServerCPUPerDeliveryUs = serverCPU / float64(r.Sent*int64(l.cfg.Players+l.cfg.Spectators)) * 1e6
	}
	return r
}

// line is the run in one line.
func (r *result) line() string {
	refusals := ""
	for _, code := range slices.Sorted(maps.Keys(r.Refusals)) {
		refusals += fmt.Sprintf(" %s=%d", code, r.Refusals[code])
	}
	spec := ""
	if r.Spectators > 0 {
		spec = fmt.Sprintf(" · %d spectators/room: %d deliveries, p50 %.3f ms p99 %.2f ms, server %.1f µs/delivery",
			r.Spectators, r.SpecDeliveries, r.Spectate.P50, r.Spectate.P99, r.ServerCPUPerDeliveryUs)
	}
	return fmt.Sprintf("%s %d×%d @%g/s %gs: %.1f moves/s · server %.1f µs/move · tool %.1f µs/move · "+
		"receipt p50 %.3f ms p99 %.2f ms · update p50 %.3f ms p99 %.2f ms · %.2f frames/move%s · %d refused%s, %d unanswered, %d sockets lost",
		r.URL, r.Rooms, r.Players, r.Rate, r.WindowS, r.MovesPerSec, r.ServerCPUPerMoveUs, r.ToolCPUPerMoveUs,
		r.Receipt.P50, r.Receipt.P99, r.Update.P50, r.Update.P99, r.FramesPerMov, spec, r.Refused, refusals, r.Unanswered, r.SocketsLost)
}

// failures says what went wrong, or "".
func (r *result) failures() string {
	var f []string
	if r.Sent == 0 {
		f = append(f, "no move in the window")
	}
	if r.Refused > 0 {
		f = append(f, fmt.Sprintf("%d moves refused", r.Refused))
	}
	if r.Unanswered > 0 {
		f = append(f, fmt.Sprintf("%d moves unanswered", r.Unanswered))
	}
	if r.Spectators > 0 && r.SpecDeliveries == 0 {
		f = append(f, "no spectator received an update")
	}
	if r.SocketsLost > 0 {
		f = append(f, fmt.Sprintf("%d sockets lost", r.SocketsLost))
	}
	return strings.Join(f, ", ")
}
