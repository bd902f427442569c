// Package rating is Glicko-2 (Mark Glickman, "Example of the Glicko-2
// system", 2013): a player's strength as a rating, its uncertainty (the
// rating deviation, RD) and how erratic the player is (the volatility).
// roomd rates each rated match as a rating period of its own, with one
// opponent (Match); Update rates a whole period, as in the paper.
//
// Bounds, so that stored values stay sane whatever a long run of results
// does: RD stays within MinRD..MaxRD (30..350: a new player's RD is the
// largest, and no player is ever more certain than 30), the volatility
// within MinVolatility..MaxVolatility (0.01..0.15: the paper's default is
// 0.06), and a rating that is not a finite number (only a corrupted input
// can make one) is replaced by the default. The package is pure: no I/O,
// no clock.
package rating

import "math"

// Rating is one player's Glicko-2 rating on the Glicko scale.
type Rating struct {
	Rating     float64
	RD         float64
	Volatility float64
}

// The defaults of a player who has never been rated, and the bounds every
// rating Update returns is kept within.
const (
	DefaultRating     = 1500
	DefaultRD         = 350
	DefaultVolatility = 0.06

	MinRD         = 30
	MaxRD         = 350
	MinVolatility = 0.01
	MaxVolatility = 0.15
)

// Default is the rating of a player with none: 1500, RD 350, volatility 0.06.
func Default() Rating {
	return Rating{Rating: DefaultRating, RD: DefaultRD, Volatility: DefaultVolatility}
}

// Scores of one game, from the rated player's side.
const (
	Loss = 0.0
	Draw = 0.5
	Win  = 1.0
)

// Result is one game of a rating period: the opponent's rating before the
// period and the player's score against it (Loss, Draw or Win).
type Result struct {
	Opponent Rating
	Score    float64
}

// System holds Glicko-2's constants. The zero value is the paper's
// example: tau 0.5, convergence epsilon 0.000001.
type System struct {
	// Tau constrains how fast the volatility changes (the paper suggests
	// 0.3..1.2). Zero means 0.5.
	Tau float64
	// Epsilon is when step 5's iteration has converged. Zero means 1e-6.
	Epsilon float64
}

// scale converts between the Glicko scale and Glicko-2's (step 2).
const scale = 173.7178

// maxIterations bounds step 5's iteration: the Illinois algorithm converges
// in a few dozen steps; the bound only guards against a corrupted input.
const maxIterations = 200

func (s System) tau() float64 {
	if s.Tau > 0 && !math.IsInf(s.Tau, 0) {
		return s.Tau
	}
	return 0.5
}

func (s System) epsilon() float64 {
	if s.Epsilon > 0 && !math.IsInf(s.Epsilon, 0) {
		return s.Epsilon
	}
	return 0.000001
}

// Match rates one match as its own rating period: a's and b's ratings
// after it, where scoreA is a's score (Loss, Draw or Win; b scores
// 1-scoreA).
func (s System) Match(a, b Rating, scoreA float64) (Rating, Rating) {
	return s.Update(a, []Result{{Opponent: b, Score: scoreA}}),
		s.Update(b, []Result{{Opponent: a, Score: 1 - scoreA}})
}

// Update rates player p over one rating period with the results, all
// against the opponents' ratings before the period (steps 1 to 8 of the
// paper). With no results only the RD grows (step 6). The result is kept
// within the package's bounds; so is p before it is used.
func (s System) Update(p Rating, results []Result) Rating {
	p = clean(p)
	mu, phi, sigma := (p.Rating-DefaultRating)/scale, p.RD/scale, p.Volatility
	if len(results) == 0 {
		return bounded(p.Rating, math.Sqrt(phi*phi+sigma*sigma)*scale, sigma)
	}
	// Steps 3 and 4: the estimated variance v and improvement delta.
	var vInv, sum float64
	for _, r := range results {
		o := clean(r.Opponent)
		muJ, phiJ := (o.Rating-DefaultRating)/scale, o.RD/scale
		g := 1 / math.Sqrt(1+3*phiJ*phiJ/(math.Pi*math.Pi))
		e := 1 / (1 + math.Exp(-g*(mu-muJ)))
		vInv += g * g * e * (1 - e)
		sum += g * (score(r.Score) - e)
	}
	v := 1 / vInv
	delta := v * sum
	// Step 5: the new volatility.
	sigma = s.volatility(phi, sigma, v, delta)
	// Steps 6 and 7: the new RD and rating.
	phiStar := math.Sqrt(phi*phi + sigma*sigma)
	phi = 1 / math.Sqrt(1/(phiStar*phiStar)+1/v)
	mu += phi * phi * sum
	// Step 8: back to the Glicko scale.
	return bounded(mu*scale+DefaultRating, phi*scale, sigma)
}

// volatility is step 5: the root of f by the Illinois algorithm.
func (s System) volatility(phi, sigma, v, delta float64) float64 {
	tau, eps := s.tau(), s.epsilon()
	a := math.Log(sigma * sigma)
	f := func(x float64) float64 {
		ex := math.Exp(x)
		d := phi*phi + v + ex
		return ex*(delta*delta-phi*phi-v-ex)/(2*d*d) - (x-a)/(tau*tau)
	}
	A := a
	var B float64
	if delta*delta > phi*phi+v {
		B = math.Log(delta*delta - phi*phi - v)
	} else {
		k := 1.0
		for f(a-k*tau) < 0 && k < maxIterations {
			k++
		}
		B = a - k*tau
	}
	fA, fB := f(A), f(B)
	for i := 0; math.Abs(B-A) > eps && i < maxIterations; i++ {
		C := A + (A-B)*fA/(fB-fA)
		fC := f(C)
		if fC*fB <= 0 {
			A, fA = B, fB
		} else {
			fA /= 2
		}
		B, fB = C, fC
	}
	out := math.Exp(A / 2)
	if math.IsNaN(out) || math.IsInf(out, 0) {
		return sigma
	}
	return out
}

// score is a result's score as a number in 0..1 (anything else counts as
// the nearest of those).
func score(x float64) float64 {
	switch {
	case math.IsNaN(x):
		return Draw
	case x < 0:
		return Loss
	case x > 1:
		return Win
	}
	return x
}

// clean is r with anything not a finite number replaced by the default
// and the RD and volatility within their bounds.
func clean(r Rating) Rating {
	d := Default()
	if math.IsNaN(r.Rating) || math.IsInf(r.Rating, 0) {
		r.Rating = d.Rating
	}
	if math.IsNaN(r.RD) || r.RD <= 0 {
		r.RD = d.RD
	}
	if math.IsNaN(r.Volatility) || r.Volatility <= 0 {
		r.Volatility = d.Volatility
	}
	return bounded(r.Rating, r.RD, r.Volatility)
}

func bounded(r, rd, sigma float64) Rating {
	if math.IsNaN(r) || math.IsInf(r, 0) {
		r = DefaultRating
	}
	if math.IsNaN(rd) {
		rd = MaxRD
	}
	if math.IsNaN(sigma) {
		sigma = DefaultVolatility
	}
	return Rating{Rating: r, RD: min(max(rd, MinRD), MaxRD), Volatility: min(max(sigma, MinVolatility), MaxVolatility)}
}
