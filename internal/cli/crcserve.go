package cli

import (
	"github.com/scriptgen/scriptgen/crc/crcgen"
)

func init() {
	register(&command{name: "crc", summary: "emit CRC tables as Go source, verify RDB files", usage: crcgen.Usage,
		run: func(e *env, args []string) int {
			code := crcgen.Command(args, e.stdout, e.stderr)
			if len(args) == 1 && (args[0] == "-h" || args[0] == "-help") {
				return ExitOK
			}
			return code
		}})
}
