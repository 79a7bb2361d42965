package main

import (
	"errors"
	"fmt"
	"log"
	"net"
	"net/http"
	"sync"
	"time"

	"tailscale.com/tailcfg"
	"tailscale.com/tstest/integration/testcontrol"
)

// control wraps testcontrol.Server with a listener we own, so that the harness can
// take the control plane away (and bring it back on the same port) while the
// nodes and DERP keep running.
type control struct {
	srv  *testcontrol.Server
	addr string // host:port, fixed for the life of the harness

	mu      sync.Mutex
	httpSrv *http.Server // nil while stopped

	dnsMu      sync.Mutex
	dnsRecords []tailcfg.SetDNSRequest
}

type controlOptions struct {
	derpMap        *tailcfg.DERPMap
	magicDNSDomain string
	requireAuth    bool
	authKey        string
	verbose        bool
	// distinctUsers gives every node its own user (user-1@…, user-2@…) instead of
	// one user for all.
	distinctUsers bool
	// noFunnel leaves the "funnel" node attribute out of every node's capabilities.
	noFunnel bool
}

func newControl(opts controlOptions) (*control, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("control listen: %w", err)
	}
	c := &control{addr: ln.Addr().String()}
	logf := func(format string, args ...any) {
		if opts.verbose {
			log.Printf("control: "+format, args...)
		}
	}
	c.srv = &testcontrol.Server{
		DERPMap:         opts.derpMap,
		Logf:            logf,
		ExplicitBaseURL: "http://" + c.addr,
		MagicDNSDomain:  opts.magicDNSDomain,
		// Proxied=true is what makes the node use MagicDNS; together with
		// MagicDNSDomain, testcontrol then puts "<host>.<domain>" into
		// DNSConfig.CertDomains, which is what `tailscale cert` (and our
		// app's LocalAPI cert call) requires.
		DNSConfig:        &tailcfg.DNSConfig{Proxied: true},
		RequireAuth:      opts.requireAuth,
		RequireAuthKey:   opts.authKey,
		AllNodesSameUser: !opts.distinctUsers,
		// What a tailnet with HTTPS and Funnel in its policy gives a node: the "funnel"
		// attribute and the ports Funnel may use (Tailscale's: 443, 8443, 10000).
		// testcontrol's own default names 8080,443, which no real tailnet does.
		DefaultNodeCapabilities: nodeCapabilities(!opts.noFunnel),
		AllOnline:               true,
		// The ACME dns-01 flow posts the TXT record to /machine/set-dns.
		// Pebble runs with PEBBLE_VA_ALWAYS_VALID=1, so the record does
		// not need to be served anywhere; we just record it for tests.
		OnSetDNS: func(req *tailcfg.SetDNSRequest) error {
			c.dnsMu.Lock()
			defer c.dnsMu.Unlock()
			c.dnsRecords = append(c.dnsRecords, *req)
			logf("set-dns %s %s=%q", req.Type, req.Name, req.Value)
			return nil
		},
	}
	c.serve(ln)
	return c, nil
}

// nodeCapabilities are the node attributes every node gets: HTTPS certificates, file
// sharing, the Funnel ports and, with funnel, the "funnel" attribute.
func nodeCapabilities(funnel bool) *tailcfg.NodeCapMap {
	caps := tailcfg.NodeCapMap{
		tailcfg.CapabilityHTTPS:                                 []tailcfg.RawMessage{},
		tailcfg.CapabilityFileSharing:                           []tailcfg.RawMessage{},
		tailcfg.CapabilityFunnelPorts + "?ports=443,8443,10000": []tailcfg.RawMessage{},
	}
	if funnel {
		caps[tailcfg.NodeAttrFunnel] = []tailcfg.RawMessage{}
	}
	return &caps
}

func (c *control) URL() string { return "http://" + c.addr }

func (c *control) serve(ln net.Listener) {
	hs := &http.Server{Handler: c.srv, ReadHeaderTimeout: 30 * time.Second}
	c.mu.Lock()
	c.httpSrv = hs
	c.mu.Unlock()
	go func() {
		if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Printf("control: serve: %v", err)
		}
	}()
}

// Running reports whether the control HTTP server is accepting connections.
func (c *control) Running() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.httpSrv != nil
}

// Stop closes the control listener and every open connection (including the
// nodes' long-poll map streams). Nodes keep their current netmap and keep
// talking to each other over DERP / direct paths.
func (c *control) Stop() error {
	c.mu.Lock()
	hs := c.httpSrv
	c.httpSrv = nil
	c.mu.Unlock()
	if hs == nil {
		return nil
	}
	return hs.Close()
}

// Start re-listens on the original address after Stop.
func (c *control) Start() error {
	if c.Running() {
		return nil
	}
	ln, err := net.Listen("tcp", c.addr)
	if err != nil {
		return fmt.Errorf("control re-listen on %s: %w", c.addr, err)
	}
	c.serve(ln)
	return nil
}

func (c *control) DNSRecords() []tailcfg.SetDNSRequest {
	c.dnsMu.Lock()
	defer c.dnsMu.Unlock()
	return append([]tailcfg.SetDNSRequest(nil), c.dnsRecords...)
}

// SetAppCaps grants every peer the app capabilities in caps on every node (as a
// policy grant with src "*", dst "*", app caps), or takes all grants away
// with nil. Nodes receive the change in their next map response, without a
// restart.
func (c *control) SetAppCaps(caps tailcfg.PeerCapMap) {
	c.srv.SetGlobalAppCaps(caps)
}

// node is what GET /nodes tells of one node.
type node struct {
	ID        int64    `json:"id"`
	Name      string   `json:"name"`
	Hostname  string   `json:"hostname"`
	Addresses []string `json:"addresses"`
	NodeKey   string   `json:"node_key"`
	Cap       int      `json:"cap_version"`
}

// Nodes lists every node control knows.
func (c *control) Nodes() []node {
	var out []node
	for _, n := range c.srv.AllNodes() {
		nj := node{ID: int64(n.ID), Name: n.Name, Hostname: n.Hostinfo.Hostname(), Cap: int(n.Cap), NodeKey: n.Key.String()}
		for _, p := range n.Addresses {
			nj.Addresses = append(nj.Addresses, p.Addr().String())
		}
		out = append(out, nj)
	}
	return out
}
