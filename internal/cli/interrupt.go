package cli

import (
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"time"
)

// exitSeenWithin bounds how long drive waits, once interrupted, for PROGRAM's exit after its
// group was killed: a killed process is gone in milliseconds, unless it sleeps in the kernel
// (a hung network file system), and the user who pressed Ctrl-C is waiting.
const exitSeenWithin = 2 * time.Second

// interrupts catches SIGINT and SIGTERM while drive runs. Without it a signal would end the
// runner alone, and PROGRAM's group, being its own, never gets the terminal's Ctrl-C: it would
// run on. Each signal caught kills the group at once, a second one included, so that whatever
// drive waits for (a request written, an answer, the exit) ends; the first is the one reported.
type interrupts struct {
	sigs    chan os.Signal
	caught  chan struct{} // closed once a signal has killed the group
	first   os.Signal     // set before caught is closed
	stop    chan struct{}
	stopped chan struct{} // closed once watch's goroutine has ended; nil before watch
}

// catchInterrupts starts catching. Call it before PROGRAM starts, so that a signal in between
// is held rather than ending the runner alone.
func catchInterrupts() *interrupts {
	in := &interrupts{sigs: make(chan os.Signal, 1), caught: make(chan struct{}), stop: make(chan struct{})}
	signal.Notify(in.sigs, os.Interrupt, syscall.SIGTERM)
	return in
}

// watch kills cmd's group on every signal caught, until release; cmd has started.
func (in *interrupts) watch(cmd *exec.Cmd) {
	in.stopped = make(chan struct{})
	go func() {
		defer close(in.stopped)
		for {
			select {
			case sig := <-in.sigs:
				killGroup(cmd)
				if in.first == nil {
					in.first = sig
					close(in.caught)
				}
			case <-in.stop:
				return
			}
		}
	}()
}

// release stops catching (a signal then has its default effect again) and returns the first
// signal caught, nil when there was none. Call it once drive has killed the group itself, or
// when PROGRAM did not start (watch never ran); a signal still held counts, as the user asked
// for the run to stop.
func (in *interrupts) release() os.Signal {
	signal.Stop(in.sigs)
	close(in.stop)
	if in.stopped != nil {
		<-in.stopped
	}
	if in.first == nil {
		select {
		case sig := <-in.sigs:
			return sig
		default:
		}
	}
	return in.first
}

// awaitExit waits for exited, PROGRAM's exit after its group was killed: as long as it takes,
// unless a signal was caught, then at most exitSeenWithin. It says whether the exit was seen.
func (in *interrupts) awaitExit(exited <-chan struct{}) bool {
	select {
	case <-exited:
		return true
	case <-in.caught:
	}
	select {
	case <-exited:
		return true
	case <-time.After(exitSeenWithin):
		return false
	}
}

// interruptedError is drive's error when a signal ended the run: its group killed, no outcome
// kept (a report of the cases left unanswered would say the program does not conform, and
// would replace the last complete one). run prints it as its one line and exits with code.
type interruptedError struct {
	sig      os.Signal
	prog     string // PROGRAM, quoted
	exitSeen bool
}

func (e *interruptedError) Error() string {
	name, _ := signalStatus(e.sig)
	msg := fmt.Sprintf("conformance run: interrupted (%s): killed %s", name, groupOf(e.prog))
	if !e.exitSeen {
		msg += fmt.Sprintf(", which had not exited %v later", exitSeenWithin)
	}
	return msg + "; no report written"
}

// code is the exit status of a run sig interrupted.
func (e *interruptedError) code() int {
	_, code := signalStatus(e.sig)
	return code
}

// signalStatus names sig, one of the signals catchInterrupts catches, and gives the status a
// shell reports for a command it ended: 128 plus its number.
func signalStatus(sig os.Signal) (name string, code int) {
	if sig == syscall.SIGTERM {
		return "SIGTERM", exitTerminated
	}
	return "SIGINT", exitInterrupted
}
