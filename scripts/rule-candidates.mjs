// Lists the sentences a person typed in every session of a transcripts folder, one JSON line each, for labelling
// cold (rule / request / answer / problem / chat / pasted / harness): {id, session, split, turn, sentence, context,
// sessions, stratum, weight}.
//
// What is listed (run `node scripts/build.mjs` first; the parser and the sentence splitter are the product's):
// 1. Every user turn the parser calls a message (not a subagent's), injected blocks left out and a harness's
//    standing instructions kept (human.ts `humanPart` with keepHarness), fenced code left out, split into sentences
//    (human-classes.ts `ownSentences`). A turn that repeats the agent's previous message (human.ts `echoesAgent`:
//    aider's architect handing its plan to the editor) is left out whole.
// 2. The mechanical test of "plainly not the person's words" (`pastedReason`), one reason per sentence left out:
//    - `code`: a line of code or a log line (human-classes.ts `codeLine`: a statement's opening, a call or
//      assignment with at most four words of prose around it, a timestamp, a log level, a stack frame, a prompt; a
//      markup tag alone on its line, a code comment, a line ending in `{`, `}` or `+`, a line of
//      at most six words ending in `;`, an HTTP header);
//    - `trace`: a traceback's lines (`Traceback (most recent call last)`, `File "…", line N`, `SomeError: …`
//      opening the line, `^^^^` markers);
//    - `symbols`: fewer than half of the non-space characters are letters, of any script (tables of numbers,
//      hashes, diffs);
//    - `path`: the line is only a path, a file name or a URL;
//    - `dump`: the line opens as a diff or a file dump (`+++`, `---`, `@@`, `diff --git`, `index abc..def`) or
//      stands inside an indented block of four or more lines of four-space indentation.
//    The counts of each reason are written to the sampling record.
// 3. A sentence said the same way (lower case, whitespace and digits collapsed) in several sessions — a harness's
//    template, SWE-agent's first turn — is listed once, at its first session in name order, with `sessions` listing
//    every session it recurs in.
// 4. When more than `MAX` sentences are left, every one the current selection or the fitted models would call a rule
//    is kept (stratum `rule-like`: User Constraints keeps it, or it has the rule shape, or it stands in a turn classed a
//    standing instruction and the instruction-sentence model gives it its threshold), and a seeded random sample
//    (mulberry32, `SEED`) of the others fills the list to `MAX` (stratum `sampled`); `weight` is how many sentences
//    each one stands for (1 for `rule-like`; for `sampled`, its split's others over its split's sampled), so that
//    figures can be reweighted to all sentences.
//    The record goes to `sampling.json` beside the output.
// 5. A secret in a sentence or its context (a token, a key, a JWT) is redacted as the product redacts it
//    (src/text/redact.ts), so that the list can be committed.
//
// Usage: node scripts/rule-candidates.mjs <transcripts dir> <split.json> <out dir> [max]
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

import { redact } from "../dist/src/text/redact.js";
import { echoesAgent, humanPart } from "../dist/src/transcript/extraction/human.js";
import {
  classifyTurn,
  codeLine,
  logistic,
  standingInstructions,
  turnSentences,
} from "../dist/src/transcript/extraction/human-classes.js";
import { parseTranscriptFile } from "../dist/src/transcript/formats/parse.js";

const SEED = 20261128;
const CONTEXT_CHARS = 600;
const [dir, splitPath, out, maxArg] = process.argv.slice(2);
if (!dir || !splitPath || !out)
  throw new Error("usage: rule-candidates.mjs <transcripts dir> <split.json> <out dir> [max]");
const MAX = Number(maxArg ?? 700);
const validation = new Set(JSON.parse(readFileSync(splitPath, "utf8")).validation);
const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const weights = JSON.parse(
  readFileSync(join(root, "dist", "src", "transcript", "extraction", "human-weights.json"), "utf8"),
);

const TRACE =
  /^(?:Traceback \(most recent call last\)|File "[^"]+", line \d+|[A-Z]\w*(?:Error|Exception|Warning):\s|\s*\^{3,})/;
