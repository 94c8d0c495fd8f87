// Measures the per-line token costs behind the default summary budget (src/transcript/rendering/budget.ts) on a folder of
// transcripts: extracts each transcript's sections, renders every line of each section alone and averages its cost.
// Usage: node scripts/build.mjs && node scripts/budget-constants.mjs <dir> [files...]
import { readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const dist = join(dirname(fileURLToPath(import.meta.url)), "..", "dist", "src");
const load = (p) => import(pathToFileURL(join(dist, p)).href);
const { parseTranscriptFile } = await load("transcript/formats/parse.js");
const { extractSections } = await load("transcript/extraction/extract.js");
const { renderSections } = await load("transcript/rendering/render.js");
const { emptySections } = await load("transcript/extraction/merge.js");

const [dir, ...only] = process.argv.slice(2);
if (!dir) {
  console.error("usage: node scripts/budget-constants.mjs <dir> [files...]");
  process.exit(2);
}
const files =
  only.length > 0 ? only : readdirSync(dir).filter((f) => /\.(md|jsonl|traj|json)$/.test(f) && f !== "probes.json");
/** Tokens of one section's lines rendered alone under an unlimited budget, less the empty summary's cost. */
const empty = renderSections(emptySections(), 1e9).tokens;
const sums = { files: [0, 0], failures: [0, 0], constraints: [0, 0], lines: [0, 0], base: [0, 0] };
for (const f of files) {
  let t;
  try {
    t = parseTranscriptFile(join(dir, f));
  } catch {
    console.error(`skipped ${f}: format not read`);
    continue;
  }
  const s = extractSections(t.turns, { title: t.title, cwd: t.cwd });
  const only = (patch) => renderSections({ ...emptySections(), ...patch }, 1e9).tokens - empty;
  const add = (key, tokens, n) => {
    if (n === 0) return;
    sums[key][0] += tokens / n;
    sums[key][1] += 1;
  };
  add("files", only({ files: s.files }), Object.keys(s.files).length);
  add("failures", only({ failures: s.failures }), s.failures.length);
  add("constraints", only({ constraints: s.constraints }), s.constraints.length);
  const lines = s.decisions.length + s.completed.length + s.blockers.length;
  add("lines", only({ decisions: s.decisions, completed: s.completed, blockers: s.blockers }), lines);
  add("base", empty + only({ intent: s.intent, state: s.state, next: s.next }), 1);
}
const mean = (k) => (sums[k][1] ? Math.round(sums[k][0] / sums[k][1]) : 0);
console.log(
  JSON.stringify(
    {
      transcripts: sums.base[1],
      base: mean("base"),
      per_file: mean("files"),
      per_failure: mean("failures"),
      per_constraint: mean("constraints"),
      per_line: mean("lines"),
    },
    null,
    2,
  ),
);
