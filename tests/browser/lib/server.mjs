// Starts the real binary for a test (the browser tests and tests/js/ share this; it needs
// no packages, so the Node tests run before `npm ci`).
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

/** The libations binary: $LIBATIONS_BIN, else the newer of the release and debug builds. */
export function binary() {
  if (process.env.LIBATIONS_BIN) return process.env.LIBATIONS_BIN;
  const candidates = ["target/release/libations", "target/debug/libations"]
    .map((p) => ROOT + p)
    .filter((p) => existsSync(p))
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
  if (candidates.length === 0) throw new Error("no libations binary: run `cargo build --release` first");
  return candidates[0];
}

// The folders `tempDir` made, removed by one handler when the process exits (a listener
// per folder passed Node's limit of 10 and printed a leak warning).
const made = [];
process.once("exit", () => { for (const dir of made) rmSync(dir, { recursive: true, force: true }); });

/**
 * A new folder in the system's temporary directory, named `prefix` and a random part,
 * removed when this test file's process exits (a failed test too): the browser and
 * JavaScript test files each run in a process of their own.
 */
export function tempDir(prefix) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

/**
 * Starts `libations --local --addr 127.0.0.1:0` (or `addr`) with `args`; resolves once it
 * logs the URL it serves.
 */
export function startServer(args = [], { addr = "127.0.0.1:0" } = {}) {
  const child = spawn(binary(), ["--local", "--addr", addr, "--log-level", "warn,libations=info", ...args], {
    stdio: ["ignore", "ignore", "pipe"],
    env: { ...process.env, RUST_LOG: "" },
  });
  let log = "";
  let started = false;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error("libations did not start:\n" + log));
    }, 60_000);
    exited.then((code) => {
      clearTimeout(timer);
      if (!started) reject(new Error(`libations exited with ${code}:\n${log}`));
    });
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk) => {
      log += chunk;
      const m = /serving on (http:\/\/127\.0\.0\.1:\d+)\//.exec(log);
      if (m && !started) {
        started = true;
        clearTimeout(timer);
        resolve({
          base: m[1],
          url: (path) => m[1] + path,
          log: () => log,
          stop: async () => {
            if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
            await exited;
          },
        });
      }
    });
  });
}
