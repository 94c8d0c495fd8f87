// In every test worker: the per-user folder (trusted stores, the hook worker's socket and token) is a temporary one
// unless the run names its own, so a test that opens a store without its own MEMCARDS_HOME, in-process or in a child
// that inherits the environment, never writes into the real ~/.memcards of whoever runs the suite.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

if (!process.env.MEMCARDS_HOME) process.env.MEMCARDS_HOME = mkdtempSync(join(tmpdir(), "memcards-user-"));
