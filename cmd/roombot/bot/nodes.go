package bot

import "sync"

// nodeCounts counts what went through each node of --url: rooms created,
// sockets that started there, connections that came online through it
// (first joins and reconnects) and moves it announced (bye 4009). A node a
// move named that --url does not list is counted too, after the others.
type nodeCounts struct {
	mu    sync.Mutex
	order []string
	by    map[string]*nodeInfo
}

// nodeInfo is one node's line of the report.
type nodeInfo struct {
	URL     string `json:"url"`
	Rooms   int64  `json:"rooms"`   // rooms created through it
	Sockets int64  `json:"sockets"` // sockets that started there
	Online  int64  `json:"online"`  // connections online through it, reconnects included
	Moved   int64  `json:"moved"`   // closes 4009 (the room moved) it sent
}

func newNodeCounts(nodes []string) *nodeCounts {
	n := &nodeCounts{by: map[string]*nodeInfo{}}
	for _, u := range nodes {
		n.at(u)
	}
	return n
}

// at returns url's counts; the caller holds mu, or is the constructor.
func (n *nodeCounts) at(url string) *nodeInfo {
	c := n.by[url]
	if c == nil {
		c = &nodeInfo{URL: url}
		n.by[url] = c
		n.order = append(n.order, url)
	}
	return c
}

func (n *nodeCounts) add(url string, f func(*nodeInfo)) {
	if url == "" {
		return
	}
	n.mu.Lock()
	f(n.at(url))
	n.mu.Unlock()
}

func (n *nodeCounts) room(url string)   { n.add(url, func(c *nodeInfo) { c.Rooms++ }) }
func (n *nodeCounts) socket(url string) { n.add(url, func(c *nodeInfo) { c.Sockets++ }) }
func (n *nodeCounts) online(url string) { n.add(url, func(c *nodeInfo) { c.Online++ }) }
func (n *nodeCounts) moved(url string)  { n.add(url, func(c *nodeInfo) { c.Moved++ }) }

// list returns every node's counts, in --url's order.
func (n *nodeCounts) list() []nodeInfo {
	n.mu.Lock()
	defer n.mu.Unlock()
	out := make([]nodeInfo, 0, len(n.order))
	for _, u := range n.order {
		out = append(out, *n.by[u])
	}
	return out
}
