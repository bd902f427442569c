package roomd

import (
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestAdminTokenSources: the admin token comes from a file, the
// environment or the command line (noted, for the warning), not two.
func TestAdminTokenSources(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "token")
	os.WriteFile(file, []byte("\tfrom-file \r\n"), 0o600)
	empty := filepath.Join(dir, "empty")
	os.WriteFile(empty, []byte(" \n"), 0o600)
	for _, tc := range []struct {
		name  string
		env   string
		args  []string
		token string
		arg   bool
		err   string
	}{
		{name: "file", args: []string{"--admin-token-file", file}, token: "from-file"},
		{name: "file from the environment", env: "ROOMD_ADMIN_TOKEN_FILE=" + file, token: "from-file"},
		{name: "environment", env: "ROOMD_ADMIN_TOKEN=from-env", token: "from-env"},
		{name: "command line", args: []string{"--admin-token", "from-arg"}, token: "from-arg", arg: true},
		{name: "both", env: "ROOMD_ADMIN_TOKEN=x", args: []string{"--admin-token-file", file}, err: "use one"},
		{name: "missing file", args: []string{"--admin-token-file", filepath.Join(dir, "nope")}, err: "nope"},
		{name: "empty file", args: []string{"--admin-token-file", empty}, err: "empty"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if k, v, ok := strings.Cut(tc.env, "="); ok {
				t.Setenv(k, v)
			}
			cfg, err := ParseFlags(tc.args, io.Discard)
			switch {
			case tc.err != "":
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one saying %q", err, tc.err)
				}
			case err != nil:
				t.Fatal(err)
			case cfg.AdminToken != tc.token || cfg.adminTokenArg != tc.arg:
				t.Fatalf("token %q (on the command line %v), want %q (%v)", cfg.AdminToken, cfg.adminTokenArg, tc.token, tc.arg)
			}
		})
	}
}

// TestSpareProc: a second P only for a fsyncing embedded store on one P,
// and never over a GOMAXPROCS the operator set.
func TestSpareProc(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, tc := range []struct {
		fsync, blocking bool
		env             string
		procs           int
		want            int
	}{
		{true, true, "", 1, 2},
		{true, false, "", 1, 0}, // the log syncs through io_uring
		{true, true, "1", 1, 0},
		{false, true, "", 1, 0},
		{true, true, "", 2, 0},
		{true, true, "", 4, 0},
	} {
		runtime.GOMAXPROCS(tc.procs)
		if got := spareProc(tc.fsync, tc.blocking, tc.env); got != tc.want || runtime.GOMAXPROCS(0) != max(tc.want, tc.procs) {
			t.Errorf("spareProc(%v, %v, %q) at %d Ps = %d, now %d Ps; want %d", tc.fsync, tc.blocking, tc.env, tc.procs, got, runtime.GOMAXPROCS(0), tc.want)
		}
	}
}
