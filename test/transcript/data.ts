// The real transcripts of ../shared/data/transcripts (this machine's shared data) and the committed fixtures.
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const SHARED_TRANSCRIPTS = process.env.MEMCARDS_SHARED_TRANSCRIPTS ?? "/work/shared/data/transcripts";
export const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), "..", "fixtures", "transcripts");

/** A shared transcript's path; a missing one fails the test rather than skipping it. */
export function shared(name: string): string {
  const p = join(SHARED_TRANSCRIPTS, name);
  if (!existsSync(p)) throw new Error(`shared transcript missing: ${p} (set MEMCARDS_SHARED_TRANSCRIPTS)`);
  return p;
}

export function fixture(name: string): string {
  return join(FIXTURES, name);
}
