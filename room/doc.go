// Package room runs rooms: one actor goroutine per room owns its session and
// all room state; connections, timers and HTTP calls reach it only through
// its mailbox. A Manager finds, creates, restores and shuts down rooms.
//
// The files: state.go is the room as a pure reducer (every accepted change
// is an entry applied by state.apply, live and when a room is rebuilt);
// entry.go the entries; snapshot.go the stored format (versioned, the
// room's own types); room.go the actor and its batch; actions.go what
// clients ask for; persist.go storing and recovering; wire.go the only place
// where room state becomes protocol frames; fanout.go sending them.
package room
