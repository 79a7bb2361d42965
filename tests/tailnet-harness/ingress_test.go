package main

import (
	"bufio"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"testing"
)

// fakePeerAPI answers one /v0/ingress on conn as a node's PeerAPI does: 403 for any target
// but allowed, else 101 and then HTTPS with cert, "menu" for /menu and 404 otherwise.
func fakePeerAPI(t *testing.T, conn net.Conn, allowed string, cert tls.Certificate, seen chan<- http.Header) {
	defer conn.Close()
	br := bufio.NewReader(conn)
	req, err := http.ReadRequest(br)
	if err != nil {
		t.Errorf("reading the ingress request: %v", err)
		return
	}
	seen <- req.Header
	if req.Method != "POST" || req.URL.Path != "/v0/ingress" || req.Header.Get("Tailscale-Ingress-Target") != allowed {
		fmt.Fprint(conn, "HTTP/1.1 403 Forbidden\r\nContent-Length: 7\r\n\r\ndenied\n")
		return
	}
	fmt.Fprint(conn, "HTTP/1.1 101 Switching Protocols\r\n\r\n")
	tc := tls.Server(&bufferedConn{Conn: conn, r: br}, &tls.Config{Certificates: []tls.Certificate{cert}})
	tr := bufio.NewReader(tc)
	for {
		r, err := http.ReadRequest(tr)
		if err != nil {
			return
		}
		code, body := 404, "Not found.\n"
		if r.URL.Path == "/menu" {
			code, body = 200, "menu"
		}
		fmt.Fprintf(tc, "HTTP/1.1 %d X\r\nContent-Length: %d\r\n\r\n%s", code, len(body), body)
	}
}

func TestIngressUpgradesThenSpeaksTLSOverTheSameConnection(t *testing.T) {
	const host = "libations.libations-test.ts.net"
	cert, err := selfSigned(host)
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(cert.Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AddCert(leaf)

	for _, tc := range []struct {
		target, path string
		n            int
		wantIngress  int
		wantStatus   int
		wantStatuses map[string]int
	}{
		{host + ":8443", "/menu", 3, 101, 200, map[string]int{"200": 3}},
		{host + ":8443", "/api/recipes", 1, 101, 404, map[string]int{"404": 1}},
		{host + ":443", "/", 1, 403, 0, nil},
	} {
		q := url.Values{"host": {host}, "target": {tc.target}, "path": {tc.path}, "n": {fmt.Sprint(tc.n)}}
		req, err := parseIngressRequest(q)
		if err != nil {
			t.Fatal(err)
		}
		client, server := net.Pipe()
		seen := make(chan http.Header, 1)
		go fakePeerAPI(t, server, host+":8443", cert, seen)
		res := ingress(client, "100.64.0.5:1234", req, roots, 1<<20)
		client.Close()
		h := <-seen
		if h.Get("Tailscale-Ingress-Src") != "203.0.113.7:40000" || h.Get("Tailscale-Ingress-Target") != tc.target {
			t.Errorf("%s: ingress headers %v", tc.target, h)
		}
		if res.Error != "" || res.IngressStatus != tc.wantIngress || res.Status != tc.wantStatus {
			t.Errorf("%s %s: got %+v", tc.target, tc.path, res)
		}
		if tc.wantStatuses != nil && fmt.Sprint(res.Statuses) != fmt.Sprint(tc.wantStatuses) {
			t.Errorf("%s %s: statuses %v, want %v", tc.target, tc.path, res.Statuses, tc.wantStatuses)
		}
		if tc.wantIngress == 101 && (res.TLS == nil || !res.TLS.Verified) {
			t.Errorf("%s: TLS not verified: %+v", tc.target, res.TLS)
		}
	}
}

func TestIngressRequestDefaultsAndRefusals(t *testing.T) {
	req, err := parseIngressRequest(url.Values{"host": {"a.example.ts.net"}})
	if err != nil {
		t.Fatal(err)
	}
	if req.target != "a.example.ts.net:8443" || req.src != "203.0.113.7:40000" || req.sni != "a.example.ts.net" || req.path != "/" || req.n != 1 {
		t.Errorf("defaults: %+v", req)
	}
	for _, q := range []url.Values{
		{},
		{"host": {"a"}, "path": {"menu"}},
		{"host": {"a"}, "n": {"0"}},
		{"host": {"a"}, "n": {"1001"}},
		{"host": {"a"}, "target": {"no-port"}},
	} {
		if _, err := parseIngressRequest(q); err == nil {
			t.Errorf("%v: accepted", q)
		}
	}
	if _, ok := tailnetHostPort("http://100.64.0.2:41641"); !ok {
		t.Error("a tailnet PeerAPI address refused")
	}
	for _, u := range []string{"http://127.0.0.1:1", "http://192.168.1.1:80", "https://100.64.0.2:1", "http://[fd7a:115c:a1e0::2]:5"} {
		_, ok := tailnetHostPort(u)
		if ok != (u == "http://[fd7a:115c:a1e0::2]:5") {
			t.Errorf("%s: ok=%v", u, ok)
		}
	}
}
