package room

// pause.go keeps a graceful restart out of a match's time. A server that
// stops with SIGTERM writes each running match's stop time into its final
// snapshot; the process that loads the room again credits the match with
// the gap (a kindResume entry, so a restore replays it), and the match's
// clock, its moves' times and its result leave the downtime out: players
// are not timed while no server ran their game. A crash (kill -9) leaves no
// stop time — the server cannot know when it died — and its downtime
// counts, as it always did (PROTOCOL.md §4, presence).

// noteStop marks a running, turn-based match as stopped now, for the final
// snapshot. A real-time match's time is its ticks, which stop with the
// server anyway.
func (r *Room) noteStop() {
	if r.st.Phase == phaseRunning && !r.st.stepped() && r.st.sess != nil {
		if _, started := r.st.sess.Started(); started {
			r.st.Stopped = r.now().UnixMilli()
		}
	}
}

// resumeAfterStop credits a match restored after a graceful stop with the
// downtime, before the room takes any input, and stores it.
func (r *Room) resumeAfterStop() {
	st := r.st
	if st.Stopped == 0 {
		return
	}
	pause := r.now().UnixMilli() - st.Stopped
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
