package web

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"strings"
	"testing/fstest"
)

// gameID is a game id that can name a file of the client (registry.js's
// pageId).
var gameID = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,63}$`)

// maxGameFile bounds one file a game brings (a WebAssembly core is a few
// MB).
const maxGameFile = 64 << 20

// withGames returns root with the files of games laid in where the client
// looks for them (see Game), and the local core's manifest listing their
// cores.
func withGames(root fs.FS, games []Game) (fs.FS, error) {
	if len(games) == 0 {
		return root, nil
	}
	over := fstest.MapFS{}
	langs, err := fs.ReadDir(root, i18nDir)
	if err != nil {
		return nil, fmt.Errorf("the client's words: %w", err)
	}
	manifest, err := fs.ReadFile(root, "wasm/manifest.json")
	if err != nil {
		return nil, fmt.Errorf("the local core's manifest: %w", err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(manifest, &m); err != nil {
		return nil, fmt.Errorf("the local core's manifest: %w", err)
	}
	var modules, listed []json.RawMessage
	json.Unmarshal(m["modules"], &modules)
	json.Unmarshal(m["games"], &listed)
	for _, g := range games {
		if !gameID.MatchString(g.ID) {
			return nil, fmt.Errorf("game %q: an id is 1 to 64 of a-z, 0-9, _ and -", g.ID)
		}
		if g.Files == nil {
			return nil, fmt.Errorf("game %s: no files (its page module, %s.js, and its words)", g.ID, g.ID)
		}
		page := "js/games/" + g.ID + ".js"
		if _, err := fs.Stat(root, page); err == nil || over[page] != nil {
			return nil, fmt.Errorf("game %s: the client has a game of that id already", g.ID)
		}
		js, err := readGameFile(g.Files, g.ID+".js")
		if err != nil {
			return nil, fmt.Errorf("game %s: its page module: %w", g.ID, err)
		}
		over[page] = &fstest.MapFile{Data: js}
		for _, l := range langs {
			if !l.IsDir() {
				continue
			}
			words, err := readGameFile(g.Files, "i18n/"+l.Name()+".json")
			if err != nil {
				return nil, fmt.Errorf("game %s: its words in %s: %w", g.ID, l.Name(), err)
			}
			var table map[string]string
			if err := json.Unmarshal(words, &table); err != nil {
				return nil, fmt.Errorf("game %s: i18n/%s.json: %w", g.ID, l.Name(), err)
			}
			for k := range table {
				if !strings.HasPrefix(k, g.ID+".") {
					return nil, fmt.Errorf("game %s: i18n/%s.json: key %q is not in the game's namespace (%s.…)", g.ID, l.Name(), k, g.ID)
				}
			}
			over[path.Join(i18nDir, l.Name(), g.ID+".json")] = &fstest.MapFile{Data: words}
		}
		rv, _ := json.Marshal(map[string]string{"id": g.ID, "rulesVersion": g.RulesVersion})
		listed = append(listed, rv)
		core, err := readGameFile(g.Files, "core.wasm")
		if errors.Is(err, fs.ErrNotExist) {
			continue // no local play for this game
		}
		if err != nil {
			return nil, fmt.Errorf("game %s: its core: %w", g.ID, err)
		}
		var z bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&z, gzip.BestCompression)
		zw.Write(core)
		zw.Close()
		over["wasm/core-"+g.ID+".wasm.gz"] = &fstest.MapFile{Data: z.Bytes()}
		sum := sha256.Sum256(core)
		mod, _ := json.Marshal(map[string]any{"name": g.ID, "url": "core-" + g.ID + ".wasm", "bytes": len(core),
			"gzipBytes": z.Len(), "sha256": hex.EncodeToString(sum[:]), "games": []string{g.ID}})
		modules = append(modules, mod)
	}
	m["modules"], _ = json.Marshal(modules)
	m["games"], _ = json.Marshal(listed)
	manifest, _ = json.MarshalIndent(m, "", "  ")
	over["wasm/manifest.json"] = &fstest.MapFile{Data: append(manifest, '\n')}
	// The client's own files, then the games' on top.
	err = fs.WalkDir(root, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || over[p] != nil {
			return err
		}
		data, err := fs.ReadFile(root, p)
		over[p] = &fstest.MapFile{Data: data}
		return err
	})
	return over, err
}

// readGameFile reads name from a game's files, at most maxGameFile bytes.
func readGameFile(files fs.FS, name string) ([]byte, error) {
	info, err := fs.Stat(files, name)
	if err != nil {
		return nil, err
	}
	if info.Size() > maxGameFile {
		return nil, fmt.Errorf("%s is %d bytes, more than %d", name, info.Size(), maxGameFile)
	}
	return fs.ReadFile(files, name)
}
