// loadgen: the browser-like part of scripts/bench (raw keep-alive throughput is wrk's).
//
//	loadgen visit   -url http://127.0.0.1:P/ [-ae "gzip, deflate, br"]
//	    One first visit as a phone makes it: the page, then every stylesheet, script,
//	    icon and sprite it references (each once), with that Accept-Encoding. Prints the
//	    bytes read from the sockets (status lines, headers and bodies as sent).
//	loadgen users   -url U -c 16 -d 10s -q lime,gin,"base:rum"
//	    c virtual users, each repeating: a first visit on a fresh connection, then one
//	    search per -q term (/?q=TERM) on that connection. Prints req/s, visits/s and
//	    p50/p99 per kind of request.
//	loadgen startup -- CMD ARGS...   ({port} in ARGS is replaced by a free port)
//	    Starts CMD and prints the milliseconds from exec to the first 200 for /.
//	loadgen scenario -url U -file benches/scenarios/NAME.json
//	    The load a scenario file describes: stages of virtual users, a weighted request
//	    mix (see scenario.go). Prints req/s and p50/p99 per request name.
//
// Output is one JSON object on stdout. Exit status is non-zero only when the tool could
// not run (bad flags, server unreachable); slow servers are reported, not failed.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

const phone = "gzip, deflate, br"

func main() {
	if len(os.Args) < 2 {
		fail("usage: loadgen visit|users|startup|scenario ...")
	}
	switch os.Args[1] {
	case "visit":
		visitCmd(os.Args[2:])
	case "users":
		usersCmd(os.Args[2:])
	case "startup":
		startupCmd(os.Args[2:])
	case "scenario":
		scenarioCmd(os.Args[2:])
	default:
		fail("unknown mode " + os.Args[1])
	}
}

func fail(msg string) {
	fmt.Fprintln(os.Stderr, "loadgen:", msg)
	os.Exit(2)
}

func emit(v any) {
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
}

// countingConn counts every byte read from the socket.
type countingConn struct {
	net.Conn
	n *atomic.Int64
}

