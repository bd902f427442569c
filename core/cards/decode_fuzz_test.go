package cards

import (
	"encoding/json"
	"os"
	"reflect"
	"testing"
)

// FuzzDecodeCards: any input decodes or is refused without a panic; what
// decodes encodes back to the same definitions; registering them either
// fails or yields cards every harness call can use.
func FuzzDecodeCards(f *testing.F) {
	for _, file := range []string{"cards/starter.json", "cards/invented.json"} {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		var file struct{ Cards json.RawMessage }
		json.Unmarshal(data, &file)
		f.Add([]byte(file.Cards))
	}
	f.Add([]byte(`[{"name":"A","type":"spell","cost":0,"text":"","effects":[{"do":"split_damage","amount":2,"among":"all_characters"}]}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		defs, err := DecodeCards(data)
		if err != nil {
			return
		}
		out, err := json.Marshal(defs)
		if err != nil {
			t.Fatalf("decoded cards do not encode: %v", err)
		}
		back, err := DecodeCards(out)
		if err != nil {
			t.Fatalf("the canonical form %s does not decode: %v", out, err)
		}
		if !reflect.DeepEqual(normal(defs), normal(back)) {
			t.Fatalf("round trip differs:\n%s", out)
		}
		g := newGame(t, Options{Decks: [2][]string{{"Wisp"}, {"Wisp"}}})
		if g.RegisterCards(defs) != nil {
			return
		}
		for _, d := range defs {
			if d.Type == Minion {
				if id, err := g.Summon(d.Name, 0); err == nil {
					g.Destroy(id)
				}
				if id, err := g.AddToHand(d.Name, 1); err == nil {
					g.Play(id)
				}
			} else {
				g.Cast(d.Name, 0, 2)
				g.Cast(d.Name, 1, NoID)
			}
		}
	})
}
