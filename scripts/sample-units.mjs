// Draws a seeded random sample of the memory units `memcards distill` stores for the development transcripts (the
// ones not held out for validation in test/fixtures/summary/gold/split.json), each with the text of its evidence
// turn, for two labellers to judge cold (test/fixtures/memory/units-labelled/GUIDE.md).
// Usage: node scripts/build.mjs && node scripts/sample-units.mjs <transcripts dir> <out.jsonl> [--n 100] [--seed 2027]
//        [--all <every-unit.jsonl>] [--validation]   (--validation: the held-out transcripts instead, for reporting only)
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

import { archiveText } from "../dist/src/memory/distill.js";
import { parseTranscriptFile } from "../dist/src/transcript/formats/parse.js";

const here = dirname(fileURLToPath(import.meta.url));
const cli = join(here, "..", "dist", "cli.js");
const args = process.argv.slice(2);
const flag = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? args.splice(i, 2)[1] : fallback;
};
const n = Number(flag("--n", "100"));
const seed = Number(flag("--seed", "2027"));
const allOut = flag("--all", undefined);
const validation = args.includes("--validation");
if (validation) args.splice(args.indexOf("--validation"), 1);
const [dir, out] = args;
if (!dir || !out) throw new Error("usage: sample-units.mjs <transcripts dir> <out.jsonl> [--n N] [--seed S] [--all F]");

const split = JSON.parse(readFileSync(join(here, "..", "test/fixtures/summary/gold/split.json"), "utf8"));
const held = new Set(split.validation);
const files = readdirSync(dir)
  .filter((f) => /\.(md|jsonl|traj)$/.test(f) && held.has(f) === validation)
  .sort();

/** The evidence turn as the archive keeps it, cut to about 2,400 characters around the quote. */
function turnWindow(turn, quote) {
  const text = archiveText(turn);
  const max = 2400;
  if (text.length <= max) return text;
  const probe = (quote ?? "").slice(0, 60);
  const at = probe ? text.indexOf(probe) : -1;
  const start = at < 0 ? 0 : Math.max(0, Math.min(at - 800, text.length - max));
  return `${start > 0 ? "… " : ""}${text.slice(start, start + max)}${start + max < text.length ? " …" : ""}`;
}

const units = [];
for (const file of files) {
  const root = mkdtempSync(join(tmpdir(), "units-sample-"));
  try {
    const path = resolve(dir, file);
    const base = ["--root", root, "--embedder", "offline", "--log-level", "error"];
    execFileSync("node", [cli, ...base, "distill", path, "--json"], { stdio: ["ignore", "ignore", "inherit"] });
    const exported = execFileSync("node", [cli, ...base, "export", "--all"], { maxBuffer: 1 << 28 }).toString();
    const turns = new Map(parseTranscriptFile(path).turns.map((t) => [t.id, t]));
    for (const line of exported.split("\n").filter(Boolean)) {
      const u = JSON.parse(line);
      const ev = u.evidence[0] ?? {};
      const t = turns.get(ev.turn);
      units.push({
        kind: u.category,
        text: u.text,
        status: u.status,
        files: u.files,
        record: u.record,
        transcript: file,
        evidence_turn: ev.turn ?? null,
        evidence_role: t?.role ?? null,
        evidence_turn_text: t ? turnWindow(t, ev.quote) : null,
      });
    }
    process.stderr.write(`${file}: ${units.length} units so far\n`);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

// mulberry32: a small seeded generator, so the same seed draws the same sample.
function random(s) {
  let a = s >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const rnd = random(seed);
const order = units.map((u, i) => ({ u, k: rnd(), i }));
order.sort((a, b) => a.k - b.k || a.i - b.i);
const sample = order.slice(0, n).map(({ u }, i) => ({ n: i + 1, ...u }));
writeFileSync(out, sample.map((u) => JSON.stringify(u)).join("\n") + "\n");
if (allOut) writeFileSync(allOut, units.map((u) => JSON.stringify(u)).join("\n") + "\n");
process.stderr.write(
  `${units.length} units from ${files.length} transcripts; ${sample.length} drawn (seed ${seed}) to ${out}\n`,
);
