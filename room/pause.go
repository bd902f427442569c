package room

import (
	"context"
	"strconv"
	"time"
)

// pause.go keeps a server's downtime out of a match's time. A server that
// stops with SIGTERM writes each running match's stop time into its final
// snapshot; one that crashes (kill -9) leaves none, but it noted every
// second that it ran (a heartbeat in the store's claims), so the next
// process knows to the second when it died. The process that loads the
// room again credits a match that was running with the gap — since the
// stop, or since the last heartbeat when the room's last change is older
// than this process — as a kindResume entry (so a restore replays it), and
// the match's clock, its moves' times and its result leave the downtime
// out: players are not timed while no server ran their game (PROTOCOL.md
// §4, presence).

// aliveKey is the heartbeat's claim: one per node in a cluster (a node
// restarted with its id credits its own downtime; the others run on).
func (m *Manager) aliveKey() string {
	if m.clustered() {
		return "alive:" + m.cfg.Node
	}
	return "alive"
}

// startAlive reads the previous process's last heartbeat and starts this
// one's. It is a start-up read, before any room runs.
func (m *Manager) startAlive() {
	m.started = m.cfg.Now()
	if m.cfg.Claims == nil || m.cfg.AliveEvery < 0 {
		return
	}
	every := m.cfg.AliveEvery
	if every == 0 {
		every = time.Second
	}
	ctx, cancel := context.WithTimeout(context.Background(), m.cfg.StoreTimeout)
	held, _, err := m.cfg.Claims.Claim(ctx, m.aliveKey(), []byte("0"), 0)
	cancel()
	if err != nil {
		m.cfg.Logger.Warn("the last heartbeat could not be read: a crash's downtime will count in matches' time", "err", err)
	} else {
		m.lastAlive, _ = strconv.ParseInt(string(held), 10, 64)
	}
	m.aliveStop, m.aliveDone = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(m.aliveDone)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			ctx, cancel := context.WithTimeout(context.Background(), m.cfg.StoreTimeout)
			if err := m.cfg.Claims.Mark(ctx, m.aliveKey(), strconv.AppendInt(nil, m.cfg.Now().UnixMilli(), 10)); err != nil {
				m.cfg.Logger.Debug("heartbeat not stored", "err", err)
			}
			cancel()
			select {
			case <-t.C:
			case <-m.aliveStop:
				return
			}
		}
	}()
}

// stopAlive stops the heartbeat (a graceful stop notes its own time).
func (m *Manager) stopAlive() {
	if m.aliveStop == nil {
		return
	}
	m.aliveOnce.Do(func() { close(m.aliveStop) })
	<-m.aliveDone
}

// noteStop marks a running, turn-based match as stopped now, for the final
// snapshot. A real-time match's time is its ticks, which stop with the
// server anyway.
func (r *Room) noteStop() {
	if r.st.timed() {
		r.st.Stopped = r.now().UnixMilli()
	}
}

// crashed reports whether the room holds a match whose time a crash's
// downtime is credited to.
func (r *Room) crashed() bool { return r.st.timed() }

// timed reports whether the room holds a running, turn-based match whose
// time runs: its match clock has started, or its turn clock runs from the
// start.
func (st *state) timed() bool {
	if st.Phase != phaseRunning || st.stepped() || st.sess == nil {
		return false
	}
	if st.TurnClock != nil {
		return true
	}
	_, started := st.sess.Started()
	return started
}

// resumeAfterStop credits a match restored after a graceful stop or a crash
// with the downtime, before the room takes any input, and stores it.
func (r *Room) resumeAfterStop() {
	st := r.st
	now := r.now().UnixMilli()
	var pause int64
	switch {
	case st.Stopped != 0: // a graceful stop
		pause = now - st.Stopped
	case r.m.lastAlive > 0 && st.Activity < r.m.started.UnixMilli() && r.crashed():
		// A crash: the room's last change is from an earlier process, which
		// ran until its last heartbeat.
		pause = now - max(r.m.lastAlive, st.Activity)
	default:
		return
	}
	if st.Phase != phaseRunning || pause < 0 {
		st.Stopped = 0
		return
	}
	if err := r.accept(&entry{Kind: kindResume, Pause: pause}, pending{}); err != nil {
		r.log.Warn("could not credit the downtime of a restart", "pause_ms", pause, "err", err)
		st.Stopped = 0
		return
	}
	r.log.Info("match resumed after a restart; its clock leaves out the downtime", "pause_ms", pause)
	r.commit()
	r.flush()
}
