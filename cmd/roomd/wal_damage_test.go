package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/roomd/roomd/protocol"
)

// The write-ahead log's damage, with the real binary and real files
// (STORAGE.md, "A damaged write-ahead log"). One run of roomd plays a few
// rooms and is killed (-9) with every move since the last checkpoint in
// roomd.wal; each case then damages a copy of that data directory and
// starts roomd on it.

// walRec is one record of a write-ahead log file: where it starts and
// ends, and its sequence number (store/boltstore/wal.go has the format).
type walRec struct {
	off, end int
	seq      uint64
}

// walRun reads a log file's run: its records from offset 0, each one above
// the last, up to the first that is not.
func walRun(data []byte) []walRec {
	var run []walRec
	for off := 0; off+20 <= len(data); {
		size := int(binary.BigEndian.Uint32(data[off+4:]))
		if size < 12 || off+8+size > len(data) {
			break
		}
		payload := data[off+8 : off+8+size]
		seq := binary.BigEndian.Uint64(payload)
		if crc32.Checksum(payload, crc32.MakeTable(crc32.Castagnoli)) != binary.BigEndian.Uint32(data[off:]) ||
			len(run) > 0 && seq != run[len(run)-1].seq+1 {
			break
		}
		run = append(run, walRec{off: off, end: off + 8 + size, seq: seq})
		off += 8 + size
	}
	return run
}

