package transport

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"time"

	"github.com/coder/websocket"

	"github.com/roomd/roomd/internal/httpjson"
	"github.com/roomd/roomd/protocol"
	"github.com/roomd/roomd/room"
)

// relay.go: a node that does not own a room passes its traffic to the node
// that does. A socket is relayed frame by frame after its hello (which
// names the room): the client's frames go up unread, the owner's come
// down as they are — the owner checks, limits and answers everything, so a
// relayed client is served exactly as a direct one. HTTP requests for a
// room are reverse-proxied. Either way the owner hears the client's
// address from the signed X-Roomd-Client header, and a relayed request is
// never relayed again: a node that no longer owns the room answers as any
// node would for a room it cannot take (4009, come back), and the client's
// next try is routed afresh.

// checkRelay accepts requests signed by another node: the client's address
// replaces the peer's (for quotas and logs), and they go to the routes
// (relayed) without the host check, which the first node made. Other
// requests go to next; a request with a bad signature is refused.
func (s *Server) checkRelay(relayed, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		client, ok, err := s.cl.relayed(r)
		if err != nil {
			httpjson.Error(w, http.StatusForbidden, err.Error())
			return
		}
		if !ok {
			next.ServeHTTP(w, r)
			return
		}
		r = r.WithContext(context.WithValue(r.Context(), relayedKey{}, true))
		r.RemoteAddr = net.JoinHostPort(client.String(), "0")
		r.Header.Del("X-Forwarded-For") // the address is the signed one
		relayed.ServeHTTP(w, r)
	})
}

type relayedKey struct{}

// isRelayed reports whether another node relayed the request.
func isRelayed(r *http.Request) bool { v, _ := r.Context().Value(relayedKey{}).(bool); return v }

// proxied answers a request for room code from its owner when another node
// owns it, and reports whether it did.
func (s *Server) proxied(w http.ResponseWriter, r *http.Request, code string) bool {
	if s.cl == nil || isRelayed(r) {
		return false
	}
	peer, remote, err := s.route(r.Context(), code)
	if err != nil {
		w.Header().Set("Retry-After", "1")
		httpjson.Error(w, http.StatusServiceUnavailable, "the room's node cannot be reached right now: "+err.Error())
		return true
	}
	if !remote {
		return false
	}
	s.proxy(w, r, peer)
	return true
}

// proxy passes the request to node peer and its answer back.
func (s *Server) proxy(w http.ResponseWriter, r *http.Request, peer room.Node) {
	target, err := url.Parse(peer.PeerURL)
	if err != nil {
		httpjson.Error(w, http.StatusBadGateway, "node "+peer.ID+" has a bad address")
		return
	}
	client := s.quotas.clientAddr(r)
	rp := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(target)
			pr.Out.Host = pr.In.Host // the name the client used: the owner checks it as this node did
			s.cl.sign(pr.Out.Header, client)
		},
		Transport: s.cl.http.Transport,
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			s.markGone(peer.ID)
			s.cfg.Logger.Warn("the room's node did not answer a relayed request", "node", peer.ID, "err", err)
			w.Header().Set("Retry-After", "1")
			httpjson.Error(w, http.StatusBadGateway, "the room's node did not answer; try again shortly")
		},
	}
	rp.ServeHTTP(w, r)
}

// relayHello routes a hello: true when the socket is now relayed to the
// room's node (or closed), false when this node serves the room.
func (c *conn) relayHello(ctx context.Context, h *protocol.Hello) bool {
	s := c.srv
	if s.cl == nil || c.fromPeer {
		return false
	}
	for range 2 { // a second try after a node that did not answer
		peer, remote, err := s.route(ctx, h.Room)
		if err != nil {
			c.logger().Warn("room not routed", "room", h.Room, "err", err)
			c.notice(protocol.CodeStorageUnavailable, "the room cannot be reached right now")
			c.close(closeReq{code: protocol.CloseRestarting, reason: "room unavailable", retryAfter: s.retryAfter(),
				why: whyUnavailable, detail: "room " + h.Room + " not routed: " + err.Error()})
			return true
		}
		if !remote {
			return false
		}
		if c.dialPeer(ctx, h, peer) {
			return true
		}
		s.markGone(peer.ID)
	}
	c.close(closeReq{code: protocol.CloseMoved, reason: "room moved", retryAfter: room.MovedRetry, why: whyMoved,
		detail: "the room's node did not answer"})
	return true
}

