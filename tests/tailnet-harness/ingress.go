package main

// An "ingress" node (-ingress NAME) that plays Tailscale's Funnel ingress relay, as
// tailscale.com/tsnet's own TestFunnel does (dialIngressConn): it dials the target
// node's PeerAPI over the tailnet, sends POST /v0/ingress with Tailscale-Ingress-Src (the
// public address a relay would have seen) and Tailscale-Ingress-Target (<name>:<port>),
// reads the answer, and on 101 speaks TLS over the same connection, trusting the root CA
// (Pebble's), as a browser on the internet would through a real relay.
//
// Control marks the node UnsignedPeerAPIOnly, as real ingress nodes appear in a netmap:
// it can reach PeerAPI and nothing else. The peer capability PeerAPI checks
// (tailcfg.PeerCapabilityIngress, "https://tailscale.com/cap/ingress") is granted to
// every node by testcontrol's packet filter. Nothing here leaves the tailnet: the only
// address dialled is the target node's PeerAPI, a tailnet address from the netmap.

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"tailscale.com/tsnet"
)

// ingressRequest is what /ingress is asked to do.
type ingressRequest struct {
	host   string // the node whose PeerAPI gets the connection (its MagicDNS name)
	src    string // Tailscale-Ingress-Src
	target string // Tailscale-Ingress-Target
	sni    string
	path   string
	method string
	n      int // requests over the one connection (keep-alive)
}

type ingressResult struct {
	OK bool `json:"ok"`
	// Error is set when the harness itself could not do it (no such node, TLS failed).
	Error string `json:"error,omitempty"`
	// IngressStatus is PeerAPI's answer to POST /v0/ingress: 101 when the node took the
	// connection, 403 when it refused it.
	IngressStatus int    `json:"ingress_status"`
	IngressBody   string `json:"ingress_body,omitempty"`
	// The first answer over TLS, as /fetch reports it.
	Status  int                 `json:"status,omitempty"`
	Headers map[string][]string `json:"headers,omitempty"`
	Body    string              `json:"body,omitempty"`
	TLS     *tlsInfo            `json:"tls,omitempty"`
	// Statuses counts the answers of all n requests by status code.
	Statuses map[string]int `json:"statuses,omitempty"`
}

