// Settles the two labellers' gold files of each session into one (bench/summary/adjudicate.ts has the rules),
// copies both raw files beside it, and reports agreement: fact-level F1 per kind and Cohen's kappa on the human-turn
// classes, per session and pooled. A session only one labeller has done yet is copied as it is (one labeller).
// Usage (after `node scripts/build.mjs`):
//   node scripts/adjudicate-gold.mjs <labels dir: one folder per labeller, g1a g1b …> <transcripts dir> \
//     <turn dumps dir> <out dir>   (out: <session>.json, raw/<labeller>/<session>.json, agreement.json, agreement.md)
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

import { adjudicate, cohenKappa, readLabellerFile } from "../dist/bench/summary/adjudicate.js";

const [labels, transcripts, dumps, out] = process.argv.slice(2);
if (!labels || !transcripts || !dumps || !out)
  throw new Error("usage: adjudicate-gold.mjs <labels dir> <transcripts dir> <turn dumps dir> <out dir>");

const labellers = readdirSync(labels, { withFileTypes: true })
  .filter((e) => e.isDirectory() && /^g\d+[a-z]$/.test(e.name))
  .map((e) => e.name)
  .sort();
/** session → [labeller, path][] in labeller order. */
const bySession = new Map();
for (const l of labellers)
  for (const f of readdirSync(join(labels, l))
    .filter((n) => n.endsWith(".json"))
    .sort()) {
    const session = f.slice(0, -".json".length);
    if (!bySession.has(session)) bySession.set(session, []);
    bySession.get(session).push([l, join(labels, l, f)]);
  }

mkdirSync(out, { recursive: true });
const report = { sessions: [], pooled: {} };
const allTurnPairs = [];
const kindTotals = {};
const invalid = [];
for (const [session, files] of [...bySession].sort()) {
  const parsed = [];
  for (const [l, p] of files) {
    try {
      parsed.push([l, p, readLabellerFile(p)]);
    } catch (err) {
      invalid.push(`${l}/${session}: ${String(err.message).slice(0, 160)}`);
    }
  }
  if (parsed.length === 0) continue;
  for (const [l, p] of parsed) {
    mkdirSync(join(out, "raw", l), { recursive: true });
    copyFileSync(p, join(out, "raw", l, `${session}.json`));
  }
  const tpath = join(transcripts, session);
  if (!existsSync(tpath)) {
    invalid.push(`${session}: no transcript`);
    continue;
  }
  const transcript = readFileSync(tpath, "utf8");
  if (parsed.length === 1) {
    const [l, , g] = parsed[0];
    writeFileSync(join(out, `${session}.json`), `${JSON.stringify({ ...g, labellers: [l] }, null, 2)}\n`);
    report.sessions.push({ session, labellers: [l] });
    continue;
  }
  const dump = join(dumps, `${session}.user-turns.jsonl`);
  const texts = new Map(
    existsSync(dump)
      ? readFileSync(dump, "utf8")
          .split("\n")
          .filter(Boolean)
          .map((l) => JSON.parse(l))
          .map((t) => [t.index, t.text])
      : [],
  );
  const [[, , a], [, , b]] = parsed;
  const r = adjudicate(a, b, transcript, (i) => texts.get(i));
  writeFileSync(join(out, `${session}.json`), `${JSON.stringify(r.gold, null, 2)}\n`);
  allTurnPairs.push(...r.turnPairs);
  for (const [k, v] of Object.entries(r.agreement.facts)) {
    const t = (kindTotals[k] ??= { a: 0, b: 0, pairs: 0 });
    t.a += v.a;
    t.b += v.b;
    t.pairs += v.pairs;
  }
  report.sessions.push({
    session,
    labellers: r.gold.labellers,
    facts: r.gold.facts.length,
    single: r.gold.facts.filter((f) => f.single).length,
    dropped: r.dropped,
    agreement: r.agreement,
  });
}
const f1 = (t) => (t.a + t.b > 0 ? Math.round(((2 * t.pairs) / (t.a + t.b)) * 1000) / 1000 : null);
const all = Object.values(kindTotals).reduce((s, t) => ({ a: s.a + t.a, b: s.b + t.b, pairs: s.pairs + t.pairs }), {
  a: 0,
  b: 0,
  pairs: 0,
});
report.pooled = {
  facts_f1: f1(all),
  facts_by_kind: Object.fromEntries(Object.entries(kindTotals).map(([k, t]) => [k, { ...t, f1: f1(t) }])),
  turns: allTurnPairs.length,
  turns_agree: allTurnPairs.filter(([x, y]) => x === y).length,
  kappa: cohenKappa(allTurnPairs),
};
report.invalid = invalid;
writeFileSync(join(out, "agreement.json"), `${JSON.stringify(report, null, 2)}\n`);

const fmt = (x) => (x === null || x === undefined ? "–" : x.toFixed(2));
const md = [
  `Agreement between labellers (${report.sessions.filter((s) => s.agreement).length} sessions with two labellers, ${report.sessions.filter((s) => !s.agreement).length} with one)`,
  "",
  `Facts, F1 between the two labellers: ${fmt(report.pooled.facts_f1)} over all kinds; ${Object.entries(
    report.pooled.facts_by_kind,
  )
    .map(([k, t]) => `${k} ${fmt(t.f1)} (${t.a}/${t.b})`)
    .join(", ")}`,
  `Human-turn classes: Cohen's kappa ${fmt(report.pooled.kappa)} over ${report.pooled.turns} turns (${report.pooled.turns_agree} agree)`,
  "",
  "| session | labellers | facts kept (single) | dropped | fact F1 | turn kappa |",
  "|---|---|---:|---:|---:|---:|",
  ...report.sessions.map((s) =>
    s.agreement
      ? `| ${s.session} | ${s.labellers.join("+")} | ${s.facts} (${s.single}) | ${s.dropped.length} | ${fmt(s.agreement.facts_all.f1)} | ${fmt(s.agreement.turns.kappa)} |`
      : `| ${s.session} | ${s.labellers.join("+")} | – | – | – | – |`,
  ),
  ...(invalid.length ? ["", `Not read: ${invalid.join("; ")}`] : []),
].join("\n");
writeFileSync(join(out, "agreement.md"), `${md}\n`);
process.stdout.write(`${md}\n`);
