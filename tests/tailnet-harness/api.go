package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"time"
	"unicode/utf8"

	"tailscale.com/tailcfg"
	"tailscale.com/tsnet"
)

// api is the harness's local control surface, served on 127.0.0.1 only.
type api struct {
	ctl  *control
	peer *tsnet.Server
	// peers are every client node by hostname (the phone, and -second-peer if set);
	// /fetch?from=NAME picks one.
	peers map[string]*tsnet.Server
	// ingress plays Tailscale's Funnel ingress relay (-ingress); nil without it.
	ingress  *tsnet.Server
	rootCA   string // path to a PEM bundle; read on every /fetch
	quit     chan struct{}
	maxBody  int64
	readyMsg map[string]string
}

func (a *api) handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /fetch", a.handleFetch)
	mux.HandleFunc("POST /fetch", a.handleFetch)
	mux.HandleFunc("GET /status", a.handleStatus)
	mux.HandleFunc("GET /ingress", a.handleIngress)
	mux.HandleFunc("GET /load", a.handleLoad)
	mux.HandleFunc("POST /control/stop", a.handleControlStop)
	mux.HandleFunc("POST /control/start", a.handleControlStart)
	mux.HandleFunc("POST /control/complete-auth", a.handleCompleteAuth)
	mux.HandleFunc("GET /control/nodes", a.handleNodes)
	mux.HandleFunc("GET /control/dns-records", a.handleDNSRecords)
	mux.HandleFunc("POST /control/app-caps", a.handleSetAppCaps)
	mux.HandleFunc("DELETE /control/app-caps", a.handleClearAppCaps)
	mux.HandleFunc("POST /quit", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, map[string]any{"ok": true})
		select {
		case <-a.quit:
		default:
			close(a.quit)
		}
	})
	return mux
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
}

type tlsInfo struct {
	Version          string   `json:"version"`
	ALPN             string   `json:"alpn"`
	ServerName       string   `json:"server_name"`
	LeafSubject      string   `json:"leaf_subject"`
	LeafDNSNames     []string `json:"leaf_dns_names"`
	LeafIssuer       string   `json:"leaf_issuer"`
	LeafNotAfter     string   `json:"leaf_not_after"`
	PeerCertificates int      `json:"peer_certificates"`
	Verified         bool     `json:"verified"`
}

type fetchResult struct {
	OK         bool                `json:"ok"`
	Error      string              `json:"error,omitempty"`
	Status     int                 `json:"status,omitempty"`
	Proto      string              `json:"proto,omitempty"`
	Headers    map[string][]string `json:"headers,omitempty"`
	Body       string              `json:"body,omitempty"`
	BodyBase64 string              `json:"body_base64,omitempty"`
	BodyLen    int                 `json:"body_len"`
	TLS        *tlsInfo            `json:"tls,omitempty"`
	ElapsedMS  int64               `json:"elapsed_ms"`
}

