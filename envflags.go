package roomd

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// envFlags registers flags whose defaults come from ROOMD_* variables, and
// documents the variable in each flag's usage.
type envFlags struct {
	fs  *flag.FlagSet
	err error
}

func envName(flagName string) string {
	return "ROOMD_" + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

func (e *envFlags) lookup(name, env string) (string, bool) {
	if env == "" {
		env = envName(name)
	}
	v, ok := os.LookupEnv(env)
	return v, ok
}

func (e *envFlags) usage(usage, env string) string {
	return fmt.Sprintf("%s (env %s)", usage, env)
}

func (e *envFlags) String(name, env, def, usage string) *string {
	if env == "" {
		env = envName(name)
	}
	if v, ok := e.lookup(name, env); ok {
		def = v
	}
	return e.fs.String(name, def, e.usage(usage, env))
}

func (e *envFlags) Bool(name, env string, def bool, usage string) *bool {
	if env == "" {
		env = envName(name)
	}
	if v, ok := e.lookup(name, env); ok {
		b, err := strconv.ParseBool(v)
		if err != nil {
			e.err = fmt.Errorf("%s=%q: %v", env, v, err)
		}
		def = b
	}
	return e.fs.Bool(name, def, e.usage(usage, env))
}

func (e *envFlags) Duration(name, env string, def time.Duration, usage string) *time.Duration {
	if env == "" {
		env = envName(name)
	}
	if v, ok := e.lookup(name, env); ok {
		d, err := time.ParseDuration(v)
		if err != nil {
			e.err = fmt.Errorf("%s=%q: %v", env, v, err)
		}
		def = d
	}
	return e.fs.Duration(name, def, e.usage(usage, env))
}

func (e *envFlags) Int(name, env string, def int, usage string) *int {
	if env == "" {
		env = envName(name)
	}
	if v, ok := e.lookup(name, env); ok {
		n, err := strconv.Atoi(v)
		if err != nil {
			e.err = fmt.Errorf("%s=%q: %v", env, v, err)
		}
		def = n
	}
	return e.fs.Int(name, def, e.usage(usage, env))
}
