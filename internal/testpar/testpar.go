// Package testpar sets how many of a test binary's parallel tests run at
// once, for packages whose tests mostly wait (on a browser, a child
// process, a timer) rather than compute: the testing package's default is
// GOMAXPROCS, which on a 2-core machine leaves them idle.
//
//	func TestMain(m *testing.M) { testpar.Default(4); os.Exit(m.Run()) }
package testpar

import (
	"flag"
	"strconv"
)

// Default sets -test.parallel to n unless the command line set it. Call
// it from TestMain before m.Run.
func Default(n int) {
	if !flag.Parsed() {
		flag.Parse()
	}
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		flag.Set("test.parallel", strconv.Itoa(n))
	}
}
