package session

// RNG is mulberry32, bit-identical to the reference core's generator.
// Its whole state is one uint32, so it can be saved and restored by value.
// It is the Source of reference seeds (IntSeed).
type RNG struct{ a uint32 }

// NewRNG seeds the generator the way the reference does: ToUint32(seed),
// which for an integer is its value modulo 2^32 (so -1 → 4294967295 and
// 4294967303 → 7).
func NewRNG(seed int64) *RNG { return &RNG{a: uint32(seed)} }

// State returns the generator's state, for snapshots.
func (g *RNG) State() uint32 { return g.a }

// Uint32 returns the next 32-bit output.
func (g *RNG) Uint32() uint32 {
	g.a += 0x6D2B79F5
	a := g.a
	t := (a ^ (a >> 15)) * (a | 1)
	t = (t + (t^(t>>7))*(t|61)) ^ t
	return t ^ (t >> 14)
}

// Float64 returns the next output scaled to [0, 1), exactly as the
// reference's next()/2^32.
func (g *RNG) Float64() float64 { return Float64(g) }

// Intn returns floor(Float64()*n), an integer in [0, n), computed exactly in
// integers. n must be positive and below 2^31.
func (g *RNG) Intn(n int) int { return Intn(g, n) }
