package admin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/roomd/roomd/internal/httpjson"
	"github.com/roomd/roomd/internal/ids"
	"github.com/roomd/roomd/room"
)

// cluster.go: the admin API of one node of several. Any node answers for
// all: the room list gathers every live node's own list (asked with
// ?local=1, at once and within Config.PeerTimeout), and a close or move of
// a room another node runs is forwarded to that node, with ?forwarded=1 so
// that it is forwarded at most once even when two nodes' views of the
// room's owner differ. A forwarded request carries the caller's
// Authorization: every node must have the same admin token.

// Cluster is what the admin API needs of the cluster this node is one of
// (*transport.Server has it).
type Cluster interface {
	// NodeID is this node's id; empty for a server alone.
	NodeID() string
	// Nodes are the live nodes, this one included, as last read.
	Nodes() []room.Node
	// RoomOwner returns the node that owns room code now; empty when none
	// does.
	RoomOwner(ctx context.Context, code string) (string, error)
	// MoveRoom hands room code, which this node runs, to node to.
	MoveRoom(ctx context.Context, code, to string) error
	// PeerRequest sends a request to node, signed as a node's; the caller
	// closes the answer's body.
	PeerRequest(ctx context.Context, node, method, path string, header http.Header, body []byte) (*http.Response, error)
}

const (
	// ownerTimeout bounds the store's answer to who owns a room.
	ownerTimeout = 3 * time.Second
	// moveTimeout bounds a move: the room's final write and its handing
	// over. A forward is bounded as well by the nodes' HTTP client.
	moveTimeout = 20 * time.Second
	// maxPeerAnswer bounds what is read of another node's answer (its
	// room list: a few hundred bytes a room).
	maxPeerAnswer = 64 << 20
	// maxMoveBody bounds a move's body, {"to": "node id"}.
	maxMoveBody = 4 << 10
)

// clusterOf returns the cluster this node is one of, or nil when it runs
// alone (none set, or a transport.Server built without a cluster).
func (a *API) clusterOf() Cluster {
	p := a.cluster.Load()
	if p == nil || (*p).NodeID() == "" {
		return nil
	}
	return *p
}

// roomList is the answer of GET /api/admin/rooms in a cluster: the node
// that answered, the rooms, and (unless local) every node with the error
// of those that did not list their rooms.
type roomList struct {
	Node    string    `json:"node"`
	Rooms   []roomRow `json:"rooms"`
	Nodes   []nodeRow `json:"nodes,omitempty"`
	Partial bool      `json:"partial,omitempty"`
}

// nodeRow is a node as it registered, and why its rooms are missing from
// the list, if they are.
type nodeRow struct {
	room.Node
	Error string `json:"error,omitempty"`
}

// liveNodes returns the live nodes by id, this one included even when its
// registration has not been read yet.
func liveNodes(c Cluster) []room.Node {
	nodes := c.Nodes()
	if !slices.ContainsFunc(nodes, func(n room.Node) bool { return n.ID == c.NodeID() }) {
		nodes = append(nodes, room.Node{ID: c.NodeID()})
	}
	slices.SortFunc(nodes, func(x, y room.Node) int { return strings.Compare(x.ID, y.ID) })
	return nodes
}

// allRooms lists the rooms of every live node: this node's own, and each
// other node's from its ?local=1 list, asked at once. A node that does not
// answer in time, or refuses, is reported in Nodes, not failing the list.
func (a *API) allRooms(r *http.Request, c Cluster) roomList {
	self := c.NodeID()
	list := roomList{Node: self, Rooms: a.localRooms(self)}
	nodes := liveNodes(c)
	list.Nodes = make([]nodeRow, len(nodes))
	found := make([][]roomRow, len(nodes))
	ctx, cancel := context.WithTimeout(r.Context(), a.cfg.PeerTimeout)
	defer cancel()
	var wg sync.WaitGroup
	for i, n := range nodes {
		list.Nodes[i].Node = n
		if n.ID == self {
			continue
		}
		wg.Go(func() {
			rows, err := a.peerRooms(ctx, c, n.ID, r.Header.Get("Authorization"))
			if err != nil {
				list.Nodes[i].Error = err.Error()
				return
			}
			found[i] = rows
		})
	}
	wg.Wait()
	for i, rows := range found {
		list.Rooms = append(list.Rooms, rows...)
		if list.Nodes[i].Error != "" {
			list.Partial = true
		}
	}
	sortRooms(list.Rooms)
	return list
}

