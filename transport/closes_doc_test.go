package transport

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestClosesDocumented: README's "Closes" table has a row for every close
// reason, with the level it is logged at, and no other.
func TestClosesDocumented(t *testing.T) {
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	start := strings.Index(doc, "### Closes")
	if start < 0 {
		t.Fatal(`README.md has no "### Closes"`)
	}
	doc = doc[start:]
	if end := strings.Index(doc[4:], "\n### "); end >= 0 {
		doc = doc[:end+4]
	}
	rows := regexp.MustCompile("(?m)^\\| `([a-z_0-9]+)` \\| [^|]+ \\| (debug|info|warn) \\|").FindAllStringSubmatch(doc, -1)
	documented := map[string]string{}
	for _, r := range rows {
		documented[r[1]] = r[2]
	}
	for why := whyPeerClose; why < numReasons; why++ {
		level, ok := documented[why.String()]
		if !ok {
			t.Errorf("reason %s has no row in README's Closes", why)
			continue
		}
		if want := strings.ToLower(reasonLevels[why].String()); level != want {
			t.Errorf("README says %s is logged at %s; it is at %s", why, level, want)
		}
		delete(documented, why.String())
	}
	for reason := range documented {
		t.Errorf("README's Closes lists %s, which is no reason", reason)
	}
}
