// The parse floor of `memcards eval perf`, run as a process of its own: parses every file the index would read in
// the folder `process.argv[2]` with the parser the index uses, stores nothing, and prints the number of symbols.
// A bundle entry (dist/chunks/parse-floor.js) beside the chunk of perf.ts, so it loads the same parser the CLI does.
import { readFileSync } from "node:fs";

import { createParser } from "../src/repo/parse.js";
import { scanRepo } from "../src/repo/scan.js";

const root = process.argv[2];
if (!root) throw new Error("usage: parse-floor.js <folder>");
const files = scanRepo(root, { useGit: false }).files.flatMap((f) =>
  f.language ? [{ ...f, language: f.language }] : [],
);
const parser = createParser();
await parser.preload([...new Set(files.map((f) => f.language))]);
let n = 0;
for (const f of files)
  n += (await parser.parseFile(f.path, readFileSync(f.absPath, "utf8"), f.language)).symbols.length;
parser.dispose();
process.stdout.write(String(n));
