// CPU time of drafting memory units (what distillation reads from each session's events and prose), for one build,
// over every transcript of a directory: the best of five passes, beside the CPU of a fixed loop in the same process
// (the floor), so builds can be compared on a loaded machine by their ratio to the floor.
// Usage: node scripts/build.mjs && node scripts/draft-cpu.mjs <transcripts dir> [<checkout with a dist/ build>]
import { readdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const [dir, rootArg] = process.argv.slice(2);
if (!dir) throw new Error("usage: draft-cpu.mjs <transcripts dir> [<checkout with a dist/ build>]");
const root = resolve(rootArg ?? join(dirname(fileURLToPath(import.meta.url)), ".."));
const { parseTranscriptFile } = await import(join(root, "dist/src/transcript/formats/parse.js"));
const { extractSections } = await import(join(root, "dist/src/transcript/extraction/extract.js"));
const { draftUnits } = await import(join(root, "dist/src/memory/distill.js"));

const PASSES = 5;
const FLOOR_LOOP = 2e8;
const inputs = readdirSync(dir)
  .filter((f) => /\.(md|jsonl|traj)$/.test(f))
  .map((f) => {
    const t = parseTranscriptFile(join(dir, f));
    return { t, sections: extractSections(t.turns, { cwd: t.cwd }) };
  });
const cpuMs = (c) => (c.user + c.system) / 1000;
let best = Infinity;
let drafts = 0;
for (let pass = 0; pass < PASSES; pass++) {
  const start = process.cpuUsage();
  drafts = 0;
  for (const { t, sections } of inputs) drafts += draftUnits("s", t.turns, sections).length;
  best = Math.min(best, cpuMs(process.cpuUsage(start)));
}
const start = process.cpuUsage();
let x = 0;
for (let i = 0; i < FLOOR_LOOP; i++) x += i % 7;
const floor = cpuMs(process.cpuUsage(start));
console.log(
  JSON.stringify({
    root,
    transcripts: inputs.length,
    drafts,
    draft_cpu_ms: Math.round(best),
    floor_cpu_ms: Math.round(floor),
    ratio: Number((best / floor).toFixed(3)),
    checksum: x % 2,
  }),
);
