// In every test worker: the per-user folder (trusted stores, the hook worker's socket and token) is a temporary one
// unless the run names its own, so a test that opens a store without its own MEMCARDS_HOME, in-process or in a child
// that inherits the environment, never writes into the real ~/.memcards of whoever runs the suite. The folder made
// here is removed after the test file, as `tmpDir`'s are.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { afterAll } from "vitest";

if (!process.env.MEMCARDS_HOME) {
  const made = mkdtempSync(join(tmpdir(), "memcards-user-"));
  process.env.MEMCARDS_HOME = made;
  afterAll(() => {
    // Retries: a child process started by a test (a hook's detached worker) may still be closing files inside.
    rmSync(made, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
    if (process.env.MEMCARDS_HOME === made) delete process.env.MEMCARDS_HOME;
  });
}