// handleFetch performs one request from the "phone" node over the tailnet.
//
// Query parameters:
//
//	url       (required) http:// or https:// URL; the host may be a MagicDNS
//	          name, a short name or a tailnet IP
//	method    HTTP method, default GET
//	host      override the Host header (e.g. to prove redirects ignore it)
//	sni       override the TLS server name
//	insecure  "1" skips certificate verification (result reports verified=false)
//	h1        "1" disables HTTP/2 (ALPN offers http/1.1 only)
//	timeout   Go duration, default 20s
//	header    "Name: value", repeatable: request headers to send
//
// A POST to /fetch sends its own body as the request's body.
// Redirects are never followed. A fresh connection is used every time.
func (a *api) handleFetch(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	target := q.Get("url")
	if target == "" {
		writeJSON(w, 400, fetchResult{Error: "missing url parameter"})
		return
	}
	timeout := 20 * time.Second
	if t := q.Get("timeout"); t != "" {
		d, err := time.ParseDuration(t)
		if err != nil {
			writeJSON(w, 400, fetchResult{Error: "bad timeout: " + err.Error()})
			return
		}
		timeout = d
	}
	method := q.Get("method")
	if method == "" {
		method = http.MethodGet
	}
	insecure := q.Get("insecure") == "1"

	from := a.peer
	if name := q.Get("from"); name != "" {
		from = a.peers[name]
		if from == nil {
			writeJSON(w, 400, fetchResult{Error: "no client node named " + name})
			return
		}
	}
	tlsConf := &tls.Config{ServerName: q.Get("sni")}
	if insecure {
		tlsConf.InsecureSkipVerify = true
	} else if a.rootCA != "" {
		pem, err := os.ReadFile(a.rootCA)
		if err != nil {
			writeJSON(w, 200, fetchResult{Error: "reading root CA: " + err.Error()})
			return
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			writeJSON(w, 200, fetchResult{Error: "no certificates in root CA file " + a.rootCA})
			return
		}
		tlsConf.RootCAs = pool
	}
	if q.Get("h1") == "1" {
		tlsConf.NextProtos = []string{"http/1.1"}
	}
	tr := &http.Transport{
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			return from.Dial(ctx, network, addr)
		},
		TLSClientConfig:   tlsConf,
		ForceAttemptHTTP2: q.Get("h1") != "1",
		DisableKeepAlives: true,
		Proxy:             nil,
	}
	defer tr.CloseIdleConnections()
	client := &http.Client{
		Transport: tr,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}

	ctx, cancel := context.WithTimeout(r.Context(), timeout)
	defer cancel()
	var toSend io.Reader
	if r.Method == http.MethodPost {
		sent, err := io.ReadAll(io.LimitReader(r.Body, a.maxBody))
		if err != nil {
			writeJSON(w, 400, fetchResult{Error: "reading the body to send: " + err.Error()})
			return
		}
		toSend = bytes.NewReader(sent)
	}
	req, err := http.NewRequestWithContext(ctx, method, target, toSend)
	if err != nil {
		writeJSON(w, 400, fetchResult{Error: "bad request: " + err.Error()})
		return
	}
	for _, h := range q["header"] {
		name, value, ok := strings.Cut(h, ":")
		if !ok {
			writeJSON(w, 400, fetchResult{Error: "header needs Name: value, got " + h})
			return
		}
		req.Header.Add(strings.TrimSpace(name), strings.TrimSpace(value))
	}
	if h := q.Get("host"); h != "" {
		req.Host = h
	}
	start := time.Now()
	res := fetchResult{}
	resp, err := client.Do(req)
	if err != nil {
		res.Error = err.Error()
		res.ElapsedMS = time.Since(start).Milliseconds()
		writeJSON(w, 200, res)
		return
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, a.maxBody))
	res.ElapsedMS = time.Since(start).Milliseconds()
	if err != nil {
		res.Error = "reading body: " + err.Error()
	} else {
		res.OK = true
	}
	res.Status = resp.StatusCode
	res.Proto = resp.Proto
	res.Headers = resp.Header
	res.BodyLen = len(body)
	if utf8.Valid(body) {
		res.Body = string(body)
	} else {
		res.BodyBase64 = base64.StdEncoding.EncodeToString(body)
	}
	if cs := resp.TLS; cs != nil {
		res.TLS = describeTLS(*cs)
	}
	writeJSON(w, 200, res)
}

type peerInfo struct {
	DNSName      string   `json:"dns_name"`
	HostName     string   `json:"host_name"`
	TailscaleIPs []string `json:"tailscale_ips"`
	Online       bool     `json:"online"`
	CurAddr      string   `json:"cur_addr"`
	Relay        string   `json:"relay"`
}

func (a *api) handleStatus(w http.ResponseWriter, r *http.Request) {
	lc, err := a.peer.LocalClient()
	if err != nil {
		writeJSON(w, 500, map[string]any{"error": err.Error()})
		return
	}
	st, err := lc.Status(r.Context())
	if err != nil {
		writeJSON(w, 500, map[string]any{"error": err.Error()})
		return
	}
	var peers []peerInfo
	for _, p := range st.Peer {
		pi := peerInfo{DNSName: p.DNSName, HostName: p.HostName, Online: p.Online, CurAddr: p.CurAddr, Relay: p.Relay}
		for _, ip := range p.TailscaleIPs {
			pi.TailscaleIPs = append(pi.TailscaleIPs, ip.String())
		}
		peers = append(peers, pi)
	}
	var selfIPs []string
	for _, ip := range st.TailscaleIPs {
		selfIPs = append(selfIPs, ip.String())
	}
	writeJSON(w, 200, map[string]any{
		"control_url":     a.ctl.URL(),
		"control_running": a.ctl.Running(),
		"backend_state":   st.BackendState,
		"self_dns_name":   st.Self.DNSName,
		"self_ips":        selfIPs,
		"peers":           peers,
		"ready":           a.readyMsg,
	})
}

