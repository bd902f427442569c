package nim

// The bounds of what Hidden Nim sends one viewer (session.Info's
// MaxViewBytes and MaxEventBytes), each the longest value of every field
// added up. Seats are one digit (MaxSeats is 4), a take and a secret too
// (1 to 3), a pile at most four (MaxPile is 1000).

// maxConfigEcho bounds the config a view echoes: the config the match was
// started with, compacted. A canonical config (session.Setup.Config, what
// rooms start matches with) is at most {"pile":1000,"mode":"classic"}, 29
// bytes; the bound leaves room for a client's own spelling of the same
// members ({"mode":"classic","pile":1000.0}), though not for one padded
// without end (1000.000…), which only a config never made canonical can
// carry.
const maxConfigEcho = 64

// maxViewBytes bounds a view. Every take removes at least one item, so the
// history holds at most MaxPile takes; the bound counts the fields of a
// running view and of a finished one together:
//
//	10 + 64 + 62 + 1000·17 + 46 = 17182 bytes
//
// (the views of a four-seat match of a pile of 1000 taken one by one, with
// a canonical config, reach 17124).
const maxViewBytes = len(`{"config":`) + maxConfigEcho +
	len(`,"pile":1000,"turn":3,"seats":4,"you":3,"secret":3,"history":[`) +
	MaxPile*len(`{"seat":3,"n":3},`) +
	len(`],"over":false,"winner":3,"secrets":[3,3,3,3]}`)

// maxEventBytes bounds the events of one take: a took event and, on the
// last take, the end event,
//
//	44 + 60 = 104 bytes
//
// (the last take of a four-seat match sends 101).
const maxEventBytes = len(`[{"type":"took","seat":3,"n":3,"pile":1000},`) +
	len(`{"type":"end","winner":3,"lastTaker":3,"secrets":[3,3,3,3]}]`)
