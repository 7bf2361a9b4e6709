package cli

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"syscall"
	"time"

	"github.com/daemonsched/daemonsched/conformance"
	"github.com/daemonsched/daemonsched/internal/jsonlines"
	"github.com/daemonsched/daemonsched/internal/printable"
	"github.com/daemonsched/daemonsched/manifest"
)

// protocolLimits bound one run of the conformance protocol.
type protocolLimits struct {
	// timeout bounds one case: writing its request and reading its answer.
	timeout time.Duration
	// lineBytes bounds one answer line (--max-line-bytes).
	lineBytes int
	// stderrLines bounds the lines of PROGRAM's stderr relayed, stderrLineBytes each line.
	stderrLines, stderrLineBytes int
}

// The defaults of protocolLimits that no flag sets.
const (
	defaultStderrLines     = 1000
	defaultStderrLineBytes = 4096
)

// answerLine is one line PROGRAM wrote on its stdout, or why there is none.
type answerLine struct {
	line []byte
	err  error
}

// session is one running PROGRAM and our ends of its pipes.
type session struct {
	prog    string // PROGRAM, quoted for messages
	lim     protocolLimits
	in      *os.File          // PROGRAM's stdin
	answers <-chan answerLine // PROGRAM's stdout, line by line
	exited  <-chan struct{}   // closed once PROGRAM has exited and waitErr is set
	// interrupted is closed once a signal has killed PROGRAM's group (interrupts).
	interrupted <-chan struct{}
	waitErr     error // exec.Cmd.Wait's
}

