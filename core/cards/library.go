package cards

import (
	"embed"
	"fmt"
	"io/fs"
	"slices"
)

// The card files every game loads (§3: "every card file is loaded"): the
// starter set of §3.7 and the two invented cards, copied from
// shared/specs/card-engine.starter-cards.json and
// card-engine.invented-cards.json.
//
//go:embed cards/*.json
var cardFiles embed.FS

// builtin is the registry of the card files, loaded once.
var builtin = mustLoad()

func mustLoad() *registry {
	r, err := loadFiles(cardFiles)
	if err != nil {
		panic(err)
	}
	return r
}

// loadFiles loads every *.json card file of cards/ in fsys, in name order,
// and validates them as one set.
func loadFiles(fsys fs.FS) (*registry, error) {
	names, err := fs.Glob(fsys, "cards/*.json")
	if err != nil {
		return nil, err
	}
	slices.Sort(names)
	var all []CardDef
	for _, name := range names {
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		defs, err := DecodeCardFile(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		all = append(all, defs...)
	}
	return (*registry)(nil).with(all)
}

// Library returns the definitions every game starts with, sorted by name.
func Library() []CardDef {
	names := builtin.names(func(*CardDef) bool { return true })
	out := make([]CardDef, len(names))
	for i, name := range names {
		out[i] = builtin.byName[name].clone()
	}
	return out
}
