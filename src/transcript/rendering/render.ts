// Renders the structured sections to markdown within a token budget counted on the markdown itself: every section
// present (a compact page leaves out empty ones), best lines first.
import type { Failure, Sections } from "../../conversation/schema.js";
import { countTokens } from "../../text/tokens.js";
import { failureWeight } from "../events/failures.js";
import { clipWords, FIRM_CUES, wholeSentences } from "./clip.js";

/** An exception's or an error code's name: `TypeError`, `TS2322`, `E999`. */
const ERROR_NAME = /\b[A-Z][\w.]*(?:Error|Exception)\b|\b(?:TS|CS|E|F)\d{3,5}\b/g;

/** An error's message from its name on (`TypeError: …` out of `6:15:26 PM [vite] [console.error] TypeError: …`). */
function errorCore(text: string): string {
  const at = text.search(/\b[A-Z][\w.]*(?:Error|Exception|Failed|Failure)\b\s*:/);
  // A long absolute path by its last two parts: the file is found by them, the rest is the machine's layout.
  return (at > 0 ? text.slice(at) : text).replace(/(?:\/[\w.@-]+){3,}(\/[\w.@-]+\/[\w.@-]+)/g, "…$1");
}

const UUID = /\b([0-9a-f]{8})-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi;

/** A turn as the page names it: a UUID by its first eight hex digits (enough to find it in the transcript, at a
 * fifth of the tokens), any other id whole. */
export const turnRef = (turn: string): string => turn.replace(UUID, "$1");

export const SECTION_TITLES = {
  intent: "Session Intent",
  constraints: "User Constraints",
  files: "Files Modified",
  decisions: "Decisions Made",
  completed: "Completed",
  failures: "Failures",
  metrics: "Metrics",
  state: "Current State",
  blockers: "Blockers / Open Questions",
  next: "Next Steps",
} as const;
export type SectionKey = keyof typeof SECTION_TITLES;
const ORDER = Object.keys(SECTION_TITLES) as SectionKey[];

/** Share of the budget each section may use before leftovers are shared out. */
const SHARE: Record<SectionKey, number> = {
  intent: 0.06,
  constraints: 0.26,
  files: 0.2,
  decisions: 0.08,
  completed: 0.12,
  failures: 0.16,
  metrics: 0.03,
  state: 0.05,
  blockers: 0.02,
  next: 0.02,
};

/**
 * How far a line's full form ranks below the line itself when the budget is shared out: small where the short form
 * cuts a person's or the agent's words (the instruction or the state may be in the part cut), large where the short
 * form keeps what identifies the item (a file's path, an error's message).
 */
const UPGRADE_DROP: Record<SectionKey, number> = {
  intent: 1,
  constraints: 1,
  state: 1,
  next: 1,
  blockers: 1,
  files: 5,
  decisions: 2,
  completed: 2,
  failures: 3,
  metrics: 2,
};

interface Line {
  section: SectionKey;
  /** Position within the section when rendered (chronological or ledger order). */
  order: number;
  priority: number;
  full: string;
  short: string;
}

const clip = clipWords;

/** Adds a line to `out`; the short form is the full one unless given. */
type Push = (section: SectionKey, order: number, priority: number, full: string, short?: string) => void;

/** The goal first; what the person asked along the way ranks with the lines that explain history, later first. */
function intentLines(s: Sections, push: Push): void {
  const nI = s.intent.length;
  s.intent.forEach((f, i) =>
    push(
      "intent",
      i,
      /^(?:asked|answered): /.test(f.text) ? 4 + i / Math.max(1, nI) : 10 - i * 0.1,
      `- ${f.text} (${turnRef(f.turn)})`,
      `- ${clip(f.text, 160)} (${turnRef(f.turn)})`,
    ),
  );
}

/** The person's standing instructions, later first; the short form keeps whole sentences, firm ones first. */
function constraintLines(s: Sections, push: Push): void {
  const nC = s.constraints.length;
  s.constraints.forEach((f, i) =>
    push(
      "constraints",
      i,
      5 + i / Math.max(1, nC),
      `- "${f.text}" (${turnRef(f.turn)})`,
      `- "${wholeSentences(f.text, 220, FIRM_CUES, 0)}" (${turnRef(f.turn)})`,
    ),
  );
}

