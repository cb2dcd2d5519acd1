// Package version is a generated package reduced to its version check:
// TestEnforceVersion builds it with other versions in place of GenVersion.
package version

import "github.com/scriptgen/scriptgen/scriptrt"

const (
	_ = scriptrt.EnforceVersion(scriptrt.GenVersion - scriptrt.MinVersion)
	_ = scriptrt.EnforceVersion(scriptrt.MaxVersion - scriptrt.GenVersion)
)
