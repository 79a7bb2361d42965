// A real browser over the real tailnet: the pieces household.test.mjs puts together.
//
// tests/tailnet-harness runs the tailnet on 127.0.0.1 (control, DERP, Pebble, two client
// nodes "phone" and "phone2" of two users) and, with -proxy, an HTTP CONNECT proxy per
// client node that dials through that node's tsnet stack (tailnet names and addresses
// only). The real binary joins that tailnet with its own state directory and gets its
// certificate from Pebble. Chromium is started with --proxy-server pointing at a phone's
// proxy, so every request it makes arrives at the app from that phone, and WhoIs names
// its user. Chromium checks the certificate itself against an NSS database holding only
// Pebble's root (in a HOME of its own): no flag that skips certificate checks.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync } from "node:fs";
import { dirname, join } from "node:path";
import { CHROMIUM, LAUNCH_ARGS, PHONE, ROOT, binary, chromium } from "../browser/lib/browser.mjs";

const onPath = (cmd) => spawnSync("sh", ["-c", 'command -v "$0"', cmd]).status === 0;

/** What this test needs and this machine lacks, each with where it comes from. */
export function missingTools() {
  const missing = [];
  if (!onPath("go")) missing.push("go (builds tests/tailnet-harness)");
  if (!onPath("pebble")) missing.push("pebble (Debian package pebble: the ACME test CA)");
  if (!onPath("certutil")) missing.push("certutil (Debian package libnss3-tools: Chromium's trust store)");
  if (!existsSync(CHROMIUM)) missing.push(`chromium (${CHROMIUM}; CHROME_PATH names another)`);
  return missing;
}

/** Lines of a child's output as they come, for waiting on one. */
function lines(stream, onLine) {
  let rest = "";
  stream.setEncoding("utf8");
  stream.on("data", (chunk) => {
    rest += chunk;
    let i;
    while ((i = rest.indexOf("\n")) >= 0) {
      onLine(rest.slice(0, i));
      rest = rest.slice(i + 1);
    }
  });
}

/** Keeps the last `max` lines of a child's log, for failure messages. */
function tail(max = 200) {
  const kept = [];
  return {
    push(line) { kept.push(line); if (kept.length > max) kept.shift(); },
    text: () => kept.join("\n"),
  };
}

