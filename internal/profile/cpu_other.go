//go:build !unix

package profile

// ProcessCPU is not measured on this system: 0.
func ProcessCPU() float64 { return 0 }
