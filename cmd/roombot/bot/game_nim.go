package bot

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/roomd/roomd/core/nim"
	"github.com/roomd/roomd/core/session"
	"github.com/roomd/roomd/protocol"
)

// nimAdapter plays Hidden Nim: players choose with the core's Nim AI.
type nimAdapter struct{}

func (nimAdapter) info() session.Info { return nim.Game.Info() }

func (nimAdapter) help() string {
	return "                       players choose with the Nim AI\n" +
		fmt.Sprintf("      --pile N         the starting pile, 1 to %d (default %d)\n", nim.MaxPile, nim.DefaultPile)
}

func (nimAdapter) defaultMode() string { return nim.ModeClassic }

func (nimAdapter) settings(c *config) (json.RawMessage, error) {
	if c.Pile < 1 || c.Pile > nim.MaxPile {
		return nil, fmt.Errorf("--pile must be 1 to %d", nim.MaxPile)
	}
	return json.Marshal(struct {
		Pile int    `json:"pile"`
		Mode string `json:"mode"`
	}{c.Pile, c.Mode})
}

func (nimAdapter) describe(c *config, s *scenarioInfo) { s.Pile = c.Pile }

func (nimAdapter) ineffective(code string) bool { return code == nim.CodeTooMany }

func (nimAdapter) decodeView(raw json.RawMessage) (nim.View, error) {
	var v nim.View
	err := json.Unmarshal(raw, &v)
	return v, err
}

func (nimAdapter) decodeBeats(raw json.RawMessage) ([]nim.Event, error) {
	var evs []nim.Event
	err := json.Unmarshal(raw, &evs)
	return evs, err
}

// clone copies the history: Apply appends to it.
func (nimAdapter) clone(v nim.View) nim.View {
	v.History = slices.Clone(v.History)
	return v
}

func (nimAdapter) apply(v *nim.View, beats []nim.Event) error {
	v.Apply(beats)
	return nil
}

func (nimAdapter) choose(v nim.View, seat int) (json.RawMessage, bool) {
	return marshalMove(nim.Rules{}.Choose(v, seat, botChoice))
}

func (nimAdapter) encode(v nim.View) []byte {
	b, _ := json.Marshal(v)
	return b
}

func (nimAdapter) quirk(followed, server nim.View) bool { return false }

// leaks checks that no frame before the end showed all secrets, another
// seat's secret (the secrets are dealt again from the result's seed), or
// an end event.
func (nimAdapter) leaks(frames []frame[nim.View, nim.Event], res protocol.Result, seat int) []finding {
	var out []finding
	var cfg nim.Config
	if err := json.Unmarshal(res.Config, &cfg); err != nil {
		return []finding{{vBadFrame, fmt.Sprintf("result config %s: %v", res.Config, err)}}
	}
	var secrets []int
	for _, frame := range frames {
		for _, v := range frame.views {
			if secrets == nil && v.Seats > 0 {
				if st, err := (nim.Rules{}).Init(resultSeed(res), cfg, v.Seats); err == nil {
					secrets = st.Secrets()
				}
			}
			switch {
			case len(v.Secrets) > 0:
				out = append(out, finding{vLeakSecret, fmt.Sprintf("match %d: every secret shown before the end: %v", res.Match, v.Secrets)})
			case v.Secret != nil && seat < 0:
				out = append(out, finding{vLeakSecret, fmt.Sprintf("match %d: a spectator got secret %d", res.Match, *v.Secret)})
			case v.Secret != nil && (v.You == nil || *v.You != seat):
				out = append(out, finding{vLeakSecret, fmt.Sprintf("match %d: seat %d got a view for seat %v with its secret", res.Match, seat, v.You)})
			case v.Secret != nil && secrets != nil && seat < len(secrets) && *v.Secret != secrets[seat]:
				out = append(out, finding{vLeakSecret, fmt.Sprintf("match %d: seat %d was shown secret %d, its own is %d (another seat's?)", res.Match, seat, *v.Secret, secrets[seat])})
			}
		}
		for _, e := range frame.beats {
			if e.Type == nim.EventEnd {
				out = append(out, finding{vLeakSecret, fmt.Sprintf("match %d: an end event with every secret before the match ended", res.Match)})
			}
		}
	}
	return out
}