func (c countingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// newClient is a fresh browser-like client: its own connections, no transparent
// decompression (so bodies are counted as sent), byte counting on the sockets.
func newClient(wire *atomic.Int64, conns int) *http.Client {
	var d net.Dialer
	tr := &http.Transport{
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			c, err := d.DialContext(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			return countingConn{c, wire}, nil
		},
		DisableCompression:  true,
		MaxIdleConnsPerHost: conns,
		MaxConnsPerHost:     conns,
	}
	return &http.Client{Transport: tr, Timeout: 60 * time.Second}
}

var refRe = regexp.MustCompile(`(?is)<(link|script|img|use|image)\b[^>]*?\s(?:href|src|xlink:href)\s*=\s*["']([^"'#]+)`)

// assetURLs lists what a browser fetches for a page: stylesheets, scripts, icons,
// manifests, images and SVG sprites, each once, resolved against the page URL.
func assetURLs(page *url.URL, html []byte) []string {
	seen := map[string]bool{}
	var out []string
	for _, m := range refRe.FindAllSubmatch(html, -1) {
		ref, err := url.Parse(string(m[2]))
		if err != nil {
			continue
		}
		u := page.ResolveReference(ref)
		if u.Host != page.Host {
			continue // nothing external is fetched in a benchmark
		}
		if s := u.String(); !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	sort.Strings(out)
	return out
}

type fetched struct {
	URL      string `json:"url"`
	Status   int    `json:"status"`
	Encoding string `json:"content_encoding,omitempty"`
	Body     int64  `json:"body_bytes"`
}

func get(c *http.Client, u, ae string) (fetched, []byte, error) {
	req, err := http.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		return fetched{}, nil, err
	}
	req.Header.Set("Accept-Encoding", ae)
	req.Header.Set("User-Agent", "Mozilla/5.0 (Linux; Android 14) loadgen")
	req.Header.Set("Accept", "text/html,application/xhtml+xml,*/*;q=0.8")
	resp, err := c.Do(req)
	if err != nil {
		return fetched{}, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	f := fetched{URL: u, Status: resp.StatusCode, Encoding: resp.Header.Get("Content-Encoding"), Body: int64(len(body))}
	return f, body, err
}

// firstVisit fetches the page and its assets; the page body is returned only when it is
// not encoded (the asset list is taken from an identity copy otherwise).
func firstVisit(c *http.Client, page, ae string, assets []string, lat func(string, time.Duration)) ([]fetched, error) {
	t0 := time.Now()
	f, _, err := get(c, page, ae)
	if err != nil {
		return nil, err
	}
	lat("page", time.Since(t0))
	out := []fetched{f}
	for _, a := range assets {
		t0 = time.Now()
		f, _, err := get(c, a, ae)
		if err != nil {
			return out, err
		}
		lat("asset", time.Since(t0))
		out = append(out, f)
	}
	return out, nil
}

// discover reads the page once without compression to list its assets.
func discover(page string) ([]string, error) {
	var wire atomic.Int64
	c := newClient(&wire, 1)
	f, body, err := get(c, page, "identity")
	if err != nil {
		return nil, err
	}
	if f.Status != 200 {
		return nil, fmt.Errorf("%s: status %d", page, f.Status)
	}
	u, _ := url.Parse(page)
	return assetURLs(u, body), nil
}

func visitCmd(args []string) {
	fs := flag.NewFlagSet("visit", flag.ExitOnError)
	page := fs.String("url", "", "page URL")
	ae := fs.String("ae", phone, "Accept-Encoding to send")
	_ = fs.Parse(args)
	assets, err := discover(*page)
	if err != nil {
		fail(err.Error())
	}
	var wire atomic.Int64
	c := newClient(&wire, 1)
	files, err := firstVisit(c, *page, *ae, assets, func(string, time.Duration) {})
	if err != nil {
		fail(err.Error())
	}
	var body int64
	for _, f := range files {
		body += f.Body
	}
	emit(map[string]any{"accept_encoding": *ae, "requests": len(files), "wire_bytes": wire.Load(), "body_bytes": body, "files": files})
}

type recorder struct {
	mu  sync.Mutex
	lat map[string][]time.Duration
}

func (r *recorder) add(kind string, d time.Duration) {
	r.mu.Lock()
	r.lat[kind] = append(r.lat[kind], d)
	r.mu.Unlock()
}

func pct(ds []time.Duration, p float64) float64 {
	if len(ds) == 0 {
		return 0
	}
	return float64(ds[int(p*float64(len(ds)-1))].Microseconds()) / 1000
}

func usersCmd(args []string) {
	fs := flag.NewFlagSet("users", flag.ExitOnError)
	page := fs.String("url", "", "page URL")
	ae := fs.String("ae", phone, "Accept-Encoding to send")
	conc := fs.Int("c", 16, "virtual users")
	dur := fs.Duration("d", 10*time.Second, "duration")
	terms := fs.String("q", "lime,gin,base:rum", "comma-separated searches after each visit")
	_ = fs.Parse(args)
	assets, err := discover(*page)
	if err != nil {
		fail(err.Error())
	}
	var searches []string
	for _, t := range strings.Split(*terms, ",") {
		if t = strings.TrimSpace(t); t != "" {
			searches = append(searches, strings.TrimSuffix(*page, "/")+"/?q="+url.QueryEscape(t))
		}
	}
	rec := &recorder{lat: map[string][]time.Duration{}}
	var wire, visits, errs atomic.Int64
	var firstErr atomic.Value
	deadline := time.Now().Add(*dur)
	start := time.Now()
	var wg sync.WaitGroup
	for range *conc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(deadline) {
				c := newClient(&wire, 1)
				_, err := firstVisit(c, *page, *ae, assets, rec.add)
				for _, s := range searches {
					if err != nil || time.Now().After(deadline) {
						break
					}
					t0 := time.Now()
					if _, _, err = get(c, s, *ae); err == nil {
						rec.add("search", time.Since(t0))
					}
				}
				c.CloseIdleConnections()
				if err != nil {
					errs.Add(1)
					firstErr.CompareAndSwap(nil, err.Error())
					continue
				}
				visits.Add(1)
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start).Seconds()
	out := map[string]any{"users": *conc, "seconds": elapsed, "visits": visits.Load(), "visits_per_sec": float64(visits.Load()) / elapsed,
		"errors": errs.Load(), "mib_per_sec": float64(wire.Load()) / (1 << 20) / elapsed}
	if e := firstErr.Load(); e != nil {
		out["first_error"] = e
	}
	var all []time.Duration
	kinds := map[string]any{}
	for kind, ds := range rec.lat {
		sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
		all = append(all, ds...)
		kinds[kind] = map[string]any{"requests": len(ds), "p50_ms": pct(ds, .5), "p99_ms": pct(ds, .99)}
	}
	sort.Slice(all, func(i, j int) bool { return all[i] < all[j] })
	out["requests"] = len(all)
	out["req_per_sec"] = float64(len(all)) / elapsed
	out["p50_ms"], out["p99_ms"] = pct(all, .5), pct(all, .99)
	out["by_kind"] = kinds
	emit(out)
}

func startupCmd(args []string) {
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	if len(args) == 0 {
		fail("startup needs a command")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fail(err.Error())
	}
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	ln.Close()
	for i, a := range args {
		args[i] = strings.ReplaceAll(a, "{port}", port)
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
	client := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		fail(err.Error())
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	for time.Since(t0) < 30*time.Second {
		resp, err := client.Get("http://127.0.0.1:" + port + "/")
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == 200 {
				emit(map[string]any{"startup_ms": float64(time.Since(t0).Microseconds()) / 1000})
				return
			}
		}
		time.Sleep(time.Millisecond)
	}
	fail("no 200 for / within 30 s")
}