// hashDir returns the SHA-256 of every file under dir, by path.
func hashDir(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(data)
		rel, _ := filepath.Rel(dir, path)
		out[rel] = hex.EncodeToString(sum[:])
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// copyDir copies the files of src (no subdirectories) into a new
// directory.
func copyDir(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// crashedRoom is a room of the crashed run: its seat, and what its client
// saw acknowledged.
type crashedRoom struct {
	code, token string
	epoch       string
	rev         uint64          // the last revision acknowledged
	flags       map[string]bool // the commands acknowledged
}

// crashedLog plays rooms on a roomd whose checkpoints never come due, so
// that everything after the rooms' creation stays in roomd.wal, and kills
// it: the data directory and the rooms as their clients saw them. Before
// the moves it plays as many into the log, which a checkpoint then
// carries into bbolt, so that the log's file is larger than the run the
// crash leaves in it (the log is rewritten in place from offset 0 after a
// checkpoint).
func crashedLog(t *testing.T, rooms, moves int) (string, []*crashedRoom) {
	t.Helper()
	addr, data := freeAddr(t), t.TempDir()
	p := startRoomd(t, addr, "--data", data, "--checkpoint-interval", "1h")
	flaggers := startFlaggers(t, p.URL, rooms)
	play := func() {
		var wg sync.WaitGroup
		for _, f := range flaggers {
			wg.Go(func() {
				tick := time.NewTicker(55 * time.Millisecond) // under a socket's 20 actions a second
				defer tick.Stop()
				for range moves {
					<-tick.C
					cmd := flagCmd(f.next)
					id := f.send(protocol.Action{Type: protocol.TypeCommand, Command: cmd})
					f.mu.Lock()
					f.sent[id] = cmd
					f.mu.Unlock()
					if ok, code, _ := f.waitReceipt(id, 10*time.Second); !ok {
						t.Errorf("room %s: flag %d: %s", f.room, f.next, code)
						return
					}
					f.next++
				}
			})
		}
		wg.Wait()
	}
	play()
	createRoom(t, p.URL, `{"mode":"solo","level":"beginner"}`) // a transaction: the checkpoint
	play()
	if t.Failed() {
		t.FailNow()
	}
	p.kill9()
	var out []*crashedRoom
	for _, f := range flaggers {
		epoch, rev := f.tr.Position()
		out = append(out, &crashedRoom{code: f.room, token: f.token, epoch: epoch, rev: rev, flags: f.ackedFlags()})
		f.close()
	}
	return data, out
}

// roomdFails runs roomd on data with args, which must exit with status 1
// within 30 s, without serving; it returns what roomd logged.
func roomdFails(t *testing.T, data string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, roomdBinary(t), append([]string{"--addr", freeAddr(t), "--log-format", "json", "--data", data}, args...)...)
	logs := &syncWriter{w: &bytes.Buffer{}}
	cmd.Stdout, cmd.Stderr = &startWatch{w: logs, started: cancel}, logs
	err := cmd.Run()
	text := logs.w.(*bytes.Buffer).String()
	if code := cmd.ProcessState.ExitCode(); code != 1 {
		t.Fatalf("roomd on a damaged log: exit %d (%v), want 1\n%s", code, err, text)
	}
	return text
}

// startWatch passes roomd's stdout on and calls started (ending roomd) if
// roomd says it is running.
type startWatch struct {
	w       io.Writer
	started func()
}

func (s *startWatch) Write(b []byte) (int, error) {
	if bytes.Contains(b, []byte("roomd is running")) {
		s.started()
	}
	return s.w.Write(b)
}

// cameBack dials each room afresh (no epoch or revision to go by) and
// returns the snapshot it gets.
func cameBack(t *testing.T, base string, rooms []*crashedRoom) []*protocol.Snapshot {
	t.Helper()
	var out []*protocol.Snapshot
	for _, r := range rooms {
		b := dialBot(t, base, r.code, r.token)
		b.until("snapshot", 10*time.Second, func() bool { return b.snapshot != nil })
		b.mu.Lock()
		out = append(out, b.snapshot)
		b.mu.Unlock()
		b.close()
	}
	return out
}

// walDamages are the damages of the issue, each in the middle of the run
// the crash left in roomd.wal: they return the damaged bytes and the
// offset where the log now stops short.
var walDamages = []struct {
	name   string
	damage func(raw []byte, run []walRec) ([]byte, int)
}{
	{"flipped byte", func(raw []byte, run []walRec) ([]byte, int) {
		r := run[len(run)/2]
		raw[r.off+30] ^= 0xff
		return raw, r.off
	}},
	{"zeroed page", func(raw []byte, run []walRec) ([]byte, int) {
		page := run[len(run)/2].off &^ 4095
		clear(raw[page : page+4096])
		for _, r := range run {
			if r.end > page {
				return raw, r.off
			}
		}
		panic("no record in the page")
	}},
	{"cut", func(raw []byte, run []walRec) ([]byte, int) {
		r := run[len(run)/2]
		return raw[:r.off+10], r.off
	}},
}

// damaged copies the crashed data directory and damages its roomd.wal:
// the copy, the offset where the log stops short, and the damaged bytes.
func damaged(t *testing.T, crashed string, damage func([]byte, []walRec) ([]byte, int)) (string, int, []byte) {
	t.Helper()
	data := copyDir(t, crashed)
	path := filepath.Join(data, "roomd.wal")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	run := walRun(raw)
	if len(run) < 20 || run[len(run)-1].off < run[len(run)/2].off+2*4096 {
		t.Fatalf("the crash left a run of %d records in %d bytes: too few to damage its middle", len(run), run[len(run)-1].end)
	}
	raw, off := damage(raw, run)
	if err := os.WriteFile(path, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	return data, off, raw
}

// TestWALDamage: a flipped byte, a zeroed 4 KiB page or a cut in the middle
// of roomd.wal, under the real binary. roomd exits with status 1 and an
// error that names the file, the offset, the intact records after the
// damage and their rooms, changing no file; with
// --wal-recover=discard-after-damage it starts, keeps the damaged files,
// and every room comes back in a new epoch (once: a restart keeps it). A
// torn last record is dropped with a warning naming it, and nothing
// acknowledged is lost.
func TestWALDamage(t *testing.T) {
	t.Parallel()
	crashed, rooms := crashedLog(t, 6, 30)
	for _, tc := range walDamages {
		t.Run(tc.name+"/refused", func(t *testing.T) {
			t.Parallel()
			data, off, _ := damaged(t, crashed, tc.damage)
			before := hashDir(t, data)
			logs := roomdFails(t, data)
			t.Logf("roomd: %s", lastLine(logs))
			want := []string{`"level":"ERROR"`, "write-ahead log damaged", fmt.Sprintf("roomd.wal, offset %d", off),
				"intact records follow the damage", "nothing was changed", "--wal-recover=discard-after-damage"}
			if tc.name != "cut" {
				for _, r := range rooms {
					want = append(want, r.code) // the records after the damage write every room
				}
			}
			for _, w := range want {
				if !strings.Contains(logs, w) {
					t.Errorf("the error lacks %q:\n%s", w, logs)
				}
			}
			if after := hashDir(t, data); !maps.Equal(before, after) {
				t.Fatalf("roomd changed the data directory it refused:\nbefore %v\nafter  %v", before, after)
			}
		})
		t.Run(tc.name+"/discarded", func(t *testing.T) {
			t.Parallel()
			data, off, raw := damaged(t, crashed, tc.damage)
			addr := freeAddr(t)
			p := startRoomd(t, addr, "--data", data, "--wal-recover", "discard-after-damage")
			want := []string{`"level":"WARN"`, "write-ahead log damaged", fmt.Sprintf(`"offset":%d`, off), `"kept":`}
			logs := p.logUntil(want...)
			for _, w := range want {
				if !strings.Contains(logs, w) {
					t.Errorf("the log lacks %q:\n%s", w, logs)
				}
			}
			kept, _ := filepath.Glob(filepath.Join(data, "damaged-*", "roomd.wal"))
			if len(kept) != 1 {
				t.Fatalf("kept copies %v, want one damaged-*/roomd.wal in %s", kept, data)
			}
			if got, err := os.ReadFile(kept[0]); err != nil || !bytes.Equal(got, raw) {
				t.Fatalf("the kept %s (%v) is not the damaged file", kept[0], err)
			}
			snaps := cameBack(t, p.URL, rooms)
			epochs := map[string]string{}
			for i, r := range rooms {
				if snaps[i].Epoch == r.epoch || snaps[i].Rev >= r.rev {
					t.Errorf("room %s came back in epoch %s at rev %d; it was in %s at %d (want a new epoch, an earlier revision)",
						r.code, snaps[i].Epoch, snaps[i].Rev, r.epoch, r.rev)
				}
				epochs[r.code] = snaps[i].Epoch
			}
			if tc.name != "zeroed page" {
				return
			}
			// A restart keeps the new epochs: the rooms moved once.
			p.term()
			p = startRoomd(t, addr, "--data", data)
			for i, s := range cameBack(t, p.URL, rooms) {
				if s.Epoch != epochs[rooms[i].code] {
					t.Errorf("room %s moved again after a restart: epoch %s, was %s", rooms[i].code, s.Epoch, epochs[rooms[i].code])
				}
			}
			p.term()
		})
	}
	t.Run("torn tail", func(t *testing.T) {
		t.Parallel()
		// The record being written when roomd died, cut short: a copy of
		// the last record as the next one, half of it, written where roomd
		// would have written it — over the stale bytes a checkpoint left
		// after the run, which stay. (Cutting the file there instead would
		// make it shorter than the size bbolt recorded: that is the "cut"
		// damage, refused, not a torn tail.)
		var off int
		data, _, _ := damaged(t, crashed, func(raw []byte, run []walRec) ([]byte, int) {
			last := run[len(run)-1]
			torn := slices.Clone(raw[last.off:last.end])
			binary.BigEndian.PutUint64(torn[8:], last.seq+1)
			off = last.end
			half := torn[:len(torn)/2]
			if grow := off + len(half) - len(raw); grow > 0 {
				raw = append(raw, make([]byte, grow)...)
			}
			copy(raw[off:], half)
			return raw, off
		})
		p := startRoomd(t, freeAddr(t), "--data", data)
		want := []string{`"level":"WARN"`, "torn", `"file":"roomd.wal"`, fmt.Sprintf(`"offset":%d`, off)}
		logs := p.logUntil(want...)
		for _, w := range want {
			if !strings.Contains(logs, w) {
				t.Errorf("the log lacks %q:\n%s", w, logs)
			}
		}
		for i, s := range cameBack(t, p.URL, rooms) {
			r := rooms[i]
			have := flaggedCells(t, s)
			for cmd := range r.flags {
				if !have[cmd] {
					t.Errorf("room %s: acknowledged %s lost with the torn record", r.code, cmd)
				}
			}
			if s.Epoch != r.epoch || s.Rev != r.rev {
				t.Errorf("room %s came back in epoch %s at rev %d; it was in %s at %d", r.code, s.Epoch, s.Rev, r.epoch, r.rev)
			}
		}
		p.term()
	})
}

// lastLine is the last line of roomd's output.
func lastLine(logs string) string {
	lines := strings.Split(strings.TrimSpace(logs), "\n")
	return lines[len(lines)-1]
}
