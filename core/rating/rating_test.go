package rating

import (
	"math"
	"testing"

	"pgregory.net/rapid"
)

// TestPaperExample is the worked example of Glickman's "Example of the
// Glicko-2 system": 1500/200/0.06 beats 1400/30 and loses to 1550/100 and
// 1700/300 in one period, with tau 0.5.
func TestPaperExample(t *testing.T) {
	t.Parallel()
	p := Rating{Rating: 1500, RD: 200, Volatility: 0.06}
	got := System{Tau: 0.5}.Update(p, []Result{
		{Opponent: Rating{Rating: 1400, RD: 30, Volatility: 0.06}, Score: Win},
		{Opponent: Rating{Rating: 1550, RD: 100, Volatility: 0.06}, Score: Loss},
		{Opponent: Rating{Rating: 1700, RD: 300, Volatility: 0.06}, Score: Loss},
	})
	// The paper prints its intermediate values rounded (mu' = -0.2069,
	// phi' = 0.8722) and computes the next step from them: unrounded,
	// r' is 1464.0507 and sigma' 0.0599960. Each figure must match the
	// paper's to within one unit of its last printed decimal.
	for _, c := range []struct {
		name      string
		got, want float64
		unit      float64
	}{
		{"r'", got.Rating, 1464.06, 0.01},
		{"RD'", got.RD, 151.52, 0.01},
		{"sigma'", got.Volatility, 0.05999, 0.00001},
	} {
		if math.Abs(c.got-c.want) >= c.unit {
			t.Errorf("%s = %.7f, want %v (within %v)", c.name, c.got, c.want, c.unit)
		}
	}
}

// TestNoGames: a period without games only widens the RD (step 6 of the
// paper: phi* = sqrt(phi² + sigma²)).
func TestNoGames(t *testing.T) {
	t.Parallel()
	p := Rating{Rating: 1500, RD: 200, Volatility: 0.06}
	got := System{}.Update(p, nil)
	want := math.Sqrt(200*200/(scale*scale)+0.06*0.06) * scale
	if got.Rating != 1500 || math.Abs(got.RD-want) > 1e-9 || got.Volatility != 0.06 {
		t.Fatalf("after no games = %+v, want 1500, RD %.4f, 0.06", got, want)
	}
}

// TestMatch: one match is one period for each side; the winner gains and
// the loser loses about as much when both are new, and a draw between
// equals moves neither rating.
func TestMatch(t *testing.T) {
	t.Parallel()
	a, b := System{}.Match(Default(), Default(), Win)
	if a.Rating <= DefaultRating || b.Rating >= DefaultRating {
		t.Fatalf("winner %+v, loser %+v: want the winner above 1500 and the loser below", a, b)
	}
	if math.Abs((a.Rating-DefaultRating)+(b.Rating-DefaultRating)) > 1e-6 {
		t.Fatalf("winner +%.3f, loser %.3f: want equal and opposite between equals", a.Rating-DefaultRating, b.Rating-DefaultRating)
	}
	if a.RD >= DefaultRD || b.RD >= DefaultRD {
		t.Fatalf("RDs %.2f, %.2f: want both below %d after a game", a.RD, b.RD, DefaultRD)
	}
	a, b = System{}.Match(Default(), Default(), Draw)
	if math.Abs(a.Rating-DefaultRating) > 1e-9 || math.Abs(b.Rating-DefaultRating) > 1e-9 {
		t.Fatalf("a draw between equals moved the ratings: %+v, %+v", a, b)
	}
}

func genRating(t *rapid.T, label string) Rating {
	return Rating{
		Rating:     rapid.Float64Range(-1000, 5000).Draw(t, label+".rating"),
		RD:         rapid.Float64Range(MinRD, MaxRD).Draw(t, label+".rd"),
		Volatility: rapid.Float64Range(MinVolatility, MaxVolatility).Draw(t, label+".volatility"),
	}
}

func checkBounds(t *rapid.T, what string, r Rating) {
	if math.IsNaN(r.Rating) || math.IsInf(r.Rating, 0) {
		t.Fatalf("%s: rating %v is not finite", what, r.Rating)
	}
	if !(r.RD >= MinRD && r.RD <= MaxRD) {
		t.Fatalf("%s: RD %v outside %d..%d", what, r.RD, MinRD, MaxRD)
	}
	if !(r.Volatility >= MinVolatility && r.Volatility <= MaxVolatility) {
		t.Fatalf("%s: volatility %v outside %v..%v", what, r.Volatility, MinVolatility, MaxVolatility)
	}
}

// TestMatchProperties: for any two ratings within the bounds and any
// result, both new ratings are finite and within the bounds; the winner's
// rating does not fall and the loser's does not rise.
func TestMatchProperties(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		a, b := genRating(t, "a"), genRating(t, "b")
		s := rapid.SampledFrom([]float64{Loss, Draw, Win}).Draw(t, "score")
		tau := rapid.Float64Range(0.2, 1.2).Draw(t, "tau")
		na, nb := System{Tau: tau}.Match(a, b, s)
		checkBounds(t, "a", na)
		checkBounds(t, "b", nb)
		switch s {
		case Win:
			if na.Rating < a.Rating || nb.Rating > b.Rating {
				t.Fatalf("a won: a %.6f -> %.6f, b %.6f -> %.6f", a.Rating, na.Rating, b.Rating, nb.Rating)
			}
		case Loss:
			if na.Rating > a.Rating || nb.Rating < b.Rating {
				t.Fatalf("b won: a %.6f -> %.6f, b %.6f -> %.6f", a.Rating, na.Rating, b.Rating, nb.Rating)
			}
		}
	})
}

// TestHostileInputs: ratings that are not numbers or out of bounds (a
// corrupted store) still give finite ratings within the bounds.
func TestHostileInputs(t *testing.T) {
	t.Parallel()
	odd := []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, -5, 1e308, -1e308, 1e-308}
	rapid.Check(t, func(t *rapid.T) {
		pick := func(label string) float64 {
			if rapid.Bool().Draw(t, label+".odd") {
				return rapid.SampledFrom(odd).Draw(t, label)
			}
			return rapid.Float64().Draw(t, label)
		}
		a := Rating{Rating: pick("a.r"), RD: pick("a.rd"), Volatility: pick("a.v")}
		b := Rating{Rating: pick("b.r"), RD: pick("b.rd"), Volatility: pick("b.v")}
		na, nb := System{Tau: pick("tau"), Epsilon: pick("eps")}.Match(a, b, pick("score"))
		checkBounds(t, "a", na)
		checkBounds(t, "b", nb)
	})
}

// TestConverges: two players who win in turn stay near each other while
// their RDs fall from 350 towards the floor; a player who keeps winning
// keeps rising.
func TestConverges(t *testing.T) {
	t.Parallel()
	a, b := Default(), Default()
	for i := range 100 {
		a, b = System{}.Match(a, b, float64(i%2))
	}
	if a.RD > 80 || b.RD > 80 || math.Abs(a.Rating-b.Rating) > 60 {
		t.Fatalf("after 100 games won in turn: %+v, %+v", a, b)
	}
	for i := range 200 {
		na, nb := System{}.Match(a, b, Win)
		if na.Rating < a.Rating {
			t.Fatalf("game %d: the winner fell from %.3f to %.3f", i, a.Rating, na.Rating)
		}
		a, b = na, nb
	}
	if a.Rating < 1800 || b.Rating > 1200 {
		t.Fatalf("after 200 wins: winner %+v, loser %+v", a, b)
	}
}
