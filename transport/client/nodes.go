package client

import (
	"errors"
	"net/url"
	"strings"
	"time"

	"github.com/roomd/roomd/protocol"
)

// MaxMovesInARow is how many moved closes (4009, PROTOCOL.md §2.3) in a
// row a Remote follows at once, after the bye's retryAfterMs. Past it, each
// further move waits the backoff as a lost socket does: two nodes that
// disagree about who owns a room can slow a client down but never make it
// spin between them.
const MaxMovesInARow = 3

// movedCalm is how long a connection must stay online to end a run of
// moves: moves further apart than that (a rolling restart draining one node
// after another) are each followed at once.
const movedCalm = 10 * time.Second

// nodes is the list of base URLs a Remote dials in turn, and where its next
// dial goes. Only the Remote's run goroutine uses it.
type nodes struct {
	bases   []string // base URLs, in the order configured
	sockets []string // their WebSocket URLs
	next    int      // the index dialed next
	// moved is the socket URL a moved bye named, dialed next, once.
	movedBase, moved string
}

// newNodes builds the list from a Config: URL first, then URLs, without
// empty entries or repeats.
func newNodes(first string, more []string) (*nodes, error) {
	n := &nodes{}
	for _, base := range append([]string{first}, more...) {
		base = strings.TrimSpace(base)
		if base == "" {
			continue
		}
		ws, err := SocketURL(base)
		if err != nil {
			return nil, err
		}
		dup := false
		for _, s := range n.sockets {
			dup = dup || s == ws
		}
		if !dup {
			n.bases, n.sockets = append(n.bases, base), append(n.sockets, ws)
		}
	}
	if len(n.bases) == 0 {
		return nil, errors.New("transport: no server URL (Config.URL or Config.URLs)")
	}
	return n, nil
}

// pick returns the node to dial now: the one a moved bye named, else the
// current one of the list.
func (n *nodes) pick() (base, socket string) {
	if n.moved != "" {
		base, socket = n.movedBase, n.moved
		n.movedBase, n.moved = "", ""
		return base, socket
	}
	return n.bases[n.next], n.sockets[n.next]
}

// advance makes the next dial go to the next node of the list (round
// robin): after a lost socket, a refused dial or a close that asks the
// client to come back, another node may well answer where this one did
// not.
func (n *nodes) advance() { n.next = (n.next + 1) % len(n.bases) }

// moveTo makes the next dial go to base, the node a moved bye named, and
// reports whether it may: base must be an http(s) or ws(s) URL with a host,
// and never plain text when the client was on TLS (its seat token goes in
// the hello). Otherwise the client keeps to its own list.
func (n *nodes) moveTo(base, from string) bool {
	u, err := url.Parse(base)
	if err != nil || u.Host == "" || u.User != nil {
		return false
	}
	ws, err := SocketURL(base)
	if err != nil {
		return false
	}
	if strings.HasPrefix(from, "wss:") && !strings.HasPrefix(ws, "wss:") {
		return false
	}
	n.movedBase, n.moved = base, ws
	return true
}

// movedBye reports whether a connection that ended with code, after bye
// (nil when none came), ended because its room moved to another node. A
// moved bye whose close frame was lost on the way still counts.
func movedBye(code int, bye *protocol.Bye) bool {
	if code == protocol.CloseMoved {
		return true
	}
	return bye != nil && bye.Code == protocol.CloseMoved && !protocol.Terminal(code)
}
