// Where the development data lives: MEMCARDS_DATA, else ../shared/data beside the repository.
// Only the data suite (`npm run test:data`) reads it; the README's test command never does.
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

export const DATA_DIR = resolve(process.env.MEMCARDS_DATA ?? join(repoRoot, "..", "shared", "data"));
export const TRANSCRIPTS = join(DATA_DIR, "transcripts");

/** A data file's path; a missing one fails the test (with how to point at the data), never skips it. */
export function dataFile(...parts: string[]): string {
  const p = join(DATA_DIR, ...parts);
  if (!existsSync(p)) {
    throw new Error(`development data missing: ${p}. Set MEMCARDS_DATA to the folder that holds transcripts/.`);
  }
  return p;
}

export const transcript = (name: string) => dataFile("transcripts", name);