/**
 * The files with a move as one line: a file whose only changes are arriving by a move from a file the page lists is
 * left out, and the source's line reads `moved to <new>` (a move is one fact, old → new, not two).
 */
function movesAsOne(files: Sections["files"]): [string, Sections["files"][string]][] {
  const entries = Object.entries(files);
  const same = (a: string, b: string) => a === b || a.endsWith(`/${b}`) || b.endsWith(`/${a}`);
  const movedTo = entries.flatMap(([, ops]) => ops.flatMap((o) => /^moved to (\S+)/.exec(o.op)?.[1] ?? []));
  return entries.filter(([path, ops]) => {
    const from = ops.map((o) => /^moved from (\S+)/.exec(o.op)?.[1]);
    const arrived = from.every((f) => f !== undefined && entries.some(([k]) => k !== path && same(k, f)));
    return !(arrived && movedTo.some((t) => same(t, path)));
  });
}

/** One line per file: every change in full; the short line names what was done, not how, so a long ledger fits. */
function fileLines(s: Sections, push: Push): void {
  movesAsOne(s.files).forEach(([path, ops], i) => {
    const all = ops.map((o) => `${o.op} (${turnRef(o.turn)})`).join("; ");
    const last = ops[ops.length - 1]!;
    const verb = clip(last.op.split(":")[0]!, 40);
    const short =
      ops.length > 1
        ? `${ops.length} changes, last ${verb} (${turnRef(last.turn)})`
        : `${verb} (${turnRef(last.turn)})`;
    push("files", i, 6 + Math.min(3, ops.length) / 3, `- \`${path}\` — ${clip(all, 600)}`, `- \`${path}\` — ${short}`);
  });
}

function decisionLines(s: Sections, push: Push): void {
  const nD = s.decisions.length;
  s.decisions.forEach((f, i) =>
    push(
      "decisions",
      i,
      2 + i / Math.max(1, nD),
      `- ${f.text} (${turnRef(f.turn)})`,
      `- ${clip(f.text, 120)} (${turnRef(f.turn)})`,
    ),
  );
}

/** Later work first within a kind: the latest commits say where the work stands. */
function completedLines(s: Sections, push: Push): void {
  const nW = s.completed.length;
  s.completed.forEach((f, i) =>
    push(
      "completed",
      i,
      (f.text.startsWith("commit") ? 5 : f.text.startsWith("done") ? 4 : 3) + i / Math.max(1, nW),
      `- ${f.text} (${turnRef(f.turn)})`,
      `- ${clip(f.text, 110)} (${turnRef(f.turn)})`,
    ),
  );
}

/**
 * One line at position `order` for `fs` (errors behind the work): one entry per message (the same error reported
 * by the person and by the tool is one), most telling first, the rest by the names of their exceptions or codes, so
 * each stays findable in the transcript.
 */
function rollUp(push: Push, fs: Failure[], head: string, order: number, ref: (f: Failure) => string): void {
  if (fs.length === 0) return;
  const ranked = [...fs].sort((a, b) => failureWeight(b) - failureWeight(a));
  const groupsOf = (width: number) => {
    const byCore = new Map<string, Failure[]>();
    for (const f of ranked) {
      const core = clip(errorCore(f.text), width);
      byCore.set(core, [...(byCore.get(core) ?? []), f]);
    }
    return [...byCore].map(([core, same]) => ({ same, text: `${core} (${same.map(ref).join(", ")})` }));
  };
  const list = (chars: number, width: number) => {
    const groups = groupsOf(width);
    let n = 0;
    let len = 0;
    while (n < groups.length && (n === 0 || len + groups[n]!.text.length <= chars)) len += groups[n++]!.text.length + 2;
    const rest = groups.slice(n).flatMap((g) => g.same);
    const named = [...new Set(rest.flatMap((f) => f.text.match(ERROR_NAME) ?? []))].slice(0, 8);
    const more = rest.length > 0 ? `; ${rest.length} more${named.length > 0 ? ` (${named.join(", ")})` : ""}` : "";
    return `- ${head} (${fs.length}): ${groups
      .slice(0, n)
      .map((g) => g.text)
      .join("; ")}${more}`;
  };
  push("failures", order, 1 + failureWeight(ranked[0]!), list(2000, 160), list(640, 80));
}

