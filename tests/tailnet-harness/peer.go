package main

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	"tailscale.com/ipn"
	"tailscale.com/ipn/ipnstate"
	"tailscale.com/tsnet"
)

type nodeOptions struct {
	hostname   string
	dir        string
	controlURL string
	authKey    string
	verbose    bool
	// stateDir, if set, is the node's tsnet Dir as it is (not dir/hostname),
	// and the node is not ephemeral: it stands for the Go original, whose
	// state a test hands over to our binary.
	stateDir string
	// completeAuth, if non-nil, is called with the node's login URL when
	// control asks for interactive login (harness started with
	// -require-auth). The harness's own nodes approve themselves.
	completeAuth func(url string) bool
}

// startNode brings up an ephemeral tsnet node against our control server
// and waits until it is Running.
func startNode(ctx context.Context, opts nodeOptions) (*tsnet.Server, *ipnstate.Status, error) {
	dir := filepath.Join(opts.dir, opts.hostname)
	if opts.stateDir != "" {
		dir = opts.stateDir
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, nil, err
	}
	s := &tsnet.Server{
		Dir:        dir,
		Hostname:   opts.hostname,
		ControlURL: opts.controlURL,
		AuthKey:    opts.authKey,
		Ephemeral:  opts.stateDir == "",
		UserLogf: func(format string, args ...any) {
			if opts.verbose {
				log.Printf(opts.hostname+": "+format, args...)
			}
		},
	}
	if opts.verbose {
		s.Logf = func(format string, args ...any) { log.Printf(opts.hostname+" [backend]: "+format, args...) }
	}
	if err := s.Start(); err != nil {
		return nil, nil, fmt.Errorf("%s: start: %w", opts.hostname, err)
	}
	lc, err := s.LocalClient()
	if err != nil {
		s.Close()
		return nil, nil, err
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		st, err := lc.StatusWithoutPeers(ctx)
		if err == nil {
			if st.BackendState == ipn.Running.String() && len(st.TailscaleIPs) > 0 {
				full, err := lc.Status(ctx)
				if err != nil {
					s.Close()
					return nil, nil, err
				}
				return s, full, nil
			}
			if st.AuthURL != "" && opts.completeAuth != nil {
				if opts.completeAuth(st.AuthURL) {
					opts.completeAuth = nil
				}
			}
		}
		if time.Now().After(deadline) {
			s.Close()
			state := "unknown"
			if st != nil {
				state = st.BackendState
			}
			return nil, nil, fmt.Errorf("%s: not Running after 60s (state %s, err %v)", opts.hostname, state, err)
		}
		select {
		case <-ctx.Done():
			s.Close()
			return nil, nil, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}
