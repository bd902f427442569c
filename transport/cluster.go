package transport

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/roomd/roomd/internal/httpjson"
	"github.com/roomd/roomd/internal/ids"
	"github.com/roomd/roomd/protocol"
	"github.com/roomd/roomd/room"
)

// cluster.go: several roomd nodes on one store. Every node answers for
// every room: a request or a socket for a room another node owns is
// relayed to that node (relay.go), so that clients need no routing of
// their own and work the same behind one host name and a plain load
// balancer as with an address per node. Nodes register themselves in the
// store with their load; a room is created on the least-loaded node; a
// room whose owner died is taken over, once its lease expires, by the
// node its next client reaches; SIGTERM hands a node's rooms to the others
// (Server.Shutdown). Requests between nodes carry a signature under a key
// the nodes share through the store (X-Roomd-Relay), which is what lets
// the owner count a relayed client under its own address.

// ClusterConfig makes a Server one node of several (Config.Cluster).
type ClusterConfig struct {
	// Store is the store the nodes share. Required.
	Store room.Cluster
	// Claims holds the key that signs requests between nodes (claimed
	// once by the first node). Required.
	Claims room.Claims
	// Self is this node: its ID, URL (public, for clients told where a
	// room went) and PeerURL (how other nodes reach it). ID and PeerURL
	// are required.
	Self room.Node
	// TTL is how long a registration lasts without a refresh (refreshed
	// every third of it). Zero means 10 s.
	TTL time.Duration
	// Slack is how many rooms more than the least-loaded node this node
	// may hold and still take a room created through it. Zero means 8 plus
	// a tenth of the least load.
	Slack int
}

// relayKey is the claim that holds the key of X-Roomd-Relay.
const relayKey = "cluster-key"

// Headers between nodes: the signature and the client's address.
const (
	headerRelay  = "X-Roomd-Relay"
	headerClient = "X-Roomd-Client"
)

// relayClock bounds the age of a signed request between nodes.
const relayClock = time.Minute

type cluster struct {
	cfg      ClusterConfig
	key      []byte
	log      *slog.Logger
	nodes    atomic.Pointer[[]room.Node] // live nodes, self included, as last read
	draining atomic.Bool
	// registered is whether this node's last registration went through.
	registered atomic.Bool
	gone       sync.Map // node id → when a relay to it failed
	http       *http.Client
	done       chan struct{}
}

func newCluster(ctx context.Context, cfg ClusterConfig, log *slog.Logger) (*cluster, error) {
	if cfg.Store == nil || cfg.Claims == nil {
		return nil, errors.New("transport: ClusterConfig needs Store and Claims")
	}
	if cfg.TTL == 0 {
		cfg.TTL = 10 * time.Second
	}
	if err := room.CheckLease(cfg.Self.ID, cfg.TTL); err != nil {
		return nil, fmt.Errorf("transport: cluster node: %w", err)
	}
	if cfg.Self.PeerURL == "" {
		return nil, errors.New("transport: cluster node: PeerURL is required")
	}
	fresh := make([]byte, 32)
	_, _ = rand.Read(fresh)
	key, _, err := cfg.Claims.Claim(ctx, relayKey, fresh, 0)
	if err != nil {
		return nil, fmt.Errorf("transport: the nodes' shared key: %w", err)
	}
	c := &cluster{cfg: cfg, key: key, log: log, done: make(chan struct{}),
		http: &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
			DialContext:         (&net.Dialer{Timeout: 2 * time.Second}).DialContext,
			MaxIdleConnsPerHost: 32, IdleConnTimeout: 90 * time.Second,
		}}}
	empty := []room.Node{}
	c.nodes.Store(&empty)
	return c, nil
}

// self returns this node's registration with its load now.
func (s *Server) selfNode() room.Node {
	n := s.cl.cfg.Self
	n.Rooms = len(s.cfg.Rooms.Rooms())
	s.mu.Lock()
	n.Conns = len(s.conns)
	s.mu.Unlock()
	n.Draining = s.cl.draining.Load()
	return n
}

// register refreshes this node's registration and reads the others'; it
// reports whether the registration went through. It closes the relays to
// nodes that no longer register (sweepRelays), but not right after a
// registration failed: the store that refused this node's may have
// refused the others' too (a Redis down, a Cluster master failing over),
// and those that lapsed meanwhile are only about to register again.
func (s *Server) register(ctx context.Context) bool {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	if err := s.cl.cfg.Store.Register(ctx, s.selfNode(), s.cl.cfg.TTL); err != nil {
		s.cfg.Logger.Warn("node not registered", "err", err)
		s.cl.registered.Store(false)
		return false
	}
	nodes := s.refreshNodes(ctx)
	if s.cl.registered.Swap(true) {
		s.sweepRelays(nodes)
	}
	return true
}

