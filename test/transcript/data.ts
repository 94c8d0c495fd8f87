// The committed transcript fixtures (test/fixtures/transcripts); real sessions are read only by the data suite.
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), "..", "fixtures", "transcripts");

export function fixture(name: string): string {
  return join(FIXTURES, name);
}
