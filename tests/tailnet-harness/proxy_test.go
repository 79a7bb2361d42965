package main

// The CONNECT proxy's guard, on parsed targets only: nothing here resolves a name or
// connects anywhere but loopback (the tunnel test dials a pipe, never a network).

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

const testDomain = "libations-test.ts.net"

func TestAllowTargetTakesTailnetNamesAndAddresses(t *testing.T) {
	for target, want := range map[string]string{
		"libations.libations-test.ts.net:443":  "libations.libations-test.ts.net:443",
		"LIBATIONS.Libations-Test.ts.net.:443": "libations.libations-test.ts.net:443",
		"phone-2.libations-test.ts.net:80":     "phone-2.libations-test.ts.net:80",
		"a.b.libations-test.ts.net:8443":       "a.b.libations-test.ts.net:8443",
		"100.64.0.1:443":                       "100.64.0.1:443",
		"100.127.255.254:443":                  "100.127.255.254:443",
		"[fd7a:115c:a1e0::1]:443":              "[fd7a:115c:a1e0::1]:443",
		"[fd7a:115c:a1e0:ffff::9]:65535":       "[fd7a:115c:a1e0:ffff::9]:65535",
		"[::ffff:100.64.0.7]:443":              "100.64.0.7:443",
	} {
		got, err := allowTarget(target, testDomain)
		if err != nil || got != want {
			t.Errorf("allowTarget(%q) = %q, %v; want %q", target, got, err, want)
		}
	}
}

func TestAllowTargetRefusesEverythingElse(t *testing.T) {
	for _, target := range []string{
		// Not under the tailnet's domain, or only pretending to be.
		"example.com:443",
		"clients2.google.com:443",
		"libations-test.ts.net:443",
		".libations-test.ts.net:443",
		"libations-test.ts.net.example.com:443",
		"libations.libations-test.ts.net.evil.example:443",
		"evillibations-test.ts.net:443",
		"libations:443",
		"localhost:443",
		"a..libations-test.ts.net:443",
		"-a.libations-test.ts.net:443",
		"a_b.libations-test.ts.net:443",
		"a b.libations-test.ts.net:443",
		"a/b.libations-test.ts.net:443",
		"xn--\u00e9.libations-test.ts.net:443",
		strings.Repeat("a", 64) + ".libations-test.ts.net:443",
		// Addresses outside Tailscale's ranges: this machine, LANs, the internet.
		"127.0.0.1:443",
		"[::1]:443",
		"0.0.0.0:443",
		"10.0.0.1:443",
		"192.168.1.1:443",
		"100.63.255.255:443",
		"100.128.0.0:443",
		"8.8.8.8:443",
		"[fd7a:115c:a1e1::1]:443",
		"[2001:db8::1]:443",
		"[::ffff:127.0.0.1]:443",
		"[fd7a:115c:a1e0::1%eth0]:443",
		"[fe80::1%lo]:443",
		// Not host:port.
		"libations.libations-test.ts.net",
		"100.64.0.1",
		"libations.libations-test.ts.net:",
		"libations.libations-test.ts.net:0",
		"libations.libations-test.ts.net:65536",
		"libations.libations-test.ts.net:https",
		"libations.libations-test.ts.net:+443",
		"libations.libations-test.ts.net:0443",
		"",
	} {
		if got, err := allowTarget(target, testDomain); err == nil {
			t.Errorf("allowTarget(%q) allowed it as %q", target, got)
		}
	}
	// Without a MagicDNS domain no name is on the tailnet (addresses still are).
	if got, err := allowTarget("libations.:443", ""); err == nil {
		t.Errorf("no domain: allowed %q", got)
	}
	if _, err := allowTarget("100.64.0.1:443", ""); err != nil {
		t.Errorf("no domain: %v", err)
	}
}

// The handler: a refused target gets 403 and the dialer is never called; an allowed one
// is tunnelled both ways (through a pipe standing in for the tsnet node).
func TestProxyRefusesBeforeDialingAndTunnelsAllowed(t *testing.T) {
	var mu sync.Mutex
	var dialled []string
	p := &connectProxy{name: "test", domain: testDomain, logf: t.Logf,
		dial: func(ctx context.Context, network, addr string) (net.Conn, error) {
			mu.Lock()
			dialled = append(dialled, addr)
			mu.Unlock()
			ours, theirs := net.Pipe()
			go func() { // an echo server that upper-cases, on the far side
				defer theirs.Close()
				b := make([]byte, 5)
				if _, err := io.ReadFull(theirs, b); err == nil {
					_, _ = theirs.Write([]byte(strings.ToUpper(string(b))))
				}
			}()
			return ours, nil
		}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	addr, err := serveProxy(ctx, p)
	if err != nil {
		t.Fatal(err)
	}

	connect := func(target string) (*http.Response, net.Conn, *bufio.Reader) {
		t.Helper()
		c, err := net.DialTimeout("tcp", addr, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		_ = c.SetDeadline(time.Now().Add(10 * time.Second))
		if _, err := io.WriteString(c, "CONNECT "+target+" HTTP/1.1\r\nHost: "+target+"\r\n\r\n"); err != nil {
			t.Fatal(err)
		}
		br := bufio.NewReader(c)
		res, err := http.ReadResponse(br, &http.Request{Method: http.MethodConnect})
		if err != nil {
			t.Fatalf("CONNECT %s: %v", target, err)
		}
		return res, c, br
	}

	for _, target := range []string{"example.com:443", "127.0.0.1:22", "[::1]:80", "libations:443"} {
		res, c, _ := connect(target)
		c.Close()
		if res.StatusCode != http.StatusForbidden {
			t.Errorf("CONNECT %s: status %d, want 403", target, res.StatusCode)
		}
	}
	mu.Lock()
	if len(dialled) != 0 {
		t.Errorf("refused targets were dialled: %v", dialled)
	}
	mu.Unlock()

	res, c, br := connect("libations.libations-test.ts.net:443")
	defer c.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("CONNECT to the tailnet: status %d", res.StatusCode)
	}
	if _, err := io.WriteString(c, "hello"); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, 5)
	if _, err := io.ReadFull(br, got); err != nil || string(got) != "HELLO" {
		t.Errorf("through the tunnel: %q, %v", got, err)
	}
	mu.Lock()
	if len(dialled) != 1 || dialled[0] != "libations.libations-test.ts.net:443" {
		t.Errorf("dialled %v", dialled)
	}
	mu.Unlock()

	// Anything but CONNECT (a plain proxied GET) is refused too.
	g, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	_, _ = io.WriteString(g, "GET http://example.com/ HTTP/1.1\r\nHost: example.com\r\n\r\n")
	gr, err := http.ReadResponse(bufio.NewReader(g), nil)
	if err != nil || gr.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("plain GET through the proxy: %v, %v", gr, err)
	}
}