// registerRetry is how soon a registration the store refused is tried
// again (rather than at the next third of the TTL): a node whose
// registration lapsed while the store was unreachable registers again as
// soon as it is back, before the other nodes, which read the registry
// then, take it for dead.
const registerRetry = 250 * time.Millisecond

// sweepRelays closes the relayed sockets whose node no longer registers
// (it died, or stalls — a paused process answers no one): their clients
// come back at once, and routing waits for the room's lease to expire and
// takes the room over.
func (s *Server) sweepRelays(nodes []room.Node) {
	live := make(map[string]bool, len(nodes))
	for _, n := range nodes {
		live[n.ID] = true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for c := range s.conns {
		if p := c.peer.Load(); p != nil && !live[*p] {
			c.close(closeReq{code: protocol.CloseMoved, reason: "room's node went away", retryAfter: room.MovedRetry, why: whyMoved,
				detail: "the room's node went away"})
		}
	}
}

func (s *Server) refreshNodes(ctx context.Context) []room.Node {
	nodes, err := s.cl.cfg.Store.Nodes(ctx)
	if err != nil {
		s.cfg.Logger.Warn("nodes not read", "err", err)
		return *s.cl.nodes.Load()
	}
	s.cl.nodes.Store(&nodes)
	return nodes
}

// clusterLoop keeps the registration fresh until the server stops: every
// third of the TTL, and every registerRetry while the store refuses it.
func (s *Server) clusterLoop() {
	defer close(s.cl.done)
	ok := s.register(s.ctx)
	for {
		wait := s.cl.cfg.TTL / 3
		if !ok {
			wait = min(wait, registerRetry)
		}
		t := time.NewTimer(wait)
		select {
		case <-t.C:
			ok = s.register(s.ctx)
		case <-s.ctx.Done():
			t.Stop()
			return
		}
	}
}

// node returns the live node id, from the last read or a fresh one.
func (s *Server) node(ctx context.Context, id string) (room.Node, bool) {
	find := func(nodes []room.Node) (room.Node, bool) {
		i := slices.IndexFunc(nodes, func(n room.Node) bool { return n.ID == id })
		if i < 0 {
			return room.Node{}, false
		}
		return nodes[i], true
	}
	if n, ok := find(*s.cl.nodes.Load()); ok {
		return n, true
	}
	return find(s.refreshNodes(ctx))
}

// Nodes returns the live nodes as last read (nil without a cluster).
func (s *Server) Nodes() []room.Node {
	if s.cl == nil {
		return nil
	}
	return slices.Clone(*s.cl.nodes.Load())
}

// leastLoaded returns the live node, other than this one, that takes new
// rooms and holds the fewest.
func (s *Server) leastLoaded(nodes []room.Node) (room.Node, bool) {
	var best room.Node
	found := false
	for _, n := range nodes {
		if n.ID == s.cl.cfg.Self.ID || n.Draining {
			continue
		}
		if !found || n.Rooms < best.Rooms || (n.Rooms == best.Rooms && n.ID < best.ID) {
			best, found = n, true
		}
	}
	return best, found
}

// placement returns the node a new room goes to, or false for this one:
// this node unless it drains or holds more than the least-loaded node's
// rooms plus the slack.
func (s *Server) placement() (room.Node, bool) {
	if s.cl == nil {
		return room.Node{}, false
	}
	other, ok := s.leastLoaded(*s.cl.nodes.Load())
	if !ok {
		return room.Node{}, false
	}
	if s.cl.draining.Load() {
		return other, true
	}
	slack := s.cl.cfg.Slack
	if slack == 0 {
		slack = 8 + other.Rooms/10
	}
	if len(s.cfg.Rooms.Rooms()) > other.Rooms+slack {
		return other, true
	}
	return room.Node{}, false
}

// route says where room code runs: false for this node (loaded here, or
// to be loaded here: nobody owns it, or its owner's lease has expired),
// else the node that owns it. A room whose owner holds its lease but no
// longer registers (it died) is waited for until the lease expires, then
// taken here. A draining node sends a room nobody owns to another node.
func (s *Server) route(ctx context.Context, code string) (room.Node, bool, error) {
	code = room.NormalizeCode(code)
	if s.cl == nil || !ids.IsCode(code) {
		return room.Node{}, false, nil
	}
	if _, ok := s.cfg.Rooms.Lookup(code); ok {
		return room.Node{}, false, nil
	}
	deadline := time.Now().Add(s.cl.cfg.TTL + 2*time.Second)
	takeover := false
	for {
		owner, left, err := s.cl.cfg.Store.Owner(ctx, code)
		if err != nil {
			return room.Node{}, false, err
		}
		switch {
		case owner == "" || owner == s.cl.cfg.Self.ID:
			if s.cl.draining.Load() {
				if n, ok := s.leastLoaded(*s.cl.nodes.Load()); ok {
					return n, true, nil
				}
			}
			if takeover {
				s.cfg.Rooms.Config().Metrics.ObserveTakeover()
				s.cfg.Logger.Info("taking over a room whose node is gone", "room", code)
			}
			return room.Node{}, false, nil
		}
		if n, ok := s.node(ctx, owner); ok && !s.unreachable(owner) {
			return n, true, nil
		}
		// The owner is gone: wait out its lease, then take the room.
		takeover = true
		if time.Now().After(deadline) {
			return room.Node{}, false, fmt.Errorf("room %s: node %s holds its lease and does not answer", code, owner)
		}
		s.cfg.Logger.Info("the room's node is gone; waiting for its lease to expire", "room", code, "node", owner, "left", left)
		wait := min(max(left, 20*time.Millisecond), 250*time.Millisecond)
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return room.Node{}, false, ctx.Err()
		}
	}
}

