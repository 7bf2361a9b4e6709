//go:build !race

package conformance

// raceEnabled is set under -race. TestCorpusIsCurrent, a sequential generator with nothing to race,
// runs without it (.ci/run).
const raceEnabled = false