/**
 * An error still open gets a line of its own; those behind the work (settled by a later clean run, or hit before
 * the latest request and not since) one line each kind, most telling first, so history costs two lines.
 */
function failureLines(s: Sections, push: Push): void {
  const open = s.failures.filter(
    (f) => f.open || (f.open === undefined && !f.resolved && s.failures.every((g) => g.open === undefined)),
  );
  open.forEach((f, i) => {
    const seen = f.count > 1 ? `, ×${f.count}, last ${turnRef(f.last_turn)}` : "";
    const fix = f.remediation ? ` → ${turnRef(f.remediation)}` : "";
    push(
      "failures",
      i,
      1 + failureWeight(f),
      `- [${f.category}] ${f.text} (${turnRef(f.turn)}${seen})${fix}`,
      `- ${clip(f.text, 120)} (${turnRef(f.turn)}${f.count > 1 ? `, ×${f.count}` : ""})`,
    );
  });
  const behind = s.failures.filter((f) => !open.includes(f));
  rollUp(
    push,
    behind.filter((f) => f.resolved),
    "resolved by a later clean run",
    open.length,
    (f) => `${turnRef(f.last_turn)}${f.count > 1 ? ` ×${f.count}` : ""} → ${turnRef(f.resolved!)}`,
  );
  // An error whose message a later run settled is not also listed as left behind.
  const settled = new Set(behind.filter((f) => f.resolved).map((f) => clip(errorCore(f.text), 80)));
  rollUp(
    push,
    behind.filter((f) => !f.resolved && !settled.has(clip(errorCore(f.text), 80))),
    "hit before later work and not seen since",
    open.length + 1,
    (f) => `${turnRef(f.last_turn)}${f.count > 1 ? ` ×${f.count}` : ""}`,
  );
}

/** Each metric's latest value, with its history in the full form; test tallies rank above other counts. */
function metricLines(s: Sections, push: Push): void {
  Object.entries(s.metrics).forEach(([k, m], i) => {
    const hist =
      m.history.length > 1
        ? ` (was ${m.history
            .slice(0, -1)
            .map((h) => h.value)
            .join(" → ")})`
        : "";
    push(
      "metrics",
      i,
      k.startsWith("tests") ? 3 : 1,
      `- ${k}: ${m.value}${hist} (${turnRef(m.turn)})`,
      `- ${k}: ${m.value} (${turnRef(m.turn)})`,
    );
  });
}

/** A Current State line read from events rather than words. */
const EVENT_LINE = /^last (?:runs|commit)\b/;
const EVENT_STATE_PRIORITY = 5.5;

/** Where the work stands, what blocks it and what comes next: ranked above history, in their own order. */
function stateLines(s: Sections, push: Push): void {
  // What the events say (last runs, last commit) ranks below the words that say where the work stands.
  s.state.forEach((f, i) =>
    push(
      "state",
      i,
      EVENT_LINE.test(f.text) ? EVENT_STATE_PRIORITY : 9,
      `${f.text} (${turnRef(f.turn)})`,
      `${clip(f.text, 300)} (${turnRef(f.turn)})`,
    ),
  );
  s.blockers.forEach((f, i) =>
    push("blockers", i, 7 - i * 0.1, `- ${f.text} (${turnRef(f.turn)})`, `- ${clip(f.text, 120)} (${turnRef(f.turn)})`),
  );
  s.next.forEach((f, i) =>
    push("next", i, 8 - i * 0.1, `- ${f.text} (${turnRef(f.turn)})`, `- ${clip(f.text, 120)} (${turnRef(f.turn)})`),
  );
}