// drive starts program once, in a process group of its own, and sends it every case, the
// request numbered by its place in cases from 1. A program that does not read its request or
// answer it within lim.timeout, exits, closes its stdin or stdout, writes a line longer than
// lim.lineBytes or answers another request than the one waiting fails the case, and the
// remaining cases fail without being sent. At the end the whole process group is killed.
// SIGINT or SIGTERM while it runs kills the group at once, and drive returns an
// *interruptedError and no outcomes (interrupt.go).
// program's stderr reaches stderr escaped (printable.Escape) and cut to lim's bounds.
func drive(program []string, cases []conformance.Case, lim protocolLimits, stderr io.Writer) ([]conformance.Outcome, error) {
	// Pipes of our own rather than exec's: their ends are pollable, so that writes and reads
	// take deadlines, and Wait can be called while the answers are still being read.
	var files []*os.File
	defer func() {
		for _, f := range files {
			f.Close()
		}
	}()
	var ends [6]*os.File // in, out and err, each read end then write end
	for i := 0; i < len(ends); i += 2 {
		r, w, err := os.Pipe()
		if err != nil {
			return nil, err
		}
		ends[i], ends[i+1] = r, w
		files = append(files, r, w)
	}
	inR, inW, outR, outW, errR, errW := ends[0], ends[1], ends[2], ends[3], ends[4], ends[5]
	cmd := exec.Command(program[0], program[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	inOwnGroup(cmd)
	prog := printable.Quote(program[0])
	intr := catchInterrupts()
	if err := cmd.Start(); err != nil {
		intr.release()
		return nil, fmt.Errorf("starting %s: %w", prog, err)
	}
	intr.watch(cmd)
	// PROGRAM holds its ends now; ours would keep its reads from ending.
	inR.Close()
	outW.Close()
	errW.Close()

	exited := make(chan struct{})
	s := &session{prog: prog, lim: lim, in: inW, exited: exited, interrupted: intr.caught}
	go func() {
		s.waitErr = cmd.Wait()
		close(exited)
	}()
	relayed := make(chan struct{})
	go func() {
		relayStderr(errR, stderr, prog, lim)
		close(relayed)
	}()
	done := make(chan struct{})
	answers := make(chan answerLine)
	s.answers = answers
	go func() {
		r := jsonlines.NewReader(outR, lim.lineBytes)
		for {
			line, err := r.Next()
			select {
			case answers <- answerLine{slices.Clone(line), err}:
			case <-done:
				return
			}
			if err != nil {
				return
			}
		}
	}()

	var outcomes []conformance.Outcome
	var broken error
	for i, c := range cases {
		var o conformance.Outcome
		if broken == nil {
			o, broken = s.exchange(c, int64(i+1))
		} else {
			o = conformance.Outcome{Case: c.Name, Profile: c.Profile, Result: "error", Error: broken.Error()}
		}
		outcomes = append(outcomes, o)
	}
	inW.Close()
	var ending string
	if broken == nil {
		select {
		case <-exited:
			if s.waitErr != nil {
				ending = fmt.Sprintf("daemonsched: %s: %v\n", prog, s.waitErr)
			}
		case <-time.After(lim.timeout):
			ending = fmt.Sprintf("daemonsched: %s did not exit within %v of its stdin closing: killed\n", prog, lim.timeout)
		case <-intr.caught:
		}
	}
	killGroup(cmd)
	exitSeen := intr.awaitExit(exited)
	close(done)
	// What the group wrote before it died is relayed; a process that left the group may still
	// hold stderr open: stop waiting for it soon.
	select {
	case <-relayed:
	case <-time.After(time.Second):
		errR.Close()
		<-relayed
	}
	if sig := intr.release(); sig != nil {
		return nil, &interruptedError{sig: sig, prog: prog, exitSeen: exitSeen}
	}
	io.WriteString(stderr, ending) //nolint:errcheck // as fmt.Fprintf to stderr
	return outcomes, nil
}

// exchange sends c to the program as request id and judges its answer. The error says why
// the protocol cannot go on; the outcome is then an error saying the same.
func (s *session) exchange(c conformance.Case, id int64) (conformance.Outcome, error) {
	failed := func(err error) (conformance.Outcome, error) {
		return conformance.Outcome{Case: c.Name, Profile: c.Profile, Result: "error", Error: err.Error()}, err
	}
	deadline := time.Now().Add(s.lim.timeout)
	req := conformance.NewRequest(c)
	req.ID = id
	data, err := json.Marshal(req)
	if err != nil {
		return failed(err)
	}
	if err := s.in.SetWriteDeadline(deadline); err != nil {
		return failed(err)
	}
	if _, err := s.in.Write(append(data, '\n')); err != nil {
		switch {
		case errors.Is(err, os.ErrDeadlineExceeded):
			return failed(fmt.Errorf("%s did not read its request within %v", s.prog, s.lim.timeout))
		case errors.Is(err, syscall.EPIPE):
			return failed(s.gone("stdin"))
		}
		return failed(fmt.Errorf("%s stopped reading its stdin: %w", s.prog, err))
	}
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	var a answerLine
	select {
	case a = <-s.answers:
	case <-s.interrupted:
		return failed(errors.New("interrupted"))
	case <-timer.C:
		return failed(fmt.Errorf("%s did not answer within %v", s.prog, s.lim.timeout))
	}
	var tooLong *jsonlines.TooLongError
	switch {
	case errors.As(a.err, &tooLong):
		return failed(fmt.Errorf("%s answered with a line longer than %d bytes (--max-line-bytes)", s.prog, tooLong.Max))
	case a.err == io.EOF:
		return failed(s.gone("stdout"))
	case a.err != nil:
		return failed(fmt.Errorf("reading the answer of %s: %w", s.prog, a.err))
	}
	if got, ok := answerID(a.line); ok && got != id {
		return failed(fmt.Errorf("%s answered request %d while request %d was waiting: its answers are out of step", s.prog, got, id))
	}
	return conformance.JudgeResponse(c, a.line), nil
}

// answerID is the id an answer line gives, read as the rest of the answer is: through the
// same gate (manifest.CheckJSON: a key given twice or invalid UTF-8 refuses the line, which
// JudgeResponse then reports as this case's error; so does a line over conformance.AnswerBytes,
// which it refuses unparsed) and under its exact key, "id" (encoding/json alone would take the
// last of two ids, and "ID" or "Id" as well).
func answerID(line []byte) (int64, bool) {
	if len(line) > conformance.AnswerBytes || manifest.CheckJSON(line) != nil {
		return 0, false
	}
	var keys map[string]json.RawMessage
	if json.Unmarshal(line, &keys) != nil {
		return 0, false
	}
	raw, ok := keys["id"]
	if !ok {
		return 0, false
	}
	var got int64
	if json.Unmarshal(raw, &got) != nil {
		return 0, false
	}
	return got, true
}

// gone says why the program's stream (stdin or stdout) closed: its exit, with its status, or
// the program closing it and running on. An exit closes both, so a moment is given for the
// exit to be seen.
func (s *session) gone(stream string) error {
	select {
	case <-s.exited:
		if s.waitErr != nil {
			return fmt.Errorf("%s exited without answering (%v)", s.prog, s.waitErr)
		}
		return fmt.Errorf("%s exited without answering", s.prog)
	case <-time.After(min(time.Second, s.lim.timeout)):
		return fmt.Errorf("%s closed its %s without answering", s.prog, stream)
	}
}

// relayStderr copies the program's stderr r to w line by line, each line escaped
// (printable.Escape: no terminal escape reaches the terminal) and cut to lim.stderrLineBytes,
// at most lim.stderrLines lines; it then says how many more there were.
func relayStderr(r io.Reader, w io.Writer, prog string, lim protocolLimits) {
	br := bufio.NewReaderSize(r, lim.stderrLineBytes)
	lines, cut := 0, false
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		ended := err == nil // chunk ends with its newline
		if ended {
			chunk = chunk[:len(chunk)-1]
		}
		if room := lim.stderrLineBytes - len(line); len(chunk) > room {
			chunk, cut = chunk[:room], true
		}
		line = append(line, chunk...)
		if err == bufio.ErrBufferFull {
			continue
		}
		if ended || len(line) > 0 {
			if lines < lim.stderrLines {
				text := printable.Escape(string(line))
				if cut {
					text += " [cut]"
				}
				fmt.Fprintln(w, text)
			}
			lines++
		}
		line, cut = line[:0], false
		if err != nil {
			break
		}
	}
	if lines > lim.stderrLines {
		fmt.Fprintf(w, "daemonsched: ... and %d more lines of %s's stderr\n", lines-lim.stderrLines, prog)
	}
}