/** Resolves with the first line `match`es, or rejects when the child exits or time is up. */
function waitLine(child, stream, match, timeout, what, log) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what}: nothing after ${timeout / 1000}s:\n${log.text()}`)), timeout);
    child.once("exit", (code) => { clearTimeout(timer); reject(new Error(`${what} exited with ${code}:\n${log.text()}`)); });
    lines(stream, (line) => {
      log.push(line);
      const m = match(line);
      if (m) { clearTimeout(timer); resolve(m); }
    });
  });
}

async function stopChild(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
  await exited;
  clearTimeout(timer);
}

/**
 * Builds and starts the harness with Pebble and the proxies (plus `extra` flags) in `dir`;
 * resolves once it prints READY. Built where tests/tailnet.rs builds it (cargo's
 * CARGO_TARGET_TMPDIR), so one build serves both.
 */
export async function startHarness(dir, extra = []) {
  const bin = join(ROOT, "target/tmp/tailnet-harness");
  mkdirSync(dirname(bin), { recursive: true });
  const built = spawnSync("bash", [join(ROOT, "tests/tailnet-harness/build"), dirname(bin)], { encoding: "utf8" });
  if (built.status !== 0) throw new Error(`tests/tailnet-harness/build failed:\n${built.stderr}`);
  const authKey = join(dir, "authkey");
  const child = spawn(bin, ["-pebble", "-files-dir", join(dir, "files"), "-auth-key-file", authKey, "-proxy", ...extra], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, TS_NO_LOGS_NO_SUPPORT: "true" },
  });
  const log = tail();
  lines(child.stderr, (line) => log.push(line));
  const ready = await waitLine(child, child.stdout, (l) => l.startsWith("READY ") && l, 120_000, "tailnet-harness", log);
  child.removeAllListeners("exit");
  const fields = Object.fromEntries(ready.split(" ").slice(1).map((kv) => kv.split(/=(.*)/s).slice(0, 2)));
  const api = fields.harness;
  return {
    fields,
    authKey,
    log: log.text,
    /** One request over the tailnet from client node `from`, as the harness's /fetch answers it. */
    async fetch(url, from = "phone") {
      const r = await fetch(`${api}/fetch?${new URLSearchParams({ url, from })}`, { signal: AbortSignal.timeout(60_000) });
      const v = await r.json();
      if (!v.ok) throw new Error(`${from}: ${url}: ${v.error}`);
      return v;
    },
    /** Grants these app capabilities to everyone on the tailnet (the policy's grants). */
    async grant(caps) {
      const r = await fetch(`${api}/control/app-caps`, { method: "POST", body: JSON.stringify(caps) });
      if (!r.ok) throw new Error(`granting ${JSON.stringify(caps)}: ${r.status} ${await r.text()}`);
    },
    stop: () => stopChild(child),
  };
}

/**
 * Starts the real binary as the node `libations` on the harness's tailnet with a household
 * in `stateDir`; resolves with its https:// address once it serves. Tailscale's variables
 * go in at exec: the Go runtime inside reads the environment before main.
 */
export async function startApp(h, stateDir) {
  const env = {
    ...process.env,
    TS_DEBUG_ACME_DIRECTORY_URL: h.fields.pebble_dir,
    SSL_CERT_FILE: h.fields.pebble_tls_ca,
    TS_NO_LOGS_NO_SUPPORT: "true",
  };
  for (const name of ["TS_AUTHKEY", "CREDENTIALS_DIRECTORY", "RUST_LOG"]) delete env[name];
  // Through loopback-dns, so that the node's DNS queries stay on 127.0.0.1 (it says why).
  const child = spawn(join(ROOT, "tests/tailnet-harness/loopback-dns"), [binary(),
    "--control-url", h.fields.control, "--state-dir", stateDir, "--auth-key-file", h.authKey,
    "--log-level", "info,tailscale=warn",
  ], { stdio: ["ignore", "ignore", "pipe"], env });
  const log = tail();
  const m = await waitLine(child, child.stderr, (l) => /serving on (https:\/\/\S+?)\/? /.exec(l), 120_000, "libations", log);
  child.removeAllListeners("exit");
  return { base: m[1], url: (path) => m[1] + path, log: log.text, stop: () => stopChild(child) };
}

/**
 * A HOME for Chromium whose NSS database (~/.pki/nssdb, where Chromium on Linux reads
 * locally added roots) trusts `rootPem` to issue server certificates.
 */
export function trustingHome(dir, rootPem) {
  const home = join(dir, "home-trusting");
  const db = join(home, ".pki/nssdb");
  mkdirSync(db, { recursive: true });
  for (const args of [["-N", "--empty-password"], ["-A", "-t", "C,,", "-n", "Pebble test root", "-i", rootPem]]) {
    const r = spawnSync("certutil", ["-d", "sql:" + db, ...args], { encoding: "utf8" });
    if (r.status !== 0) throw new Error(`certutil ${args.join(" ")}: ${r.stderr}`);
  }
  return home;
}

/**
 * A phone-sized Chromium of its own (its own process and fresh --user-data-dir) whose
 * every request goes through `proxy`, i.e. from that client node over the tailnet.
 */
export async function openBrowser(dir, name, { proxy, home }) {
  const profile = mkdtempSync(join(dir, `profile-${name}-`));
  return chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [...LAUNCH_ARGS, `--proxy-server=http://${proxy}`],
    env: { ...process.env, HOME: home },
    ...PHONE,
    colorScheme: "light",
  });
}
