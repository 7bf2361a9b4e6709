//go:build race

package cli

// raceEnabled is set under -race. TestGoldenCasesAreTheSameOnEveryRun, which checks that map order
// never shows in the output, has nothing for the detector to find and runs without it (.ci/run).
const raceEnabled = true
