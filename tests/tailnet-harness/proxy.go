package main

// An HTTP CONNECT proxy per client node (-proxy), so that a real browser on this machine
// can open https://libations.<domain> AS that node: the browser is started with
// --proxy-server=http://127.0.0.1:P, every tunnel it asks for is dialled through the
// node's tsnet stack, and the app sees the node's tailnet address and identity.
//
// The proxy is a way into the tailnet only. A browser asks for many things by itself
// (updates, safe browsing, fonts); none of that may leave the machine, so the target is
// parsed and checked BEFORE anything is dialled: a MagicDNS name under the tailnet's
// domain, or an address in Tailscale's ranges. Everything else gets 403.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"time"
)

var (
	// Tailscale's CGNAT range and its IPv6 ULA: the only addresses a tailnet node has.
	tailnetV4 = netip.MustParsePrefix("100.64.0.0/10")
	tailnetV6 = netip.MustParsePrefix("fd7a:115c:a1e0::/48")
)

// allowTarget parses a CONNECT target (host:port) and says whether it is on the tailnet:
// a name of the form <label>(.<label>)*.<domain> or an address in tailnetV4/tailnetV6.
// It returns the target to dial (names lower-cased, without a trailing dot). Nothing is
// resolved or dialled here: the decision is on the text alone.
func allowTarget(target, domain string) (string, error) {
	host, port, err := net.SplitHostPort(target)
	if err != nil {
		return "", fmt.Errorf("target %q: %w", target, err)
	}
	n, err := strconv.ParseUint(port, 10, 16)
	if err != nil || n == 0 || port != strconv.FormatUint(n, 10) {
		return "", fmt.Errorf("target %q: port %q is not 1 to 65535", target, port)
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		if ip.Zone() != "" {
			return "", fmt.Errorf("target %q: an address with a zone is not on the tailnet", target)
		}
		ip = ip.Unmap()
		if !tailnetV4.Contains(ip) && !tailnetV6.Contains(ip) {
			return "", fmt.Errorf("target %q: %s is not a tailnet address", target, ip)
		}
		return net.JoinHostPort(ip.String(), port), nil
	}
	name := strings.ToLower(strings.TrimSuffix(host, "."))
	suffix := "." + strings.ToLower(strings.Trim(domain, "."))
	if suffix == "." {
		return "", fmt.Errorf("target %q: the tailnet has no MagicDNS domain", target)
	}
	node, ok := strings.CutSuffix(name, suffix)
	if !ok || node == "" {
		return "", fmt.Errorf("target %q: not a name under %s", target, suffix[1:])
	}
	for _, label := range strings.Split(node, ".") {
		if !validLabel(label) {
			return "", fmt.Errorf("target %q: %q is not a DNS label", target, label)
		}
	}
	return net.JoinHostPort(name, port), nil
}

// validLabel: 1 to 63 letters, digits and inner hyphens (what MagicDNS hands out).
func validLabel(l string) bool {
	if l == "" || len(l) > 63 || l[0] == '-' || l[len(l)-1] == '-' {
		return false
	}
	for _, c := range l {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// connectProxy tunnels CONNECT requests through dial (a tsnet node's Dial in the harness).
type connectProxy struct {
	name   string // the node's hostname, for the log
	domain string
	dial   func(ctx context.Context, network, addr string) (net.Conn, error)
	logf   func(format string, args ...any)
}

func (p *connectProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodConnect {
		http.Error(w, "this proxy only tunnels (CONNECT) to the tailnet", http.StatusMethodNotAllowed)
		return
	}
	// CONNECT's request target is the authority (host:port); Go puts it in URL.Host.
	target, err := allowTarget(r.URL.Host, p.domain)
	if err != nil {
		p.logf("proxy %s: refused CONNECT %s: %v", p.name, r.URL.Host, err)
		http.Error(w, "refused: "+err.Error(), http.StatusForbidden)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), 30*time.Second)
	upstream, err := p.dial(ctx, "tcp", target)
	cancel()
	if err != nil {
		p.logf("proxy %s: dial %s: %v", p.name, target, err)
		http.Error(w, "dial "+target+": "+err.Error(), http.StatusBadGateway)
		return
	}
	hj, ok := w.(http.Hijacker)
	if !ok {
		upstream.Close()
		http.Error(w, "cannot take over the connection", http.StatusInternalServerError)
		return
	}
	client, buf, err := hj.Hijack()
	if err != nil {
		upstream.Close()
		return
	}
	if _, err := client.Write([]byte("HTTP/1.1 200 Connection established\r\n\r\n")); err != nil {
		client.Close()
		upstream.Close()
		return
	}
	// Bytes the client sent right after its request (before our 200) are already read.
	var fromClient io.Reader = client
	if n := buf.Reader.Buffered(); n > 0 {
		early, _ := buf.Reader.Peek(n)
		fromClient = io.MultiReader(bytes.NewReader(early), client)
	}
	splice(client, upstream, fromClient)
}

// splice copies both ways until both directions are done, half-closing where it can so
// that TLS close_notify and EOF travel through.
func splice(client, upstream net.Conn, fromClient io.Reader) {
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		_, _ = io.Copy(upstream, fromClient)
		closeWrite(upstream)
	}()
	go func() {
		defer wg.Done()
		_, _ = io.Copy(client, upstream)
		closeWrite(client)
	}()
	wg.Wait()
	client.Close()
	upstream.Close()
}

func closeWrite(c net.Conn) {
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		if cw.CloseWrite() == nil {
			return
		}
	}
	c.Close()
}

// serveProxy listens on a fresh 127.0.0.1 port and serves p there until ctx ends. It
// returns the address.
func serveProxy(ctx context.Context, p *connectProxy) (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("proxy %s: listen: %w", p.name, err)
	}
	hs := &http.Server{Handler: p, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Printf("proxy %s: %v", p.name, err)
		}
	}()
	go func() {
		<-ctx.Done()
		_ = hs.Close()
	}()
	return ln.Addr().String(), nil
}
