package nim

import (
	"fmt"
	"slices"

	"github.com/roomd/roomd/core/session"
)

// Hidden Nim's hidden state is the seats' secrets: each seat knows its own
// until the end, when every view and the end event show them all.

var _ session.Hider[*State] = Rules{}

// deal draws one secret, 1 to 3, from src: how Init deals and Resample
// deals again.
func deal(src session.Source) int { return session.Intn(src, 3) + 1 }

// Secrets lists, while the game runs, every secret but viewer's own (a
// spectator, or a viewer that is no seat, knows none): "seat 1's secret 2".
// Once over it is empty, since every view shows every secret.
//
// A running view shows at most one secret, the viewer's own, written
// "secret":K. So the Tell of seat j's secret k is "secret":k — the bytes of
// a view that put k in its secret field, whichever seat's view it is or
// whichever index it read — unless k is what the viewer's own field
// rightly shows: then those bytes give nothing away, and the Tell is
// "you":j,"secret":k instead, what seat j's own view shows (a view handed
// to the wrong viewer). A secret leaked under the end's "secrets" key, in
// a view or an event before the end, is not told per seat (the array holds
// the viewer's own too); a running view that showed it would differ from
// its resampled twin's, which is what Resample is for.
func (Rules) Secrets(s *State, viewer Seat) []session.Secret {
	if s.over {
		return nil
	}
	own := 0 // the secret viewer's view shows; none for a spectator
	if viewer >= 0 && viewer < s.seats {
		own = s.secrets[viewer]
	}
	out := make([]session.Secret, 0, s.seats)
	for j, k := range s.secrets {
		if j == viewer {
			continue
		}
		tell := fmt.Sprintf(`"secret":%d`, k)
		if k == own {
			tell = fmt.Sprintf(`"you":%d,"secret":%d`, j, k)
		}
		out = append(out, session.Secret{What: fmt.Sprintf("seat %d's secret %d", j, k), Tell: tell})
	}
	return out
}

// Resample returns a copy of s in which, while the game runs, every secret
// but viewer's own is dealt again from src, in seat order. Nothing public
// depends on a secret before the end (a take's legality does not; only the
// last take's outcome does), so any deal fits the history. Once over every
// secret is public and the copy keeps them.
func (Rules) Resample(s *State, viewer Seat, src session.Source) *State {
	c := *s
	c.secrets = slices.Clone(s.secrets)
	c.history = slices.Clone(s.history)
	if !s.over {
		for j := range c.secrets {
			if j != viewer {
				c.secrets[j] = deal(src)
			}
		}
	}
	return &c
}
