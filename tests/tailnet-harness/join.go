package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
)

// runJoined starts only the benchmark node, in this process, on the tailnet of
// a harness that is already running (its control URL and auth key), and serves
// -bench-bytes as the -bench-port node does. Why a second process: the main
// harness's own bench node shares one Go runtime with the load client, so its
// requests cross no process boundary; a server under test always does. This
// node is a peer that pays what ours pays (its own process, its own runtime),
// and prints READY bench=… bench_tls=… like the main harness.
func runJoined(controlURL, keyFile, name string, port, tlsPort, size int, verbose bool) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if port <= 0 {
		return fmt.Errorf("-join-control needs -bench-port")
	}
	key, err := os.ReadFile(keyFile)
	if err != nil {
		return fmt.Errorf("-join-control needs the harness's -auth-key-file: %w", err)
	}
	dir, err := os.MkdirTemp("", "tailnet-harness-joined-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	opts := nodeOptions{hostname: name, dir: dir, controlURL: controlURL,
		authKey: strings.TrimSpace(string(key)), verbose: verbose}
	node, st, err := startNode(ctx, opts)
	if err != nil {
		return err
	}
	defer node.Close()
	host := strings.TrimSuffix(st.Self.DNSName, ".")
	if err := serveBench(node, host, port, tlsPort, size); err != nil {
		return err
	}
	ready := map[string]string{"bench": fmt.Sprintf("http://%s:%d/", host, port)}
	if tlsPort > 0 {
		ready["bench_tls"] = fmt.Sprintf("https://%s:%d/", host, tlsPort)
	}
	fmt.Fprintln(os.Stdout, readyLine([]string{"bench", "bench_tls"}, ready))
	<-ctx.Done()
	return nil
}
