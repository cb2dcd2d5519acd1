//go:build !unix

package lint

import "time"

// cpuTime is not measured off Unix; the benchmark then reports 0.
func cpuTime() time.Duration { return 0 }