/** Every line the page may show, each with its short and full form and its priority, section by section. */
function lines(s: Sections): Line[] {
  const out: Line[] = [];
  const push: Push = (section, order, priority, full, short = full) => {
    out.push({ section, order, priority, full, short });
  };
  for (const step of [
    intentLines,
    constraintLines,
    fileLines,
    decisionLines,
    completedLines,
    failureLines,
    metricLines,
    stateLines,
  ])
    step(s, push);
  return out;
}

export interface Rendered {
  markdown: string;
  tokens: number;
  /** Lines left out for the budget, per section. */
  omitted: Partial<Record<SectionKey, number>>;
}

/**
 * Renders sections within `budget` tokens, counted on the markdown itself: `extra` lines (re-inserted facts) come
 * before any other line, and lines are shortened, then left out, lowest priority first, until the summary fits.
 * `compact` leaves out sections with nothing in them and notes omitted lines once (a session smaller than the full
 * page); a budget the headings would take half of renders compact too.
 */
export function renderSections(
  s: Sections,
  budget: number,
  extra: Partial<Record<SectionKey, string[]>> = {},
  focus?: string,
  compact = false,
): Rendered {
  const all = lines(s);
  // `focus` steers what is kept, like `/compact <focus>`: lines that mention its words come first.
  const words = (focus ?? "")
    .toLowerCase()
    .split(/[^\p{L}\p{N}_./-]+/u)
    .filter((w) => w.length >= 3);
  if (words.length > 0) {
    for (const l of all) if (words.some((w) => l.full.toLowerCase().includes(w))) l.priority += 4;
  }
  const cost = new Map<Line, { short: number; full: number }>();
  const tok = (l: Line) => {
    let c = cost.get(l);
    if (!c) {
      const short = countTokens(l.short) + 1;
      c = { short, full: l.full === l.short ? short : countTokens(l.full) + 1 };
      cost.set(l, c);
    }
    return c;
  };
  const bySection = new Map<SectionKey, Line[]>();
  for (const l of all) (bySection.get(l.section) ?? bySection.set(l.section, []).get(l.section)!).push(l);
  for (const ls of bySection.values()) ls.sort((a, b) => b.priority - a.priority);
  // The page besides its lines: each shown section's heading, and `_None recorded._` under an empty one. When the
  // full page's headings would take half the budget, the page is compact.
  const filled = (key: SectionKey) => (bySection.get(key)?.length ?? 0) > 0 || (extra[key]?.length ?? 0) > 0;
  const frameOf = (dense: boolean) =>
    ORDER.reduce(
      (n, key) =>
        dense && !filled(key)
          ? n
          : n + countTokens(`## ${SECTION_TITLES[key]}\n`) + 1 + (filled(key) ? 0 : countTokens(NONE)),
      0,
    );
  const extraCount = ORDER.reduce((n, key) => n + (extra[key]?.length ?? 0), 0);
  const attempt = (dense: boolean) => {
    const chosen = new Map<Line, "short" | "full">();
    const frame = frameOf(dense);
    const extraCost = ORDER.reduce((n, key) => n + (extra[key] ?? []).reduce((m, x) => m + countTokens(x) + 1, 0), 0);
    let left = Math.max(0, budget - frame - extraCost);
    // Pass 1: each section's short lines up to its share.
    const total = left;
    for (const key of ORDER) {
      let room = Math.floor(total * SHARE[key]);
      for (const l of bySection.get(key) ?? []) {
        const c = tok(l).short;
        if (c > room || c > left) continue;
        chosen.set(l, "short");
        room -= c;
        left -= c;
      }
    }
    // Pass 2: leftovers and upgrades to full lines, by priority across sections. An upgrade ranks below its own
    // line by how much its short form keeps (UPGRADE_DROP): a person's words cut short lose the instruction, a file
    // line keeps its path.
    type Step = { line: Line; full: boolean; priority: number };
    const steps: Step[] = [];
    for (const l of all) {
      if (!chosen.has(l)) steps.push({ line: l, full: false, priority: l.priority });
      if (l.full !== l.short) steps.push({ line: l, full: true, priority: l.priority - UPGRADE_DROP[l.section] });
    }
    steps.sort((x, y) => y.priority - x.priority || Number(x.full) - Number(y.full));
    for (const st of steps) {
      const c = tok(st.line);
      if (!st.full) {
        if (c.short <= left) {
          chosen.set(st.line, "short");
          left -= c.short;
        }
      } else if (chosen.get(st.line) === "short" && c.full > c.short && c.full - c.short <= left) {
        chosen.set(st.line, "full");
        left -= c.full - c.short;
      }
    }
    // Fit: the markdown as rendered is counted; full lines go short, then lines go, lowest priority first; then the
    // re-inserted lines from the last; then empty sections (compact).
    let keptExtra = extraCount;
    let out = page(bySection, chosen, extra, keptExtra, dense, budget);
    let tokens = countTokens(out.markdown);
    while (tokens > budget) {
      let excess = tokens - budget;
      const ranked = [...chosen.keys()].sort((x, y) => x.priority - y.priority);
      if (ranked.length > 0) {
        for (const l of [...ranked.filter((x) => chosen.get(x) === "full"), ...ranked]) {
          if (excess <= 0) break;
          const c = tok(l);
          if (chosen.get(l) === "full") {
            chosen.set(l, "short");
            excess -= c.full - c.short;
          } else if (chosen.has(l)) {
            chosen.delete(l);
            excess -= c.short;
          }
        }
      } else if (keptExtra > 0) keptExtra--;
      else break;
      out = page(bySection, chosen, extra, keptExtra, dense, budget);
      tokens = countTokens(out.markdown);
    }
    // What the page spends on headings and notes rather than lines.
    const lineTokens = [...chosen].reduce((n, [l, how]) => n + tok(l)[how], 0);
    return { out, tokens, overhead: tokens - lineTokens - extraCost };
  };
  // A page whose headings and notes would take half the budget is compact: empty sections left out, one note.
  let r = attempt(compact || frameOf(false) > budget / 2);
  if (!compact && (r.tokens > budget || r.overhead > budget / 2) && frameOf(false) <= budget / 2) r = attempt(true);
  return { markdown: r.out.markdown, tokens: r.tokens, omitted: r.out.omitted };
}