const PATH_ONLY = /^(?:[@`'"]?)(?:https?:\/\/\S+|[\w.~-]*[/\\][\w./\\-]*|[\w-]+\.[a-z]{1,5})(?:[`'"]?)[.:]?$/i;
const DUMP = /^(?:\+\+\+ |--- |@@ |diff --git |index [0-9a-f]{6,}\.\.[0-9a-f]{6,})/;
/** A line of markup or source: a tag alone on its line, a code comment, a line ending in code punctuation, a header. */
const SOURCE_LINE =
  /^\s*(?:<\/?[\w:-]+[^>]*>.*<\/[\w:-]+>|<\/?[\w:-]+[^>]*\/?>|\/\/|\/\*|\*\/)|[{}+]\s*$|^(?:\S+\s+){0,5}\S*;\s*$|^[A-Z][a-z]+(?:-[A-Z][a-z]+)+:\s/;

/** Why a sentence is plainly not the person's words, or undefined when it may be. */
function pastedReason(sentence, indentedBlock) {
  if (indentedBlock) return "dump";
  if (DUMP.test(sentence)) return "dump";
  if (TRACE.test(sentence)) return "trace";
  if (codeLine(sentence) || SOURCE_LINE.test(sentence)) return "code";
  if (PATH_ONLY.test(sentence.trim())) return "path";
  const chars = sentence.replace(/\s/g, "");
  const letters = (chars.match(/\p{L}/gu) ?? []).length;
  if (chars.length > 0 && letters < 0.5 * chars.length) return "symbols";
  return undefined;
}

/** Lines of `text` inside a run of four or more lines indented by four spaces or a tab (a pasted file or log). */
function indentedLines(text) {
  const lines = text.split("\n");
  const inBlock = new Set();
  let start = -1;
  for (let i = 0; i <= lines.length; i++) {
    const ind = i < lines.length && /^(?: {4}|\t)\S/.test(lines[i]);
    if (ind && start < 0) start = i;
    if (!ind && start >= 0) {
      if (i - start >= 4) for (let j = start; j < i; j++) inBlock.add(lines[j].trim());
      start = -1;
    }
  }
  return inBlock;
}

/** The turn's text cut to about `CONTEXT_CHARS` characters around the sentence. */
function contextOf(text, sentence) {
  const flat = text.replace(/\s+/g, " ").trim();
  if (flat.length <= CONTEXT_CHARS) return flat;
  const at = Math.max(0, flat.indexOf(sentence.replace(/\s+/g, " ").trim()));
  const from = Math.max(0, Math.min(at - (CONTEXT_CHARS - sentence.length) / 2, flat.length - CONTEXT_CHARS));
  const start = Math.floor(from);
  const end = Math.min(flat.length, Math.max(start + CONTEXT_CHARS, at + sentence.length));
  return `${start > 0 ? "… " : ""}${flat.slice(start, end)}${end < flat.length ? " …" : ""}`;
}

const keyOf = (s) => s.toLowerCase().replace(/\d+/g, "#").replace(/\s+/g, " ").trim();

function mulberry32(a) {
  return () => {
    a |= 0;
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const left = { code: 0, trace: 0, symbols: 0, path: 0, dump: 0, echo_turn: 0, repeated: 0 };
const byKey = new Map();
const files = readdirSync(dir)
  .filter((f) => !f.endsWith("probes.json"))
  .sort();
for (const session of files) {
  const turns = parseTranscriptFile(join(dir, session)).turns;
  let previous;
  for (const t of turns) {
    if (t.role !== "user") {
      if (t.role === "assistant" && t.kind === "message") previous = t.text;
      continue;
    }
    if (t.kind !== "message" || t.sidechain) continue;
    const spoken = humanPart(t.text, { keepHarness: true }).text;
    if (!spoken.trim()) continue;
    if (echoesAgent(spoken, previous)) {
      left.echo_turn++;
      continue;
    }
    const indented = indentedLines(spoken);
    const kept = standingInstructions([{ id: t.id, role: t.role, kind: t.kind, text: t.text }]).map((l) => l.text);
    const turnClass = classifyTurn(t.text, t.kind);
    for (const { sentence, feats } of turnSentences(t.text)) {
      const reason = pastedReason(sentence, indented.has(sentence.trim()));
      if (reason) {
        left[reason]++;
        continue;
      }
      const key = keyOf(sentence);
      const seen = byKey.get(key);
      if (seen) {
        if (!seen.sessions.includes(session)) seen.sessions.push(session);
        left.repeated++;
        continue;
      }
      const why = [];
      if (kept.some((l) => l.includes(sentence))) why.push("kept");
      if (feats.has("g:ruleshape")) why.push("shape");
      // The instruction-sentence model picks sentences only inside a turn classed a standing instruction.
      if (turnClass === "instruction" && logistic(weights.sentence, feats) >= weights.sentence_threshold)
        why.push("instruction_turn_sentence_model");
      byKey.set(key, {
        session,
        split: validation.has(session) ? "validation" : "dev",
        turn: t.index,
        sentence,
        context: contextOf(spoken, sentence),
        sessions: [session],
        why,
      });
    }
  }
}

const all = [...byKey.values()];
const ruleLike = all.filter((x) => x.why.length > 0);
const others = all.filter((x) => x.why.length === 0);
const rand = mulberry32(SEED);
const room = Math.max(0, MAX - ruleLike.length);
const shuffled = others.map((x) => [rand(), x]).sort((a, b) => a[0] - b[0]);
const sampled = all.length > MAX ? shuffled.slice(0, room).map(([, x]) => x) : others;
/** How many sentences of its split each sampled one stands for. */
const otherWeight = (split) => {
  const n = sampled.filter((x) => x.split === split).length;
  return n ? others.filter((x) => x.split === split).length / n : 1;
};
const chosen = new Set([...ruleLike, ...sampled]);
const listed = all.filter((x) => chosen.has(x));
mkdirSync(out, { recursive: true });
const lines = listed.map((x, i) =>
  JSON.stringify({
    id: `s${String(i + 1).padStart(4, "0")}`,
    session: x.session,
    split: x.split,
    turn: x.turn,
    sentence: redact(x.sentence),
    context: redact(x.context),
    sessions: x.sessions,
    stratum: x.why.length > 0 ? "rule-like" : "sampled",
    rule_like_by: x.why,
    weight: x.why.length > 0 ? 1 : Math.round(otherWeight(x.split) * 1000) / 1000,
  }),
);
writeFileSync(join(out, "candidates.jsonl"), `${lines.join("\n")}\n`);
const count = (xs, split) => xs.filter((x) => x.split === split).length;
const record = {
  seed: SEED,
  max: MAX,
  sentences_after_tests: all.length,
  left_out: left,
  rule_like: { dev: count(ruleLike, "dev"), validation: count(ruleLike, "validation") },
  others: { dev: count(others, "dev"), validation: count(others, "validation") },
  sampled_others: { dev: count(sampled, "dev"), validation: count(sampled, "validation") },
  other_weight: {
    dev: Math.round(otherWeight("dev") * 1000) / 1000,
    validation: Math.round(otherWeight("validation") * 1000) / 1000,
  },
  listed: listed.length,
};
writeFileSync(join(out, "sampling.json"), `${JSON.stringify(record, null, 2)}\n`);
process.stdout.write(`${JSON.stringify(record, null, 2)}\n`);
