// Command tailnet-control is the tailnet harness's control plane: a control server
// (tailscale.com/tstest/integration/testcontrol, which hands out CertDomains and takes
// the ACME dns-01 record at /machine/set-dns), a DERP relay and a STUN server, all on
// 127.0.0.1. The harness (the module one folder up) starts it as a child process.
//
// Why a program of its own: the harness's nodes are built from the same tailscale.com
// release as the app's embedded node (libtailscale-sys's v1.94.1), so that Go compiles
// that release's packages once for both, but v1.94.1's testcontrol has no OnSetDNS (it
// panics on set-dns) and so can hand out no certificate. Control alone is v1.102.5 and
// compiles its own 358 packages, against 549 for a harness that had everything on it.
//
// It prints one line on stdout when it is up:
//
//	READY control=http://127.0.0.1:P api=http://127.0.0.1:Q derp=127.0.0.1:R
//
// then serves on api= what the harness asks of control (see handler), and exits when
// its standard input closes (the harness ended, however it ended) or on SIGTERM.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"tailscale.com/tailcfg"
	"tailscale.com/types/key"
)

func main() {
	log.SetOutput(os.Stderr)
	log.SetFlags(log.Ltime | log.Lmicroseconds)
	fs := flag.NewFlagSet("tailnet-control", flag.ExitOnError)
	domain := fs.String("magicdns-domain", "libations-test.ts.net", "MagicDNS suffix handed out by control")
	requireAuth := fs.Bool("require-auth", false, "nodes without an auth key get an interactive login URL")
	authKey := fs.String("require-auth-key", "", "if set, control rejects registrations without this auth key")
	distinctUsers := fs.Bool("distinct-users", false, "give every node its own user")
	noFunnel := fs.Bool("no-funnel", false, "nodes get no \"funnel\" node attribute")
	verbose := fs.Bool("v", false, "verbose logs from control and DERP (stderr)")
	_ = fs.Parse(os.Args[1:])
	if err := run(controlOptions{
		magicDNSDomain: *domain, requireAuth: *requireAuth, authKey: *authKey,
		distinctUsers: *distinctUsers, noFunnel: *noFunnel, verbose: *verbose,
	}); err != nil {
		log.Printf("tailnet-control: %v", err)
		os.Exit(1)
	}
}

func run(opts controlOptions) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	logf := func(format string, args ...any) {
		if opts.verbose {
			log.Printf("derp: "+format, args...)
		}
	}
	derpMap, stopDERP, err := runDERPAndSTUN(logf)
	if err != nil {
		return err
	}
	defer stopDERP()
	opts.derpMap = derpMap
	ctl, err := newControl(opts)
	if err != nil {
		return err
	}
	defer ctl.Stop()

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("api listen: %w", err)
	}
	hs := &http.Server{Handler: handler(ctl), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	defer hs.Close()

	fmt.Printf("READY control=%s api=http://%s derp=127.0.0.1:%d\n",
		ctl.URL(), ln.Addr(), derpMap.Regions[1].Nodes[0].DERPPort)

	// The harness holds our standard input open for as long as it runs: its end,
	// even by SIGKILL, closes it, and no control is left behind.
	ended := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		close(ended)
	}()
	select {
	case <-ctx.Done():
	case <-ended:
	}
	return nil
}

// handler is what the harness asks of control, on 127.0.0.1 only:
//
//	POST /stop, POST /start     take the control plane away, bring it back (DERP stays)
//	GET /running                {"running": bool}
//	POST /complete-auth?url=U   approve a pending interactive login: {"ok": bool}, 404 if none
//	GET /nodes                  every node: id, name, hostname, addresses, node_key, cap_version
//	GET /dns-records            every set-dns request received, in order
//	PUT /app-caps               grant the body's app capabilities to every peer (null: none)
//	POST /unsigned-peerapi-only?node=KEY   mark node KEY as Funnel's ingress nodes appear
func handler(ctl *control) http.Handler {
	mux := http.NewServeMux()
	fail := func(w http.ResponseWriter, code int, err error) {
		writeJSON(w, code, map[string]any{"error": err.Error()})
	}
	mux.HandleFunc("POST /stop", func(w http.ResponseWriter, r *http.Request) {
		if err := ctl.Stop(); err != nil {
			fail(w, 500, err)
			return
		}
		writeJSON(w, 200, map[string]any{"ok": true})
	})
	mux.HandleFunc("POST /start", func(w http.ResponseWriter, r *http.Request) {
		if err := ctl.Start(); err != nil {
			fail(w, 500, err)
			return
		}
		writeJSON(w, 200, map[string]any{"ok": true})
	})
	mux.HandleFunc("GET /running", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, map[string]any{"running": ctl.Running()})
	})
	mux.HandleFunc("POST /complete-auth", func(w http.ResponseWriter, r *http.Request) {
		ok := ctl.srv.CompleteAuth(r.URL.Query().Get("url"))
		code := 200
		if !ok {
			code = 404
		}
		writeJSON(w, code, map[string]any{"ok": ok})
	})
	mux.HandleFunc("GET /nodes", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, ctl.Nodes())
	})
	mux.HandleFunc("GET /dns-records", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, ctl.DNSRecords())
	})
	mux.HandleFunc("PUT /app-caps", func(w http.ResponseWriter, r *http.Request) {
		var caps tailcfg.PeerCapMap
		if err := json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&caps); err != nil {
			fail(w, 400, fmt.Errorf("body: %w", err))
			return
		}
		ctl.SetAppCaps(caps)
		writeJSON(w, 200, map[string]any{"ok": true})
	})
	mux.HandleFunc("POST /unsigned-peerapi-only", func(w http.ResponseWriter, r *http.Request) {
		var node key.NodePublic
		if err := node.UnmarshalText([]byte(r.URL.Query().Get("node"))); err != nil {
			fail(w, 400, fmt.Errorf("node: %w", err))
			return
		}
		ctl.srv.SetUnsignedPeerAPIOnly(node, true)
		writeJSON(w, 200, map[string]any{"ok": true})
	})
	return mux
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}
