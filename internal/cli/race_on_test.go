//go:build race

package cli

// raceEnabled: the race detector's shadow memory, several times the
// heap and never returned, makes RSS a figure of the detector, not of
// serve.
const raceEnabled = true