// peerRooms asks node id for its own rooms.
func (a *API) peerRooms(ctx context.Context, c Cluster, id, auth string) ([]roomRow, error) {
	h := http.Header{}
	h.Set("Authorization", auth)
	resp, err := c.PeerRequest(ctx, id, http.MethodGet, "/api/admin/rooms?local=1", h, nil)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("node %s did not answer within %v", id, a.cfg.PeerTimeout)
		}
		return nil, fmt.Errorf("node %s did not answer: %v", id, err)
	}
	defer resp.Body.Close()
	body, err := readAnswer(resp)
	if err != nil {
		return nil, fmt.Errorf("node %s: %v", id, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("node %s answered %s: %s", id, resp.Status, answerError(body))
	}
	var got roomList
	if err := json.Unmarshal(body, &got); err != nil {
		return nil, fmt.Errorf("node %s sent an unreadable list: %v", id, err)
	}
	for i := range got.Rooms {
		got.Rooms[i].Node = id // the node asked: it lists only its own rooms
	}
	return got.Rooms, nil
}

// readAnswer reads another node's answer, bounded.
func readAnswer(resp *http.Response) ([]byte, error) {
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxPeerAnswer+1))
	if err != nil {
		return nil, fmt.Errorf("answer cut short: %v", err)
	}
	if len(body) > maxPeerAnswer {
		return nil, fmt.Errorf("answer larger than %d bytes", maxPeerAnswer)
	}
	return body, nil
}

// answerError is the words of an {"error": ...} answer, else its start.
func answerError(body []byte) string {
	var e struct{ Error string }
	if json.Unmarshal(body, &e) == nil && e.Error != "" {
		return e.Error
	}
	if len(body) > 200 {
		body = body[:200]
	}
	return strings.TrimSpace(string(body))
}

// nodes lists the live nodes (none for a server alone).
func (a *API) nodes(w http.ResponseWriter, r *http.Request) {
	c := a.clusterOf()
	if c == nil {
		httpjson.Write(w, http.StatusOK, map[string]any{"nodes": []room.Node{}})
		return
	}
	httpjson.Write(w, http.StatusOK, map[string]any{"node": c.NodeID(), "nodes": liveNodes(c)})
}

// moveRequest is the body of POST /api/admin/rooms/{code}/move.
type moveRequest struct {
	To string `json:"to"`
}

// move hands a room to another node: here when this node runs it, else
// forwarded to the node that does.
func (a *API) move(w http.ResponseWriter, r *http.Request) {
	c := a.clusterOf()
	if c == nil {
		httpjson.Error(w, http.StatusNotFound, "moving a room needs a cluster: this server runs alone")
		return
	}
	code := room.NormalizeCode(r.PathValue("code"))
	var req moveRequest
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxMoveBody))
	dec.DisallowUnknownFields() // {"node": ...} is a mistake, not a move to nowhere
	if err := dec.Decode(&req); err != nil {
		var tooBig *http.MaxBytesError
		switch {
		case errors.As(err, &tooBig):
			httpjson.Error(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("body larger than %d bytes", maxMoveBody))
		case errors.Is(err, io.EOF):
			httpjson.Error(w, http.StatusBadRequest, `a JSON body {"to": "<node id>"} is required`)
		default:
			httpjson.Error(w, http.StatusBadRequest, `invalid JSON body (want {"to": "<node id>"}): `+err.Error())
		}
		return
	}
	req.To = strings.TrimSpace(req.To)
	if req.To == "" {
		httpjson.Error(w, http.StatusBadRequest, `"to" must name the node to move the room to`)
		return
	}
	if !ids.IsCode(code) {
		httpjson.Error(w, http.StatusNotFound, "no live room "+code)
		return
	}
	// A target known to drain is refused here, before a forward; one this
	// node does not know yet (it joined since the last registration round)
	// is left to the owner's MoveRoom, which reads the registry afresh and
	// refuses a node that is not live.
	nodes := c.Nodes()
	if i := slices.IndexFunc(nodes, func(n room.Node) bool { return n.ID == req.To }); i >= 0 && nodes[i].Draining {
		httpjson.Error(w, http.StatusConflict, fmt.Sprintf("node %q is draining: it takes no rooms", req.To))
		return
	}
	self := c.NodeID()
	if _, here := a.cfg.Rooms.Lookup(code); !here {
		owner, ok := a.owner(w, r, c, code)
		if !ok {
			return
		}
		if owner == req.To {
			httpjson.Error(w, http.StatusConflict, fmt.Sprintf("room %s is already on node %s", code, owner))
			return
		}
		body, _ := json.Marshal(req)
		a.forward(w, r, c, owner, "/api/admin/rooms/"+code+"/move", body)
		return
	}
	if req.To == self {
		httpjson.Error(w, http.StatusConflict, fmt.Sprintf("room %s is already on node %s", code, self))
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), moveTimeout)
	defer cancel()
	if err := c.MoveRoom(ctx, code, req.To); err != nil {
		switch {
		case errors.Is(err, room.ErrNoRoom), errors.Is(err, room.ErrClosed):
			httpjson.Error(w, http.StatusNotFound, "no live room "+code+" (it stopped meanwhile)")
		case errors.Is(err, room.ErrBusy):
			w.Header().Set("Retry-After", "1")
			httpjson.Error(w, http.StatusServiceUnavailable, "room "+code+" is too busy to move now; try again")
		case errors.Is(err, context.DeadlineExceeded):
			httpjson.Error(w, http.StatusGatewayTimeout, fmt.Sprintf("room %s did not stop within %v; it moves when it does", code, moveTimeout))
		default: // a target gone or draining since the check above
			httpjson.Error(w, http.StatusConflict, err.Error())
		}
		return
	}
	httpjson.Write(w, http.StatusOK, map[string]string{"moved": code, "from": self, "to": req.To})
}

