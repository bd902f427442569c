package web_test

import "testing"

// TestClientMovedNode runs testdata/client_moved_test.js under Node: close
// 4009 (the room moved to another node) followed at once, to the bye's url
// only when it is the page's own origin, with the same token, position and
// pending actions; a lost close frame after the bye still a move; at most
// three moves in a row without the backoff; and a backoff that never waits
// 2 s.
func TestClientMovedNode(t *testing.T) { runNodeScript(t, "client_moved_test.js") }
