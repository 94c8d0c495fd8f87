// Draws the turns of the segmentation set from the shared transcripts, deterministically (evenly spaced),
// as the segmenter sees them: prose only, cut at a sentence end after about 700 characters.
// Usage: node scripts/sample-segment-turns.mjs <transcripts dir> > test/fixtures/segment/unlabelled.jsonl
import { readdirSync } from "node:fs";
import { join } from "node:path";

import { conversational, prose } from "../dist/src/transcript/extraction/extract.js";
import { parseTranscriptFile } from "../dist/src/transcript/formats/parse.js";

const dir = process.argv[2];
if (!dir) throw new Error("usage: sample-segment-turns.mjs <transcripts dir>");
const PER_SESSION = { user: 12, assistant: 14 };
const PER_TRAJ = { user: 1, assistant: 4 };

function cut(text, max = 700) {
  const one = prose(text)
    .replace(/[ \t]+/g, " ")
    .replace(/\n{2,}/g, "\n")
    .trim();
  if (one.length <= max) return one;
  const end = one.slice(max).search(/[.!?](\s|$)/);
  return end < 0 || end > 300 ? one.slice(0, max) : one.slice(0, max + end + 1);
}

function spread(list, n) {
  if (list.length <= n) return list;
  return Array.from({ length: n }, (_, i) => list[Math.floor((i * list.length) / n)]);
}

for (const file of readdirSync(dir).sort()) {
  if (file.endsWith(".json")) continue;
  const t = parseTranscriptFile(join(dir, file));
  const quota = file.endsWith(".traj") ? PER_TRAJ : PER_SESSION;
  for (const role of ["user", "assistant"]) {
    const turns = t.turns
      .filter((x) => conversational(x) && x.role === role)
      .map((x) => ({ turn: x.id, text: cut(x.text) }))
      .filter((x) => x.text.length >= 15);
    for (const x of spread(turns, quota[role])) {
      process.stdout.write(`${JSON.stringify({ source: file, turn: x.turn, role, text: x.text })}\n`);
    }
  }
}
