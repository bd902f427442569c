// Package profile starts the CPU profiles roomd and roombot write for load
// tests.
package profile

import (
	"os"
	"runtime/pprof"
)

// StartCPU writes a CPU profile to path until the returned stop is called.
func StartCPU(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}
