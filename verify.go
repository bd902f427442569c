package roomd

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/roomd/roomd/room"
)

// verify implements `roomd verify`: exit 0 when the match checks out,
// 1 when it does not, 2 when the record cannot be read.
func (c Command) verify(args []string) int {
	stdin, stdout, stderr := c.Stdin, c.Stdout, c.Stderr
	fs := flag.NewFlagSet("verify", flag.ContinueOnError)
	commitment := fs.String("commitment", "", "the commitment you saw when the match started (room.commitment), in hex")
	name, ok := parseFileArg(fs, args, stderr, `Usage: roomd verify [--commitment HEX] FILE|URL|-

Checks a finished match without trusting the server that hosted it. The
record is what GET /api/rooms/{code}/replay serves ({game, seed, config,
seats, log, result}): a file, that URL, or "-" for standard input. It
checks that SHA-256 of the disclosed secret (result.seed) is the commitment
published when the match started (--commitment, and result.commitment),
and that the moves, replayed on the board the secret gives, end as the
result says. Prints one JSON line {game, fair, commitment, replay, outcome}.
Exit status: 0 fair, 1 not, 2 unreadable input.

Flags:
`)
	if !ok {
		return 2
	}
	data, err := readRecord(name, stdin, room.MaxReplayBytes)
	if err != nil {
		fmt.Fprintf(stderr, "roomd verify: %v\n", err)
		return 2
	}
	if *commitment != "" {
		var rec map[string]json.RawMessage
		if err := json.Unmarshal(data, &rec); err != nil {
			fmt.Fprintf(stderr, "roomd verify: %s: %v\n", displayName(name), err)
			return 2
		}
		rec["commitment"], _ = json.Marshal(strings.ToLower(*commitment))
		data, _ = json.Marshal(rec)
	}
	reg, err := registryOf(c.Games)
	if err != nil {
		fmt.Fprintf(stderr, "roomd verify: %v\n", err)
		return 2
	}
	v, err := room.Verify(reg, data)
	if err != nil {
		fmt.Fprintf(stderr, "roomd verify: %s: %v\n", displayName(name), err)
		return 2
	}
	line, _ := json.Marshal(v)
	fmt.Fprintln(stdout, string(line))
	if !v.Fair {
		return 1
	}
	return 0
}

// readRecord reads a record from a file, an http(s) URL or stdin ("-"), of
// at most limit bytes.
func readRecord(name string, stdin io.Reader, limit int) ([]byte, error) {
	var r io.Reader
	switch {
	case name == "-":
		r = stdin
	case strings.HasPrefix(name, "http://") || strings.HasPrefix(name, "https://"):
		client := &http.Client{Timeout: 10 * time.Second}
		resp, err := client.Get(name)
		if err != nil {
			return nil, err
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return nil, fmt.Errorf("%s answered %s", name, resp.Status)
		}
		r = resp.Body
	default:
		f, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		r = f
	}
	data, err := io.ReadAll(io.LimitReader(r, int64(limit)+1))
	if err == nil && len(data) > limit {
		err = fmt.Errorf("%s is larger than %d bytes", displayName(name), limit)
	}
	return data, err
}
