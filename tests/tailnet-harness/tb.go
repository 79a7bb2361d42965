package main

import (
	"fmt"
	"log"
	"os"
	"sync"
	"testing"
)

// harnessTB lets us call helpers from tailscale.com/tstest/integration (which
// take a testing.TB) from a normal program. testing.TB has an unexported
// method, so the only way to satisfy it outside package testing is to embed
// the interface; every method those helpers actually call is overridden
// below, so the nil embedded value is never reached.
type harnessTB struct {
	testing.TB

	mu       sync.Mutex
	cleanups []func()
	verbose  bool
}

func (t *harnessTB) Helper()      {}
func (t *harnessTB) Name() string { return "tailnet-harness" }
func (t *harnessTB) Failed() bool { return false }

func (t *harnessTB) Logf(format string, args ...any) {
	if t.verbose {
		log.Printf("derp/stun: "+format, args...)
	}
}

func (t *harnessTB) Log(args ...any) { t.Logf("%s", fmt.Sprint(args...)) }

func (t *harnessTB) Errorf(format string, args ...any) {
	log.Printf("ERROR derp/stun: "+format, args...)
}

func (t *harnessTB) Error(args ...any) { t.Errorf("%s", fmt.Sprint(args...)) }

func (t *harnessTB) Fatalf(format string, args ...any) {
	log.Printf("FATAL derp/stun: "+format, args...)
	t.runCleanups()
	os.Exit(1)
}

func (t *harnessTB) Fatal(args ...any) { t.Fatalf("%s", fmt.Sprint(args...)) }

func (t *harnessTB) Cleanup(f func()) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.cleanups = append(t.cleanups, f)
}

// runCleanups runs registered cleanups in reverse order, like testing does.
func (t *harnessTB) runCleanups() {
	t.mu.Lock()
	cs := t.cleanups
	t.cleanups = nil
	t.mu.Unlock()
	for i := len(cs) - 1; i >= 0; i-- {
		cs[i]()
	}
}
