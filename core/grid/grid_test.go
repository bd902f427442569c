package grid

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestGridBasics(t *testing.T) {
	g := New(2, 3, func(r, c int) int { return r*10 + c })
	if g.Rows() != 2 || g.Cols() != 3 || g.Len() != 6 {
		t.Fatalf("shape %d×%d len %d", g.Rows(), g.Cols(), g.Len())
	}
	if g.At(1, 2) != 12 {
		t.Fatalf("At(1,2) = %d", g.At(1, 2))
	}
	g.Set(0, 1, 99)
	*g.Ptr(1, 0) = 77
	var seen []int
	g.ForEach(func(cell, r, c int) { seen = append(seen, cell) })
	if want := []int{0, 99, 2, 77, 11, 12}; !reflect.DeepEqual(seen, want) {
		t.Fatalf("ForEach order %v, want %v", seen, want)
	}
	for _, tc := range []struct {
		r, c int
		in   bool
	}{{0, 0, true}, {1, 2, true}, {2, 0, false}, {0, 3, false}, {-1, 0, false}, {0, -1, false}} {
		if got := g.InBounds(tc.r, tc.c); got != tc.in {
			t.Errorf("InBounds(%d,%d) = %v", tc.r, tc.c, got)
		}
	}
	cl := g.Clone()
	cl.Set(0, 0, -5)
	if g.At(0, 0) != 0 {
		t.Fatal("Clone shares cells")
	}
	m := Map(g, func(cell, r, c int) string { return string(rune('a' + r + c)) })
	if m.At(1, 2) != "d" {
		t.Fatalf("Map = %q", m.At(1, 2))
	}
}

// TestNoAliasing: a column past the edge panics instead of naming the next
// row's first cell, as the reference's flat lookup would.
func TestNoAliasing(t *testing.T) {
	g := New[int](3, 3, nil)
	for _, rc := range [][2]int{{0, 3}, {1, -1}, {3, 0}, {-1, 0}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("At(%d,%d) did not panic", rc[0], rc[1])
				}
			}()
			g.At(rc[0], rc[1])
		}()
	}
}

func TestNeighbourOrder(t *testing.T) {
	for _, tc := range []struct {
		name string
		n    Neighbors
		r, c int
		want []Coord
	}{
		{"eight-way interior, NW N NE W E SW S SE", EightWay, 1, 1, []Coord{{0, 0}, {0, 1}, {0, 2}, {1, 0}, {1, 2}, {2, 0}, {2, 1}, {2, 2}}},
		{"eight-way corner", EightWay, 0, 0, []Coord{{0, 1}, {1, 0}, {1, 1}}},
		{"eight-way edge", EightWay, 2, 1, []Coord{{1, 0}, {1, 1}, {1, 2}, {2, 0}, {2, 2}}},
		{"orthogonal interior", Orthogonal, 1, 1, []Coord{{0, 1}, {1, 0}, {1, 2}, {2, 1}}},
		{"orthogonal corner", Orthogonal, 2, 2, []Coord{{1, 2}, {2, 1}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.n(3, 3, tc.r, tc.c, nil)
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}
	buf := make([]Coord, 0, 8)
	if allocs := testing.AllocsPerRun(100, func() { buf = EightWay(9, 9, 4, 4, buf[:0]) }); allocs != 0 {
		t.Fatalf("EightWay with a buffer allocates %v times", allocs)
	}
}

func TestJSONRoundTrip(t *testing.T) {
	g := New(2, 2, func(r, c int) bool { return r == c })
	b, err := json.Marshal(g)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != `{"rows":2,"cols":2,"cells":[true,false,false,true]}` {
		t.Fatalf("JSON %s", b)
	}
	var back Grid[bool]
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(&back, g) {
		t.Fatalf("round trip %+v", back)
	}
	for _, bad := range []string{`{"rows":2,"cols":2,"cells":[true]}`, `{"rows":-1,"cols":2,"cells":[]}`,
		`{"rows":100000,"cols":100000,"cells":[]}`, `[1]`} {
		var g Grid[bool]
		if err := json.Unmarshal([]byte(bad), &g); err == nil {
			t.Errorf("decoded %s", bad)
		}
	}
}
