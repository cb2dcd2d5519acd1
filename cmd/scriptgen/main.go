// Command scriptgen checks, tests, bundles and generates typed Go wrappers for
// Redis Lua scripts. See `scriptgen help`.
package main

import (
	"os"

	"github.com/scriptgen/scriptgen/internal/cli"
)

func main() { os.Exit(cli.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