// markGone notes that node id did not answer a relay: until its lease
// expires, route waits instead of relaying to it.
func (s *Server) markGone(id string) { s.cl.gone.Store(id, time.Now()) }

// unreachable reports whether node id failed to answer lately (within a
// lease's TTL).
func (s *Server) unreachable(id string) bool {
	v, ok := s.cl.gone.Load(id)
	return ok && time.Since(v.(time.Time)) < s.cl.cfg.TTL
}

// sign adds the headers of a request to another node: this node's id, the
// time, the client's address and their HMAC under the shared key.
func (c *cluster) sign(h http.Header, client netip.Addr) {
	t := strconv.FormatInt(time.Now().UnixMilli(), 10)
	h.Set(headerClient, client.String())
	h.Set(headerRelay, c.cfg.Self.ID+" "+t+" "+c.mac(c.cfg.Self.ID, t, client.String()))
}

func (c *cluster) mac(node, t, client string) string {
	m := hmac.New(sha256.New, c.key)
	m.Write([]byte(node + "\x00" + t + "\x00" + client))
	return hex.EncodeToString(m.Sum(nil))
}

// relayed checks a request's signature: the client's address when another
// node signed it, false when it carries none; an error for a bad one.
func (c *cluster) relayed(r *http.Request) (netip.Addr, bool, error) {
	v := r.Header.Get(headerRelay)
	if v == "" {
		return netip.Addr{}, false, nil
	}
	parts := strings.Split(v, " ")
	if len(parts) != 3 {
		return netip.Addr{}, false, errors.New("malformed " + headerRelay)
	}
	client := r.Header.Get(headerClient)
	if !hmac.Equal([]byte(parts[2]), []byte(c.mac(parts[0], parts[1], client))) {
		return netip.Addr{}, false, errors.New("bad " + headerRelay + " signature")
	}
	ms, err := strconv.ParseInt(parts[1], 10, 64)
	if err != nil || time.Since(time.UnixMilli(ms)).Abs() > relayClock {
		return netip.Addr{}, false, errors.New(headerRelay + " too old")
	}
	addr, err := netip.ParseAddr(client)
	if err != nil {
		return netip.Addr{}, false, fmt.Errorf("bad %s: %v", headerClient, err)
	}
	return addr, true, nil
}

// drain hands this node's rooms to the other live nodes, spread by their
// load, and asks each to load its share at once. It reports false, doing
// nothing, when no other node takes rooms: the server then stops as one
// alone does.
func (s *Server) drain(ctx context.Context) bool {
	rctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	nodes := s.refreshNodes(rctx)
	cancel()
	load := map[string]int{}
	var targets []room.Node
	for _, n := range nodes {
		if n.ID != s.cl.cfg.Self.ID && !n.Draining {
			targets = append(targets, n)
			load[n.ID] = n.Rooms
		}
	}
	if len(targets) == 0 {
		s.cfg.Logger.Info("no other node takes rooms: stopping alone")
		return false
	}
	s.cl.draining.Store(true)
	s.register(ctx) // the others stop sending new rooms here
	s.cfg.Logger.Info("draining: handing rooms to other nodes", "rooms", len(s.cfg.Rooms.Rooms()), "nodes", len(targets))
	share := map[string][]string{}
	to := func(code string) room.Node {
		best := targets[0]
		for _, n := range targets[1:] {
			if load[n.ID] < load[best.ID] {
				best = n
			}
		}
		load[best.ID]++
		share[best.ID] = append(share[best.ID], code)
		return best
	}
	codes, err := s.cfg.Rooms.Handoff(ctx, to)
	if err != nil {
		s.cfg.Logger.Warn("drain cut short", "err", err)
	}
	for _, n := range targets {
		if len(share[n.ID]) > 0 {
			s.adopt(ctx, n, share[n.ID])
		}
	}
	s.cfg.Logger.Info("drained", "rooms", len(codes))
	return true
}

