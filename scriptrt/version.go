package scriptrt

const (
	// MaxVersion is the newest generated code this package runs: its own
	// version.
	MaxVersion = 1

	// GenVersion is the version scriptgen's generator writes into the code
	// it generates. It goes up when generated code needs something new from
	// this package.
	GenVersion = 1

	// MinVersion is the oldest generated code this package still runs. It
	// goes up when this package drops what older generated code calls.
	MinVersion = 1
)

// EnforceVersion makes generated code that does not match this package fail
// to compile, naming this type. Every generated package declares, with the
// GenVersion it was generated with (2 here):
//
//	const (
//		_ = scriptrt.EnforceVersion(2 - scriptrt.MinVersion) // the generated code is too old
//		_ = scriptrt.EnforceVersion(scriptrt.MaxVersion - 2) // package scriptrt is too old
//	)
//
// A negative constant does not convert to an unsigned type, so the build
// stops there with "constant -1 overflows scriptrt.EnforceVersion". The
// comment on the failing line says which side to update: regenerate the
// code with `scriptgen gen`, or upgrade the module
// (go get github.com/scriptgen/scriptgen@latest).
type EnforceVersion uint

// MinVersion ≤ GenVersion ≤ MaxVersion: the generator writes code that this
// package runs.
const (
	_ = EnforceVersion(GenVersion - MinVersion)
	_ = EnforceVersion(MaxVersion - GenVersion)
)