// peerAPIOf finds host's PeerAPI address (ip:port) in node's netmap, waiting for it to
// appear (a node that just joined).
func peerAPIOf(ctx context.Context, node *tsnet.Server, host string) (string, error) {
	lc, err := node.LocalClient()
	if err != nil {
		return "", err
	}
	want := strings.ToLower(strings.TrimSuffix(host, "."))
	deadline := time.Now().Add(30 * time.Second)
	for {
		st, err := lc.Status(ctx)
		if err != nil {
			return "", err
		}
		for _, p := range st.Peer {
			if strings.ToLower(strings.TrimSuffix(p.DNSName, ".")) != want {
				continue
			}
			for _, u := range p.PeerAPIURL {
				if addr, ok := tailnetHostPort(u); ok {
					return addr, nil
				}
			}
		}
		if time.Now().After(deadline) {
			return "", fmt.Errorf("no peer %s with a PeerAPI address in the ingress node's netmap", host)
		}
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// tailnetHostPort takes "http://ip:port" and returns ip:port if ip is a tailnet address.
func tailnetHostPort(peerAPIURL string) (string, bool) {
	u, err := url.Parse(peerAPIURL)
	if err != nil || u.Scheme != "http" {
		return "", false
	}
	ap, err := netip.ParseAddrPort(u.Host)
	if err != nil {
		return "", false
	}
	ip := ap.Addr().Unmap()
	if !tailnetV4.Contains(ip) && !tailnetV6.Contains(ip) {
		return "", false
	}
	return ap.String(), true
}

// ingress does one Funnel connection over conn, already dialled to the target's PeerAPI
// at peerAPI: the /v0/ingress upgrade, then TLS and req.n requests.
func ingress(conn net.Conn, peerAPI string, req ingressRequest, roots *x509.CertPool, maxBody int64) ingressResult {
	res := ingressResult{OK: true}
	up, err := http.NewRequest("POST", "/v0/ingress", nil)
	if err != nil {
		return ingressResult{Error: err.Error()}
	}
	up.Host = peerAPI
	up.Header.Set("Tailscale-Ingress-Src", req.src)
	up.Header.Set("Tailscale-Ingress-Target", req.target)
	if err := up.Write(conn); err != nil {
		return ingressResult{Error: "writing /v0/ingress: " + err.Error()}
	}
	br := bufio.NewReader(conn)
	answer, err := http.ReadResponse(br, up)
	if err != nil {
		return ingressResult{Error: "reading /v0/ingress's answer: " + err.Error()}
	}
	res.IngressStatus = answer.StatusCode
	if answer.StatusCode != http.StatusSwitchingProtocols {
		body, _ := io.ReadAll(io.LimitReader(answer.Body, 4096))
		answer.Body.Close()
		res.IngressBody = string(body)
		return res
	}
	tc := tls.Client(&bufferedConn{Conn: conn, r: br}, &tls.Config{
		ServerName: req.sni,
		RootCAs:    roots,
		NextProtos: []string{"http/1.1"},
	})
	if err := tc.Handshake(); err != nil {
		return ingressResult{Error: "TLS over the ingress connection: " + err.Error(), IngressStatus: res.IngressStatus}
	}
	res.TLS = describeTLS(tc.ConnectionState())
	tr := bufio.NewReader(tc)
	res.Statuses = map[string]int{}
	for i := 0; i < req.n; i++ {
		r, err := http.NewRequest(req.method, "https://"+req.target+req.path, nil)
		if err != nil {
			return ingressResult{Error: err.Error()}
		}
		if err := r.Write(tc); err != nil {
			res.Statuses["write_error"]++
			break
		}
		resp, err := http.ReadResponse(tr, r)
		if err != nil {
			res.Statuses["closed"]++
			break
		}
		body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
		resp.Body.Close()
		if err != nil {
			res.Statuses["body_error"]++
			break
		}
		res.Statuses[strconv.Itoa(resp.StatusCode)]++
		if i == 0 {
			res.Status = resp.StatusCode
			res.Headers = resp.Header
			res.Body = string(body)
		}
		if resp.Close {
			break
		}
	}
	return res
}

func describeTLS(cs tls.ConnectionState) *tlsInfo {
	info := &tlsInfo{
		Version:          tls.VersionName(cs.Version),
		ALPN:             cs.NegotiatedProtocol,
		ServerName:       cs.ServerName,
		PeerCertificates: len(cs.PeerCertificates),
		Verified:         len(cs.VerifiedChains) > 0,
	}
	if len(cs.PeerCertificates) > 0 {
		leaf := cs.PeerCertificates[0]
		info.LeafSubject = leaf.Subject.String()
		info.LeafDNSNames = leaf.DNSNames
		info.LeafIssuer = leaf.Issuer.String()
		info.LeafNotAfter = leaf.NotAfter.UTC().Format(time.RFC3339)
	}
	return info
}

// bufferedConn reads what the bufio.Reader already holds before the connection's own.
type bufferedConn struct {
	net.Conn
	r *bufio.Reader
}

func (c *bufferedConn) Read(b []byte) (int, error) { return c.r.Read(b) }

// parseIngressRequest reads /ingress's query: host (required), target (default
// <host>:8443), src (default 203.0.113.7:40000), path (default /), method (GET), sni
// (default target's host), n (1 to 1000).
func parseIngressRequest(q url.Values) (ingressRequest, error) {
	req := ingressRequest{
		host:   q.Get("host"),
		src:    q.Get("src"),
		target: q.Get("target"),
		sni:    q.Get("sni"),
		path:   q.Get("path"),
		method: q.Get("method"),
		n:      1,
	}
	if req.host == "" {
		return req, errors.New("missing host (the node whose PeerAPI gets the connection)")
	}
	if req.target == "" {
		req.target = net.JoinHostPort(req.host, "8443")
	}
	if req.src == "" {
		req.src = "203.0.113.7:40000"
	}
	if req.path == "" {
		req.path = "/"
	}
	if !strings.HasPrefix(req.path, "/") {
		return req, fmt.Errorf("path %q must start with /", req.path)
	}
	if req.method == "" {
		req.method = http.MethodGet
	}
	if req.sni == "" {
		host, _, err := net.SplitHostPort(req.target)
		if err != nil {
			return req, fmt.Errorf("target %q: %w", req.target, err)
		}
		req.sni = host
	}
	if s := q.Get("n"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > 1000 {
			return req, fmt.Errorf("n %q: want 1 to 1000", s)
		}
		req.n = n
	}
	return req, nil
}

// handleIngress: GET /ingress?host=NAME[&target=NAME:PORT][&src=IP:PORT][&path=/x][&n=N]
// makes one Funnel connection from the ingress node (-ingress) to NAME's PeerAPI.
func (a *api) handleIngress(w http.ResponseWriter, r *http.Request) {
	if a.ingress == nil {
		writeJSON(w, 400, ingressResult{Error: "the harness was started without -ingress"})
		return
	}
	req, err := parseIngressRequest(r.URL.Query())
	if err != nil {
		writeJSON(w, 400, ingressResult{Error: err.Error()})
		return
	}
	pem, err := os.ReadFile(a.rootCA)
	if err != nil {
		writeJSON(w, 200, ingressResult{Error: "reading root CA: " + err.Error()})
		return
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(pem) {
		writeJSON(w, 200, ingressResult{Error: "no certificates in " + a.rootCA})
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), 60*time.Second)
	defer cancel()
	peerAPI, err := peerAPIOf(ctx, a.ingress, req.host)
	if err != nil {
		writeJSON(w, 200, ingressResult{Error: err.Error()})
		return
	}
	conn, err := a.ingress.Dial(ctx, "tcp", peerAPI)
	if err != nil {
		writeJSON(w, 200, ingressResult{Error: "dialling " + peerAPI + ": " + err.Error()})
		return
	}
	defer conn.Close()
	if dl, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(dl)
	}
	writeJSON(w, 200, ingress(conn, peerAPI, req, roots, a.maxBody))
}