const NONE = "_None recorded._";
/** The least budget a compact page spends a note of omitted lines from. */
const DENSE_NOTE_BUDGET = 200;
const more = (n: number, what: string) =>
  `- _(${n} more ${what}kept in the store; \`get_summary\` with \`full: true\` lists them)_`;

/** The markdown of the chosen lines and the first `keptExtra` extra lines; `dense` leaves out empty sections. */
function page(
  bySection: Map<SectionKey, Line[]>,
  chosen: Map<Line, "short" | "full">,
  extra: Partial<Record<SectionKey, string[]>>,
  keptExtra: number,
  dense: boolean,
  budget: number,
): { markdown: string; omitted: Partial<Record<SectionKey, number>> } {
  const omitted: Partial<Record<SectionKey, number>> = {};
  const parts: string[] = [];
  let extraLeft = keptExtra;
  let skippedAll = 0;
  for (const key of ORDER) {
    const ls = (bySection.get(key) ?? []).filter((l) => chosen.has(l)).sort((a, b) => a.order - b.order);
    const skipped = (bySection.get(key)?.length ?? 0) - ls.length;
    if (skipped > 0) omitted[key] = skipped;
    skippedAll += skipped;
    const body = ls.map((l) => (chosen.get(l) === "full" ? l.full : l.short));
    for (const x of extra[key] ?? []) if (extraLeft-- > 0) body.push(x);
    if (dense) {
      if (body.length > 0) parts.push(`## ${SECTION_TITLES[key]}\n${body.join("\n")}`);
      continue;
    }
    if (skipped > 0) body.push(more(skipped, ""));
    parts.push(`## ${SECTION_TITLES[key]}\n${body.length > 0 ? body.join("\n") : NONE}`);
  }
  // A compact page notes omitted lines once, where the note costs little of the budget.
  if (dense && skippedAll > 0 && parts.length > 0 && budget >= DENSE_NOTE_BUDGET)
    parts.push(more(skippedAll, "lines ").slice(2));
  return { markdown: parts.join("\n\n"), omitted };
}
