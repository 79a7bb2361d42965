// Shared by the JavaScript and browser tests: a test that skips adds a line naming itself and
// why to the file $LIBATIONS_SKIP_LOG names, so scripts/test can count every skip in one place
// (cargo's summary cannot tell a skipped Rust test from a passed one).
import { appendFileSync } from "node:fs";

export function recordSkip(t, reason) {
  const log = process.env.LIBATIONS_SKIP_LOG;
  if (log) appendFileSync(log, `node ${t?.name ?? "(unnamed test)"}: ${reason}\n`);
}
