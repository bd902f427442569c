package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
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
// within 30 s; it returns what roomd logged.
func roomdFails(t *testing.T, data string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, roomdBinary(t), append([]string{"--addr", freeAddr(t), "--log-format", "json", "--data", data}, args...)...)
	var logs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	err := cmd.Run()
	if code := cmd.ProcessState.ExitCode(); code != 1 {
		t.Fatalf("roomd on a damaged log: exit %d (%v), want 1\n%s", code, err, logs.String())
	}
	return logs.String()
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

// TestWALDamageRepro is the finding.
func TestWALDamageRepro(t *testing.T) {
	crashed, rooms := crashedLog(t, 30, 100) // about 200 revisions a room, as in the issue
	for _, damage := range []string{"flip", "zero", "cut"} {
		data := copyDir(t, crashed)
		path := filepath.Join(data, "roomd.wal")
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		run := walRun(raw)
		r := run[len(run)/2]
		switch damage {
		case "flip":
			raw[r.off+30] ^= 0xff
		case "zero":
			mid := r.off &^ 4095
			clear(raw[mid : mid+4096])
		case "cut":
			raw = raw[:r.off+10]
		}
		t.Logf("%s: roomd.wal: run of %d records (seq %d..%d) ending at %d; damage at %d", damage, len(run), run[0].seq, run[len(run)-1].seq, run[len(run)-1].end, r.off)
		if err := os.WriteFile(path, raw, 0o600); err != nil {
			t.Fatal(err)
		}
		p := startRoomd(t, freeAddr(t), "--data", data)
		snaps := cameBack(t, p.URL, rooms)
		revs := map[string]int{}
		same := 0
		for i, r := range rooms {
			revs[fmt.Sprintf("%d->%d", r.rev, snaps[i].Rev)]++
			if snaps[i].Epoch == r.epoch {
				same++
			}
		}
		t.Logf("%s: started normally; acked->came back: %v; %d of %d rooms in the same epoch", damage, revs, same, len(rooms))
		p.term()
	}
}
