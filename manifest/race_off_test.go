//go:build !race

package manifest

// raceEnabled is set under -race, whose instrumentation allocates: allocation tests skip.
const raceEnabled = false