// elsewhere answers a close of room code, which is not loaded here: the
// node that runs it answers it, or 404.
func (a *API) elsewhere(w http.ResponseWriter, r *http.Request, code string) {
	c := a.clusterOf()
	if c == nil {
		httpjson.Error(w, http.StatusNotFound, "no live room "+code)
		return
	}
	owner, ok := a.owner(w, r, c, code)
	if !ok {
		return
	}
	a.forward(w, r, c, owner, "/api/admin/rooms/"+code+"/close", nil)
}

// owner returns the node that runs room code, which this node does not,
// for a request to be forwarded to it; false when it answered instead.
func (a *API) owner(w http.ResponseWriter, r *http.Request, c Cluster, code string) (string, bool) {
	forwarded, ok := flag(w, r, "forwarded")
	if !ok {
		return "", false
	}
	if !ids.IsCode(code) {
		httpjson.Error(w, http.StatusNotFound, "no live room "+code)
		return "", false
	}
	ctx, cancel := context.WithTimeout(r.Context(), ownerTimeout)
	defer cancel()
	owner, err := c.RoomOwner(ctx, code)
	switch {
	case err != nil:
		w.Header().Set("Retry-After", "1")
		httpjson.Error(w, http.StatusServiceUnavailable, "which node runs room "+code+" is not known now: "+err.Error())
		return "", false
	case owner == "" || owner == c.NodeID():
		// Nobody runs it (it is loaded by the next client), or its lease
		// is this node's but it is not loaded (closed, say, its lease not
		// yet expired): there is no live room.
		httpjson.Error(w, http.StatusNotFound, "no live room "+code)
		return "", false
	case forwarded:
		// The node that sent this saw the room on this node: it moved
		// since. It is not sent on again, so that two nodes whose views
		// of the owner differ cannot pass it back and forth.
		httpjson.Error(w, http.StatusConflict, fmt.Sprintf("room %s moved to node %s meanwhile; try again", code, owner))
		return "", false
	}
	return owner, true
}

// forward sends the request, with ?forwarded=1, to node and answers what
// that node answered.
func (a *API) forward(w http.ResponseWriter, r *http.Request, c Cluster, node, path string, body []byte) {
	h := http.Header{}
	h.Set("Authorization", r.Header.Get("Authorization"))
	if body != nil {
		h.Set("Content-Type", "application/json")
	}
	ctx, cancel := context.WithTimeout(r.Context(), moveTimeout)
	defer cancel()
	resp, err := c.PeerRequest(ctx, node, r.Method, path+"?forwarded=1", h, body)
	if err != nil {
		httpjson.Error(w, http.StatusBadGateway, fmt.Sprintf("node %s, which runs the room, did not answer: %v", node, err))
		return
	}
	defer resp.Body.Close()
	answer, err := readAnswer(resp)
	if err != nil {
		httpjson.Error(w, http.StatusBadGateway, fmt.Sprintf("node %s, which runs the room: %v", node, err))
		return
	}
	if ct := resp.Header.Get("Content-Type"); ct != "" {
		w.Header().Set("Content-Type", ct)
	}
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(resp.StatusCode)
	w.Write(answer)
}

// flag reads the boolean query parameter name (absent: false); false ok
// when it answered 400 for a value that is not one.
func flag(w http.ResponseWriter, r *http.Request, name string) (set, ok bool) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return false, true
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		httpjson.Error(w, http.StatusBadRequest, "?"+name+"= must be 1 or 0")
		return false, false
	}
	return b, true
}