// adopt asks node n to load rooms now (they were handed to it): their
// timers run and their first clients find them loaded. Best effort: a room
// not loaded now is loaded by its next client.
func (s *Server) adopt(ctx context.Context, n room.Node, rooms []string) {
	body, _ := json.Marshal(adoptRequest{Rooms: rooms})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimSuffix(n.PeerURL, "/")+adoptPath, bytes.NewReader(body))
	if err != nil {
		return
	}
	req.Header.Set("Content-Type", "application/json")
	s.cl.sign(req.Header, netip.IPv6Loopback())
	resp, err := s.cl.http.Do(req)
	if err != nil {
		s.cfg.Logger.Warn("a node did not adopt its rooms: their clients load them", "node", n.ID, "err", err)
		return
	}
	resp.Body.Close()
}

const adoptPath = "/api/internal/adopt"

type adoptRequest struct {
	Rooms []string `json:"rooms"`
}

// adoptRooms loads rooms another node handed to this one (only another
// node may ask).
func (s *Server) adoptRooms(w http.ResponseWriter, r *http.Request) {
	if s.cl == nil || !isRelayed(r) {
		httpjson.Error(w, http.StatusNotFound, "no API route "+r.Method+" "+r.URL.Path)
		return
	}
	var req adoptRequest
	if !decodeBody(w, r, &req) {
		return
	}
	if len(req.Rooms) > s.cfg.Rooms.Config().MaxRooms {
		httpjson.Error(w, http.StatusRequestEntityTooLarge, "too many rooms")
		return
	}
	go func() {
		ctx, cancel := context.WithTimeout(s.ctx, 30*time.Second)
		defer cancel()
		n := 0
		for _, code := range req.Rooms {
			if _, err := s.cfg.Rooms.Get(ctx, code); err == nil {
				n++
			} else {
				s.cfg.Logger.Info("a room handed here did not load", "room", code, "err", err)
			}
		}
		s.cfg.Logger.Info("adopted rooms from a draining node", "rooms", n)
	}()
	httpjson.Write(w, http.StatusAccepted, map[string]int{"rooms": len(req.Rooms)})
}

// ClusterView is what the admin API sees of the cluster (package admin):
// the nodes, which owns a room, moving a room, and requests to another
// node signed as a node's.
type ClusterView interface {
	NodeID() string
	Nodes() []room.Node
	RoomOwner(ctx context.Context, code string) (string, error)
	MoveRoom(ctx context.Context, code, to string) error
	PeerRequest(ctx context.Context, node, method, path string, header http.Header, body []byte) (*http.Response, error)
}

var _ ClusterView = (*Server)(nil)

// NodeID is this node's id ("" for a server alone).
func (s *Server) NodeID() string {
	if s.cl == nil {
		return ""
	}
	return s.cl.cfg.Self.ID
}

// RoomOwner returns the node that owns room code now ("" when none does:
// it is loaded by the next node a client reaches).
func (s *Server) RoomOwner(ctx context.Context, code string) (string, error) {
	if s.cl == nil {
		return "", errors.New("not a cluster")
	}
	if _, ok := s.cfg.Rooms.Lookup(code); ok {
		return s.cl.cfg.Self.ID, nil
	}
	owner, _, err := s.cl.cfg.Store.Owner(ctx, room.NormalizeCode(code))
	return owner, err
}

// MoveRoom hands room code, which this node runs, to node to: the room
// stops here after its final write, its lease passes to that node, which
// loads it, and its clients are told where it went (4009).
func (s *Server) MoveRoom(ctx context.Context, code, to string) error {
	if s.cl == nil {
		return errors.New("not a cluster")
	}
	n, ok := s.node(ctx, to)
	switch {
	case !ok:
		return fmt.Errorf("no live node %q", to)
	case n.Draining:
		return fmt.Errorf("node %q is draining: it takes no rooms", to)
	}
	code = room.NormalizeCode(code)
	if err := s.cfg.Rooms.Move(ctx, code, n); err != nil {
		return err
	}
	s.adopt(ctx, n, []string{code})
	return nil
}

// PeerRequest sends a request to node id, signed as this node's. The
// caller closes the response's body.
func (s *Server) PeerRequest(ctx context.Context, id, method, path string, header http.Header, body []byte) (*http.Response, error) {
	if s.cl == nil {
		return nil, errors.New("not a cluster")
	}
	n, ok := s.node(ctx, id)
	if !ok {
		return nil, fmt.Errorf("no live node %q", id)
	}
	req, err := http.NewRequestWithContext(ctx, method, strings.TrimSuffix(n.PeerURL, "/")+path, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	maps.Copy(req.Header, header)
	s.cl.sign(req.Header, netip.IPv6Loopback())
	return s.cl.http.Do(req)
}
