package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"io"
	"net"
	"net/http"
	"os"
	"sort"
	"strconv"
	"sync"
	"time"
)

// handleLoad runs a bounded burst of GET requests from the phone node and
// reports throughput and latency: the harness's side of benchmarks (compare
// the app against the -bench-port node as a ceiling).
//
// Parameters: url (required), n (requests, default 1000, max 100000),
// c (concurrency, default 8, max 64), h1=1 (HTTP/1.1 only), insecure=1,
// timeout (whole run, default 60s), direct=1 (dial with the host's own network
// stack instead of the phone's tailnet one: the same client against a
// 127.0.0.1 server, for comparing --local with the tailnet), identity=1 (send no
// Accept-Encoding, so compressing servers send the same bytes as the -bench-port
// node; MiB/s then counts bytes as sent). Connections are kept alive and reused.
func (a *api) handleLoad(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	target := q.Get("url")
	if target == "" {
		writeJSON(w, 400, map[string]any{"error": "missing url"})
		return
	}
	n := clampInt(q.Get("n"), 1000, 1, 100000)
	c := clampInt(q.Get("c"), 8, 1, 64)
	timeout := 60 * time.Second
	if t := q.Get("timeout"); t != "" {
		if d, err := time.ParseDuration(t); err == nil && d > 0 && d <= 10*time.Minute {
			timeout = d
		}
	}
	tlsConf := &tls.Config{InsecureSkipVerify: q.Get("insecure") == "1"}
	if !tlsConf.InsecureSkipVerify && a.rootCA != "" {
		if pem, err := os.ReadFile(a.rootCA); err == nil {
			pool := x509.NewCertPool()
			pool.AppendCertsFromPEM(pem)
			tlsConf.RootCAs = pool
		}
	}
	if q.Get("h1") == "1" {
		tlsConf.NextProtos = []string{"http/1.1"}
	}
	dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
		return a.peer.Dial(ctx, network, addr)
	}
	if q.Get("direct") == "1" {
		var d net.Dialer
		dial = d.DialContext
	}
	tr := &http.Transport{
		DialContext:         dial,
		TLSClientConfig:     tlsConf,
		ForceAttemptHTTP2:   q.Get("h1") != "1",
		MaxIdleConnsPerHost: c,
		DisableCompression:  q.Get("identity") == "1",
	}
	defer tr.CloseIdleConnections()
	// One request that stalls (it happens now and then on a loaded machine, to either
	// server) must cost seconds, not the whole run's timeout: it is counted as an error
	// and the run goes on.
	client := &http.Client{
		Transport:     tr,
		Timeout:       min(timeout, 10*time.Second),
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}

	ctx, cancel := context.WithTimeout(r.Context(), timeout)
	defer cancel()
	var (
		mu        sync.Mutex
		lat       = make([]time.Duration, 0, n)
		errs      int
		firstErr  string
		bytesRead int64
		statuses  = map[int]int{}
	)
	jobs := make(chan struct{}, n)
	for range n {
		jobs <- struct{}{}
	}
	close(jobs)
	start := time.Now()
	var wg sync.WaitGroup
	for range c {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range jobs {
				if ctx.Err() != nil {
					return
				}
				t0 := time.Now()
				req, _ := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
				resp, err := client.Do(req)
				var nb int64
				if err == nil {
					nb, err = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
				d := time.Since(t0)
				mu.Lock()
				if err != nil {
					errs++
					if firstErr == "" {
						firstErr = err.Error()
					}
				} else {
					lat = append(lat, d)
					bytesRead += nb
					statuses[resp.StatusCode]++
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	pct := func(p float64) float64 {
		if len(lat) == 0 {
			return 0
		}
		return float64(lat[int(p*float64(len(lat)-1))].Microseconds()) / 1000
	}
	st := map[string]int{}
	for k, v := range statuses {
		st[strconv.Itoa(k)] = v
	}
	writeJSON(w, 200, map[string]any{
		"requests": n, "concurrency": c, "ok": len(lat), "errors": errs, "first_error": firstErr,
		"statuses": st, "elapsed_ms": elapsed.Milliseconds(),
		"req_per_sec": float64(len(lat)) / elapsed.Seconds(),
		"mib_per_sec": float64(bytesRead) / (1 << 20) / elapsed.Seconds(),
		"p50_ms":      pct(0.50), "p90_ms": pct(0.90), "p99_ms": pct(0.99),
	})
}

func clampInt(s string, def, lo, hi int) int {
	v, err := strconv.Atoi(s)
	if err != nil {
		return def
	}
	return max(lo, min(hi, v))
}