func (a *api) handleControlStop(w http.ResponseWriter, r *http.Request) {
	if err := a.ctl.Stop(); err != nil {
		writeJSON(w, 500, map[string]any{"error": err.Error()})
		return
	}
	writeJSON(w, 200, map[string]any{"ok": true, "control_running": false})
}

func (a *api) handleControlStart(w http.ResponseWriter, r *http.Request) {
	if err := a.ctl.Start(); err != nil {
		writeJSON(w, 500, map[string]any{"error": err.Error()})
		return
	}
	writeJSON(w, 200, map[string]any{"ok": true, "control_running": true})
}

// handleCompleteAuth approves a pending interactive login, as if a user had
// opened the login URL a node printed. Parameter: url (the full login URL or
// its /auth/... path).
func (a *api) handleCompleteAuth(w http.ResponseWriter, r *http.Request) {
	u := r.URL.Query().Get("url")
	if u == "" {
		if err := r.ParseForm(); err == nil {
			u = r.PostForm.Get("url")
		}
	}
	if u == "" {
		writeJSON(w, 400, map[string]any{"error": "missing url"})
		return
	}
	ok := a.ctl.CompleteAuth(u)
	code := 200
	if !ok {
		code = 404
	}
	writeJSON(w, code, map[string]any{"ok": ok})
}

// handleNodes lists each node control knows: id, name, hostname, addresses, node_key
// and cap_version.
func (a *api) handleNodes(w http.ResponseWriter, r *http.Request) {
	a.fromControl(w)(a.ctl.Nodes())
}

// handleSetAppCaps grants app capabilities to every peer: the body is a JSON
// object of capability name to a list of values, e.g.
// {"libations.app/cap/libations": [{"edit": true}]}.
func (a *api) handleSetAppCaps(w http.ResponseWriter, r *http.Request) {
	var caps tailcfg.PeerCapMap
	if err := json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&caps); err != nil {
		writeJSON(w, 400, map[string]any{"error": "body: " + err.Error()})
		return
	}
	if err := a.ctl.SetAppCaps(caps); err != nil {
		writeJSON(w, 500, map[string]any{"error": err.Error()})
		return
	}
	writeJSON(w, 200, map[string]any{"ok": true, "app_caps": caps})
}

// handleClearAppCaps takes every app capability grant away.
func (a *api) handleClearAppCaps(w http.ResponseWriter, r *http.Request) {
	if err := a.ctl.SetAppCaps(nil); err != nil {
		writeJSON(w, 500, map[string]any{"error": err.Error()})
		return
	}
	writeJSON(w, 200, map[string]any{"ok": true})
}

func (a *api) handleDNSRecords(w http.ResponseWriter, r *http.Request) {
	a.fromControl(w)(a.ctl.DNSRecords())
}

// fromControl answers with what control answered, or its error as a 500.
func (a *api) fromControl(w http.ResponseWriter) func(json.RawMessage, error) {
	return func(body json.RawMessage, err error) {
		if err != nil {
			writeJSON(w, 500, map[string]any{"error": err.Error()})
			return
		}
		writeJSON(w, 200, body)
	}
}

// readyLine renders key=value pairs in a stable order for the READY line.
func readyLine(order []string, kv map[string]string) string {
	var b strings.Builder
	b.WriteString("READY")
	for _, k := range order {
		v, ok := kv[k]
		if !ok || v == "" {
			continue
		}
		fmt.Fprintf(&b, " %s=%s", k, v)
	}
	return b.String()
}
