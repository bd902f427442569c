package room

import "hash/fnv"

// DedupWindow is how many recent action ids are remembered per player: a
// resent action within the window gets its first receipt again and is
// applied once.
const DedupWindow = 256

// dedupEntry is a remembered action: the revision it produced, or the code
// and message of its refusal.
type dedupEntry struct {
	H    uint64 `json:"h"`
	Rev  uint64 `json:"r,omitempty"`
	Tick uint64 `json:"k,omitempty"` // the tick an input of a real-time match took effect at
	Code string `json:"c,omitempty"`
	Msg  string `json:"m,omitempty"`
}

// dedup is a ring of the last DedupWindow action ids of one player, kept as
// 64-bit FNV-1a hashes. It grows up to the window, then overwrites the oldest.
type dedup struct {
	Ring []dedupEntry `json:"ring"`
	Next int          `json:"next"`
}

func actionHash(id string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(id))
	return h.Sum64()
}

func (d *dedup) find(id string) (dedupEntry, bool) {
	h := actionHash(id)
	for _, e := range d.Ring {
		if e.H == h {
			return e, true
		}
	}
	return dedupEntry{}, false
}

func (d *dedup) add(e dedupEntry) {
	if len(d.Ring) < DedupWindow {
		d.Ring = append(d.Ring, e)
		return
	}
	d.Ring[d.Next] = e
	d.Next = (d.Next + 1) % DedupWindow
}
