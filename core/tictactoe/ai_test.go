package tictactoe

import (
	"testing"

	"github.com/roomd/roomd/core/session"
)

func TestChoose(t *testing.T) {
	tests := []struct {
		name  string
		board [Size]string
		seat  Seat
		want  Move
	}{
		{"the centre first", [Size]string{"...", "...", "..."}, 0, Move{1, 1}},
		{"a corner when the centre is taken", [Size]string{"...", ".X.", "..."}, 1, Move{0, 0}},
		{"the next free corner", [Size]string{"O..", ".X.", "..."}, 0, Move{0, 2}},
		{"wins on the row", [Size]string{"XX.", "OO.", "..."}, 0, Move{0, 2}},
		{"wins rather than block", [Size]string{"XX.", "OO.", "X.."}, 1, Move{1, 2}},
		{"blocks a column", [Size]string{"X..", "XO.", "..."}, 1, Move{2, 0}},
		{"blocks a diagonal", [Size]string{"..X", ".X.", "O.."}, 1, Move{0, 0}},
		{"the first of two wins", [Size]string{"X.X", "OO.", "X.."}, 0, Move{0, 1}},
		{"the first free square when no corner is left", [Size]string{"XOX", "OO.", "XXO"}, 0, Move{1, 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := View{Board: tt.board, Turn: tt.seat, Phase: PhaseActive}
			m, ok := Rules{}.Choose(v, tt.seat, session.IntSeed(7).Source())
			if !ok || m != tt.want {
				t.Errorf("Choose = %+v, %v; want %+v", m, ok, tt.want)
			}
		})
	}
}

func TestChooseNothing(t *testing.T) {
	fresh := View{Board: [Size]string{"...", "...", "..."}, Phase: PhaseActive}
	tests := []struct {
		name string
		view View
		seat Seat
	}{
		{"another seat's turn", fresh, 1},
		{"a spectator", fresh, session.Spectator},
		{"the game is over", View{Board: [Size]string{"XXX", "OO.", "..."}, Turn: 1, Phase: PhaseWon}, 1},
		{"a broken grid", View{Board: [Size]string{"..", "...", "..."}, Phase: PhaseActive}, 0},
		{"a full grid", View{Board: [Size]string{"XOX", "XOO", "OXX"}, Turn: 1, Phase: PhaseActive}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if m, ok := (Rules{}).Choose(tt.view, tt.seat, session.IntSeed(7).Source()); ok {
				t.Errorf("Choose = %+v, want no move", m)
			}
		})
	}
}

// The AI against itself: a draw, every time, in nine marks.
func TestAISelfPlay(t *testing.T) {
	s := newSession(t)
	for i := 0; !s.Status().Over; i++ {
		seat := s.Match().Pending()[0]
		command, ok := s.Match().AIMove(seat, session.IntSeed(7).Source())
		if !ok {
			t.Fatalf("mark %d: no AI move for seat %d", i, seat)
		}
		if _, err := s.Apply(seat, command); err != nil {
			t.Fatalf("mark %d: %s refused: %v", i, command, err)
		}
	}
	if st := s.Status(); st.Phase != PhaseDraw || len(s.Log()) != 9 {
		t.Errorf("status %+v after %d marks, want a draw in 9", st, len(s.Log()))
	}
}
