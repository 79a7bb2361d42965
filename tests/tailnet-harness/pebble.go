package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"log"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"
)

// pebble runs Debian's `pebble` ACME test server as a child process.
//
// Pebble only speaks HTTPS, so we mint a throwaway self-signed TLS
// certificate for 127.0.0.1/localhost (pebble-tls.pem). Whoever talks ACME to
// pebble — the app's embedded Tailscale node — must trust that file, which
// for a Go client means SSL_CERT_FILE=<pebble-tls.pem>.
//
// Pebble regenerates its issuing root on every start; we fetch it from the
// management endpoint /roots/0 into pebble-root.pem. That is the root the
// phone must trust to verify the app's HTTPS certificate.
type pebble struct {
	cmd          *exec.Cmd
	DirectoryURL string // ACME directory, https://127.0.0.1:P/dir
	MgmtURL      string
	TLSCertFile  string // pebble's own HTTPS cert (trust anchor for ACME clients)
	RootFile     string // pebble's issuing root (trust anchor for issued certs)
	done         chan struct{}
}

func freeLoopbackPort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

func writeSelfSignedTLS(certFile, keyFile string) error {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 120))
	if err != nil {
		return err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: "pebble test listener"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(7 * 24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		DNSNames:              []string{"localhost"},
		IPAddresses:           []net.IP{net.ParseIP("127.0.0.1"), net.ParseIP("::1")},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return err
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return err
	}
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644); err != nil {
		return err
	}
	return os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600)
}

func startPebble(ctx context.Context, bin, dir string, verbose bool) (*pebble, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	p := &pebble{
		TLSCertFile: filepath.Join(dir, "pebble-tls.pem"),
		RootFile:    filepath.Join(dir, "pebble-root.pem"),
		done:        make(chan struct{}),
	}
	keyFile := filepath.Join(dir, "pebble-tls.key")
	if err := writeSelfSignedTLS(p.TLSCertFile, keyFile); err != nil {
		return nil, fmt.Errorf("pebble TLS cert: %w", err)
	}
	var ports [4]int
	for i := range ports {
		port, err := freeLoopbackPort()
		if err != nil {
			return nil, err
		}
		ports[i] = port
	}
	cfg := map[string]any{
		"pebble": map[string]any{
			"listenAddress":           fmt.Sprintf("127.0.0.1:%d", ports[0]),
			"managementListenAddress": fmt.Sprintf("127.0.0.1:%d", ports[1]),
			"certificate":             p.TLSCertFile,
			"privateKey":              keyFile,
			// Only used for http-01/tls-alpn-01 validation, which never
			// happens with PEBBLE_VA_ALWAYS_VALID=1; still keep them local.
			"httpPort":                       ports[2],
			"tlsPort":                        ports[3],
			"ocspResponderURL":               "",
			"externalAccountBindingRequired": false,
		},
	}
	cfgJSON, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		return nil, err
	}
	cfgFile := filepath.Join(dir, "pebble-config.json")
	if err := os.WriteFile(cfgFile, cfgJSON, 0o644); err != nil {
		return nil, err
	}
	p.DirectoryURL = fmt.Sprintf("https://127.0.0.1:%d/dir", ports[0])
	p.MgmtURL = fmt.Sprintf("https://127.0.0.1:%d", ports[1])

	cmd := exec.Command(bin, "-config", cfgFile, "-dnsserver", "127.0.0.1:1")
	cmd.Env = append(os.Environ(),
		"PEBBLE_VA_ALWAYS_VALID=1", // skip dns-01 lookups entirely
		"PEBBLE_VA_NOSLEEP=1",      // no random pre-validation sleep
		"PEBBLE_WFE_NONCEREJECT=0", // no deliberate badNonce errors
	)
	cmd.Stdout = io.Discard
	if verbose {
		cmd.Stdout = os.Stderr
	}
	cmd.Stderr = cmd.Stdout
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", bin, err)
	}
	p.cmd = cmd
	go func() { _ = cmd.Wait(); close(p.done) }()

	// Wait for the management endpoint and save the issuing root.
	pool := x509.NewCertPool()
	pemBytes, err := os.ReadFile(p.TLSCertFile)
	if err != nil {
		p.Stop()
		return nil, err
	}
	pool.AppendCertsFromPEM(pemBytes)
	client := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	deadline := time.Now().Add(20 * time.Second)
	for {
		select {
		case <-p.done:
			return nil, fmt.Errorf("pebble exited early (run with -v to see its output)")
		case <-ctx.Done():
			p.Stop()
			return nil, ctx.Err()
		default:
		}
		root, err := fetchOK(client, p.MgmtURL+"/roots/0")
		if err == nil {
			if _, err2 := fetchOK(client, p.DirectoryURL); err2 == nil {
				if err := os.WriteFile(p.RootFile, root, 0o644); err != nil {
					p.Stop()
					return nil, err
				}
				return p, nil
			}
		}
		if time.Now().After(deadline) {
			p.Stop()
			return nil, fmt.Errorf("pebble not ready after 20s: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func fetchOK(c *http.Client, url string) ([]byte, error) {
	resp, err := c.Get(url)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != 200 {
		return nil, fmt.Errorf("%s: %s", url, resp.Status)
	}
	return b, nil
}

func (p *pebble) Stop() {
	if p == nil || p.cmd == nil || p.cmd.Process == nil {
		return
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(3 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
	log.Printf("pebble stopped")
}
