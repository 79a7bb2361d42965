package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"tailscale.com/tailcfg"
	"tailscale.com/types/key"
)

// control is the tailnet's control plane, DERP and STUN: the tailnet-control program
// (control/), run as a child process on 127.0.0.1, and asked over its small API.
// It is a program of its own because it needs a newer tailscale.com than the nodes
// here (control/main.go says why).
type control struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser // held open: control exits when it closes
	url   string         // control's URL, for the nodes
	api   string
	derp  string // host:port of the DERP relay
}

type controlOptions struct {
	bin            string // the tailnet-control executable
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

// controlBinary is tailnet-control beside this executable, where the build script
// (build) puts it.
func controlBinary() string {
	self, err := os.Executable()
	if err != nil {
		return "tailnet-control"
	}
	return filepath.Join(filepath.Dir(self), "tailnet-control")
}

// newControl starts tailnet-control and waits for its READY line.
func newControl(opts controlOptions) (*control, error) {
	args := []string{"-magicdns-domain", opts.magicDNSDomain}
	if opts.requireAuth {
		args = append(args, "-require-auth")
	}
	if opts.authKey != "" {
		args = append(args, "-require-auth-key", opts.authKey)
	}
	if opts.distinctUsers {
		args = append(args, "-distinct-users")
	}
	if opts.noFunnel {
		args = append(args, "-no-funnel")
	}
	if opts.verbose {
		args = append(args, "-v")
	}
	cmd := exec.Command(opts.bin, args...)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("control: start %s: %w", opts.bin, err)
	}
	c := &control{cmd: cmd, stdin: stdin}
	lines := make(chan string, 1)
	go func() {
		defer close(lines)
		if line, err := bufio.NewReader(stdout).ReadString('\n'); err == nil {
			lines <- line
		}
	}()
	select {
	case line, ok := <-lines:
		if ok && c.parseReady(line) {
			return c, nil
		}
		c.Close()
		return nil, fmt.Errorf("control: %s ended without READY (its log is above)", opts.bin)
	case <-time.After(60 * time.Second):
		c.Close()
		return nil, errors.New("control: no READY within 60 s")
	}
}

// parseReady reads "READY control=… api=… derp=…".
func (c *control) parseReady(line string) bool {
	fields := strings.Fields(line)
	if len(fields) == 0 || fields[0] != "READY" {
		return false
	}
	for _, f := range fields[1:] {
		k, v, _ := strings.Cut(f, "=")
		switch k {
		case "control":
			c.url = v
		case "api":
			c.api = v
		case "derp":
			c.derp = v
		}
	}
	return c.url != "" && c.api != "" && c.derp != ""
}

// Close ends tailnet-control and waits for it (killed after 5 s).
func (c *control) Close() {
	_ = c.stdin.Close()
	done := make(chan struct{})
	go func() { _ = c.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		_ = c.cmd.Process.Kill()
		<-done
	}
}

func (c *control) URL() string  { return c.url }
func (c *control) DERP() string { return c.derp }

// controlClient asks control's API, on 127.0.0.1; one client, so its connections are
// kept between requests.
var controlClient = &http.Client{Timeout: 30 * time.Second}

// call makes one request of control's API and returns its body; a status other than
// 200 is an error that carries the body.
func (c *control) call(method, path string, body []byte) ([]byte, int, error) {
	req, err := http.NewRequest(method, c.api+path, bytes.NewReader(body))
	if err != nil {
		return nil, 0, err
	}
	resp, err := controlClient.Do(req)
	if err != nil {
		return nil, 0, fmt.Errorf("control %s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	if err != nil {
		return nil, resp.StatusCode, err
	}
	return out, resp.StatusCode, nil
}

// ok makes a request that must be answered 200.
func (c *control) ok(method, path string, body []byte) ([]byte, error) {
	out, code, err := c.call(method, path, body)
	if err == nil && code != 200 {
		err = fmt.Errorf("control %s %s: %d %s", method, path, code, strings.TrimSpace(string(out)))
	}
	return out, err
}

// Stop closes control's listener and every open connection (the nodes' map polls
// too); nodes keep their netmap and keep talking over DERP. Start listens again on the
// same address.
func (c *control) Stop() error  { _, err := c.ok("POST", "/stop", nil); return err }
func (c *control) Start() error { _, err := c.ok("POST", "/start", nil); return err }

// Running reports whether control accepts connections.
func (c *control) Running() bool {
	out, err := c.ok("GET", "/running", nil)
	var v struct{ Running bool }
	return err == nil && json.Unmarshal(out, &v) == nil && v.Running
}

// CompleteAuth approves a pending interactive login (the full login URL or its path).
func (c *control) CompleteAuth(login string) bool {
	_, code, err := c.call("POST", "/complete-auth?url="+url.QueryEscape(login), nil)
	return err == nil && code == 200
}

// Nodes is control's list of nodes, as JSON (control/control.go's node).
func (c *control) Nodes() (json.RawMessage, error) { return c.ok("GET", "/nodes", nil) }

// DNSRecords is every set-dns request control received, as JSON.
func (c *control) DNSRecords() (json.RawMessage, error) { return c.ok("GET", "/dns-records", nil) }

// SetAppCaps grants every peer the app capabilities in caps on every node (as a
// policy grant with src "*", dst "*", app caps), or takes all grants away with nil.
// Nodes receive the change in their next map response, without a restart.
func (c *control) SetAppCaps(caps tailcfg.PeerCapMap) error {
	body, err := json.Marshal(caps)
	if err != nil {
		return err
	}
	_, err = c.ok("PUT", "/app-caps", body)
	return err
}

// SetUnsignedPeerAPIOnly marks node as Funnel's ingress nodes appear in a netmap.
func (c *control) SetUnsignedPeerAPIOnly(node key.NodePublic) error {
	_, err := c.ok("POST", "/unsigned-peerapi-only?node="+url.QueryEscape(node.String()), nil)
	return err
}
