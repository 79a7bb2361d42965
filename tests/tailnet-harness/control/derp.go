package main

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"

	"tailscale.com/derp/derpserver"
	"tailscale.com/net/stun"
	"tailscale.com/tailcfg"
	"tailscale.com/types/key"
	"tailscale.com/types/logger"
)

// runDERPAndSTUN starts a DERP relay (HTTPS with httptest's self-signed certificate,
// which the map marks InsecureForTests) and a STUN server, both on 127.0.0.1, and
// returns the one-region DERP map that points at them and a function that stops both.
//
// It does what tstest/integration.RunDERPAndSTUN does, without that package: it
// imports tailscaled's whole feature set, 55 packages of the harness's 605 that a
// cold Go cache (every CI run) compiles for nothing here. No WebSocket support
// either: that is for browser-WASM clients, and no node here is one.
func runDERPAndSTUN(logf logger.Logf) (*tailcfg.DERPMap, func(), error) {
	const ip = "127.0.0.1"
	d := derpserver.New(key.NewNode(), logf)
	ln, err := net.Listen("tcp", net.JoinHostPort(ip, "0"))
	if err != nil {
		return nil, nil, fmt.Errorf("derp: %w", err)
	}
	srv := httptest.NewUnstartedServer(derpserver.Handler(d))
	srv.Listener.Close()
	srv.Listener = ln
	srv.Config.ErrorLog = logger.StdLogger(logf)
	// DERP upgrades an HTTP/1.1 connection; no HTTP/2 over TLS.
	srv.Config.TLSNextProto = make(map[string]func(*http.Server, *tls.Conn, http.Handler))
	srv.StartTLS()

	pc, err := net.ListenPacket("udp4", net.JoinHostPort(ip, "0"))
	if err != nil {
		srv.Close()
		d.Close()
		return nil, nil, fmt.Errorf("stun: %w", err)
	}
	done := make(chan struct{})
	go serveSTUN(pc.(*net.UDPConn), logf, done)

	m := &tailcfg.DERPMap{Regions: map[int]*tailcfg.DERPRegion{
		1: {
			RegionID:   1,
			RegionCode: "test",
			Nodes: []*tailcfg.DERPNode{{
				Name:             "t1",
				RegionID:         1,
				HostName:         ip,
				IPv4:             ip,
				IPv6:             "none",
				STUNPort:         pc.LocalAddr().(*net.UDPAddr).Port,
				DERPPort:         ln.Addr().(*net.TCPAddr).Port,
				InsecureForTests: true,
				STUNTestIP:       ip,
			}},
		},
	}}
	logf("DERP on %v, STUN on %v", ln.Addr(), pc.LocalAddr())
	stop := func() {
		srv.CloseClientConnections()
		srv.Close()
		d.Close()
		pc.Close()
		<-done
	}
	return m, stop, nil
}

// serveSTUN answers every STUN binding request on pc with the address it came from,
// until pc is closed. It only ever answers a sender, and every sender is a node of
// this tailnet on 127.0.0.1.
func serveSTUN(pc *net.UDPConn, logf logger.Logf, done chan<- struct{}) {
	defer close(done)
	var buf [64 << 10]byte
	for {
		n, src, err := pc.ReadFromUDPAddrPort(buf[:])
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			continue
		}
		pkt := buf[:n]
		if !stun.Is(pkt) {
			continue
		}
		txid, err := stun.ParseBindingRequest(pkt)
		if err != nil {
			continue
		}
		src = netip.AddrPortFrom(src.Addr().Unmap(), src.Port())
		if _, err := pc.WriteToUDPAddrPort(stun.Response(txid, src), src); err != nil {
			logf("stun: answer to %v: %v", src, err)
		}
	}
}