// dialPeer opens the socket to peer, sends the hello and starts carrying
// the peer's frames down; false when peer could not be reached.
func (c *conn) dialPeer(ctx context.Context, h *protocol.Hello, peer room.Node) bool {
	s := c.srv
	u, err := url.Parse(peer.PeerURL)
	if err != nil {
		return false
	}
	u.Scheme = strings.Replace(u.Scheme, "http", "ws", 1)
	u.Path = strings.TrimSuffix(u.Path, "/") + protocol.SocketPath
	hdr := http.Header{}
	if c.origin != "" {
		hdr.Set("Origin", c.origin)
	}
	s.cl.sign(hdr, c.addr)
	dctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	up, resp, err := websocket.Dial(dctx, u.String(), &websocket.DialOptions{HTTPClient: s.cl.http, HTTPHeader: hdr, Host: c.host})
	if err != nil {
		if resp != nil && resp.StatusCode < 500 {
			// The node answered and refused: a quota, the origin. Say so
			// as a direct refusal would.
			c.notice(protocol.CodeTooMany, "the room's node refused the connection: "+resp.Status)
			c.close(closeReq{code: protocol.CloseTryLater, reason: "refused", retryAfter: 5 * time.Second, why: whyQuota,
				detail: "the room's node refused the socket: " + resp.Status})
			return true
		}
		c.logger().Info("the room's node did not answer", "node", peer.ID, "err", err)
		return false
	}
	up.SetReadLimit(-1) // the owner's frames: trusted, and as large as its snapshots
	hello, err := protocol.Encode(h)
	if err == nil {
		wctx, wcancel := context.WithTimeout(ctx, s.cfg.WriteTimeout)
		err = up.Write(wctx, websocket.MessageText, hello)
		wcancel()
	}
	if err != nil {
		up.CloseNow()
		return false
	}
	c.peer.Store(&peer.ID)
	c.up.Store(up)
	s.cfg.Metrics.relayOpened()
	go c.down(up)
	return true
}

// down carries the owner's frames to the client until the owner closes;
// then the client is closed with the owner's code (its bye came down
// already), or told to come back when the owner vanished.
func (c *conn) down(up *websocket.Conn) {
	defer c.srv.cfg.Metrics.relayClosed()
	for {
		_, data, err := up.Read(context.Background())
		if err != nil {
			code := websocket.CloseStatus(err)
			switch {
			case code >= 4000 || code == websocket.StatusProtocolError || code == websocket.StatusMessageTooBig ||
				code == websocket.StatusInvalidFramePayloadData:
				var ce websocket.CloseError
				errors.As(err, &ce)
				c.close(closeReq{code: int(code), reason: ce.Reason, quiet: true, why: reasonOf(int(code), ce.Reason),
					detail: "relayed from the room's node"})
			case code == websocket.StatusNormalClosure:
				c.close(closeReq{code: protocol.CloseNormal, why: whyPeerGone, detail: "the room's node closed the relay"})
			default:
				// The owner went away without a word (killed, cut off):
				// the client comes back at once, and routing waits for
				// the room's lease to pass to a live node.
				c.close(closeReq{code: protocol.CloseMoved, reason: "room's node went away", retryAfter: room.MovedRetry,
					why: whyMoved, detail: "the room's node went away"})
			}
			return
		}
		c.Send(data)
	}
}

// up passes a client's frame to the owner unread.
func (c *conn) upFrame(up *websocket.Conn, typ websocket.MessageType, data []byte) {
	ctx, cancel := context.WithTimeout(context.Background(), c.srv.cfg.WriteTimeout)
	defer cancel()
	if err := up.Write(ctx, typ, data); err != nil {
		up.CloseNow()
	}
}
