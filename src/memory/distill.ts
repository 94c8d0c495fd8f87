// Distillation: the summarized span becomes typed memory units (CBDP), cross-referenced against what is
// stored (merge, supersede, conflict), tiered, linked to the files they cite; the redacted raw turns are archived.
import type { Sections, Turn } from "../conversation/schema.js";
import type { Db } from "../storage/db.js";
import { writeTx } from "../storage/db.js";
import { replaceEdgesFrom } from "../storage/graph/edges.js";
import { getNodeByKey, upsertLooseNode } from "../storage/graph/nodes.js";
import {
  archiveTurns,
  getMemory,
  indexMemory,
  insertMemory,
  memoriesByKey,
  type MemoryRow,
  similarMemories,
  type SimilarUnit,
  updateMemory,
} from "../storage/memories.js";
import { projectRoot } from "../storage/projects.js";
import { identifierTokens } from "../text/identifiers.js";
import { redact, redactDeep } from "../text/redact.js";
import { signature } from "../text/signature.js";
import { countTokens } from "../text/tokens.js";
import { commandText } from "../transcript/events/ledger.js";
import { agentSentences, conversational } from "../transcript/extraction/extract.js";
import { humanPart } from "../transcript/extraction/human.js";
import type { Tier, UnitCategory } from "../vocab.js";
import { eventDrafts } from "./events.js";
import { anchorsOf, asDecision, carriedChoice, CAUSE, cleanProse, grounded, wholeClaim } from "./prose.js";
import { withoutRestatedChanges } from "./restated.js";
import { isReviewMode } from "./review.js";
import type { Evidence, UnitDraft } from "./schema.js";
import { segmentTurns } from "./segment.js";
import { fileHashes, projectPath } from "./stale.js";

/** How much each category matters when nothing else is known (background is never stored as a unit). */
export const CATEGORY_WEIGHT: Record<UnitCategory, number> = {
  commitment: 1,
  failure: 0.9,
  preference: 0.85,
  performance: 0.7,
  learning: 0.7,
  reasoning: 0.5,
  change: 0.9,
  dead_end: 0.6,
};
/** importance ≥ WARM: served by default; ≥ COLD: kept and searchable on request; below: dropped. */
export const WARM = 0.5;
export const COLD = 0.15;
const HALF_LIFE_DAYS = 30;

/** importance = recency_weight × category_weight × novelty. */
export function importance(category: UnitCategory, ageDays: number, novelty: number): number {
  const recency = Math.pow(0.5, ageDays / HALF_LIFE_DAYS);
  return recency * CATEGORY_WEIGHT[category] * novelty;
}

export function tierOf(imp: number): Tier {
  return imp >= WARM ? "warm" : imp >= COLD ? "cold" : "dropped";
}

// Each alternative starts only where a path (or a dashed name) can start, not at every character of a run:
// tried inside a run, the greedy classes rescan the rest of it each time, quadratic in a long run.
const PATHISH =
  /(?<![\w.@-]|[\w.@-]\/)(?:[\w.@-]+\/)+[\w.@-]+\.[A-Za-z0-9]{1,6}|\b(?<=(?:^|[^\w-])-*)[\w-]+\.(?:py|ts|tsx|js|jsx|rs|go|java|rb|c|h|cpp|cs|md|json|toml|yaml|yml)\b/g;

function filesIn(text: string): string[] {
  return [...new Set(text.match(PATHISH) ?? [])].slice(0, 10);
}

/** Metrics that only count or time one run of a test or build command. */
const RUN_TALLY = /^(?:tests?|test time|build time|duration)$/;

const NEGATION = /\b(not|never|no|don'?t|do not|without|avoid|stop|instead)\b/i;

const FILLER = new Set([
  "the",
  "and",
  "for",
  "that",
  "this",
  "with",
  "not",
  "don",
  "never",
  "a",
  "an",
  "of",
  "to",
  "in",
  "is",
]);

/** Content words, numbers and identifiers kept (two facts that differ only in a number are different facts). */
function words(text: string): Set<string> {
  return new Set(identifierTokens(text).filter((w) => !FILLER.has(w)));
}

function jaccard(a: Set<string>, b: Set<string>): number {
  let inter = 0;
  for (const w of a) if (b.has(w)) inter++;
  return inter / Math.max(1, a.size + b.size - inter);
}

/** What the session shows beyond the agent's prose, lower-cased: the person's words, each call and each output. */
function sessionEvidence(span: readonly Turn[]): string {
  const parts: string[] = [];
  for (const t of span) {
    if (t.role === "user") parts.push(t.text);
    for (const c of t.tool_calls) parts.push(commandText(c.input) || JSON.stringify(c.input));
    for (const r of t.tool_results) parts.push(r.output);
  }
  return parts.join("\n").toLowerCase();
}

/** A person's go-ahead for what the agent proposed: "go ahead and implement these fixes", "yes, do it", "please refactor". */
const GO_AHEAD =
  /^(?:(?:ok(?:ay)?|yes|yep|sure|great|perfect|good|thanks?|nice|sounds good|alright)[,.!]?\s*)*(?:please\s+)?(?:go ahead|do (?:it|that|this|so|option)|implement|apply|proceed|fix|make|refactor|change|update|continue|let'?s do|lets do)\b/i;

/** Sentences of the agent's that may state a cause or a choice (the filter the prose rules in prose.ts then judge). */
const PROSE_CANDIDATE =
  /\b(I'?ll use|we'?ll use|I decided|decided to|decision|instead of|rather than|switch(?:ed|ing)? to|chose|choose|going with|the (?:root )?cause|the fix is|the issue is|the problem is|because|approach)\b/i;

/** Word overlap (Jaccard) at which a learning is the same as a stored one, and a commitment is about the same things. */
const SAME_LEARNING = 0.85;
const CLASHING_COMMITMENT = 0.5;
/** Word overlap at which a later learning or decision naming the same code is about the same subject (hand-set). */
const SAME_SUBJECT = 0.25;
/** The newest units the same-subject check reads: a loose overlap matches much of a large store (hand-set). */
const SAME_SUBJECT_CANDIDATES = 64;

/** Which turns' statements edits acted on: the span's edited turns, and two readings of an edit following a turn. */
function editReach(span: readonly Turn[], sections: Sections, position: ReadonlyMap<string, number>) {
  const edited = new Set(Object.values(sections.files).flatMap((ops) => ops.map((o) => o.turn)));
  /** Whether an edit carries the turn's choice out: before the person speaks again, or in answer to their next word. */
  const editFollows = (turn: string): boolean => {
    const from = position.get(turn);
    if (from === undefined) return false;
    let spoke = 0;
    for (let i = from; i < span.length; i++) {
      const t = span[i]!;
      if (i > from && t.role === "user" && t.kind === "message" && conversational(t) && ++spoke > 1) return false;
      if (edited.has(t.id)) return true;
    }
    return false;
  };
  /**
   * Whether the exchange the turn is in (from the person's message before it to their next one) edited code: the
   * finding it states was acted on, before ("The problem was …" after the fix) or after it.
   */
  const actedOn = (turn: string): boolean => {
    const at = position.get(turn);
    if (at === undefined) return false;
    const spoke = (t: Turn) => t.role === "user" && t.kind === "message" && conversational(t);
    for (let i = at; i >= 0 && !(i < at && spoke(span[i]!)); i--) if (edited.has(span[i]!.id)) return true;
    let approved = false;
    for (let i = at + 1; i < span.length; i++) {
      const t = span[i]!;
      // The person's go-ahead ("go ahead and implement these fixes") lets the edits after it act on the finding.
      if (spoke(t)) {
        if (approved || !GO_AHEAD.test(humanPart(t.text).text.trim())) return false;
        approved = true;
      }
      if (edited.has(t.id)) return true;
    }
    return false;
  };
  return { edited, editFollows, actedOn };
}

/** The drafts of one span: changes, commits, errors and rules from its events; metrics, learnings, preferences, decisions. */
export function draftUnits(sessionId: string, span: readonly Turn[], sections: Sections): UnitDraft[] {
  const ev = (turn: string, quote: string): Evidence[] => [
    { session: sessionId, turn, quote: redact(quote).slice(0, 500) },
  ];
  const spanIds = new Set(span.map((t) => t.id));
  const inSpan = (turn: string) => spanIds.has(turn);
  const out: UnitDraft[] = [];
  // Edits, commits, reverts, errors and standing rules come from the session's events (events.ts).
  for (const d of eventDrafts(sessionId, span, sections))
    out.push(d.category === "commitment" && d.files.length === 0 ? { ...d, files: filesIn(d.text) } : d);
  for (const [metric, m] of Object.entries(sections.metrics)) {
    if (!inSpan(m.turn)) continue;
    // A run's tally or duration ("tests: 77 passed", "test time: 536 ms") is a snapshot of one run, not a fact a
    // later session needs; the summary keeps it.
    if (RUN_TALLY.test(metric)) continue;
    const [value, ...unit] = m.value.split(" ");
    out.push({
      category: "performance",
      text: `${metric}: ${m.value}`,
      record: { metric, value: Number(value), unit: unit.join(" "), context: metric, timestamp: m.turn },
      key: signature(metric),
      confidence: 0.7,
      evidence: ev(m.turn, `${metric}: ${m.value}`),
      files: [],
    });
  }
  // The agent's prose becomes a unit only as a whole, grounded statement with a claim (prose.ts), or as a choice
  // that an edit then carried out; a sentence read both as a decision and as a learning, or said twice, is one
  // unit: the later wording replaces the earlier (often once while looking and once when fixed).
  const evidence = sessionEvidence(span);
  const position = new Map(span.map((t, i) => [t.id, i]));
  const { edited, editFollows, actedOn } = editReach(span, sections, position);
  const prose: UnitDraft[] = [];
  const choices = new Map<UnitDraft, { said: string; turn: string }>();
  const keep = (raw: string, turn: string, confidence: number) => {
    const said = cleanProse(redact(raw));
    const claim = wholeClaim(said) && grounded(said, evidence);
    if (!claim && !(carriedChoice(said) && editFollows(turn))) return;
    const text = claim ? said : asDecision(said);
    // What was found out (a cause) is a learning; a choice made is a decision, whichever reading found it.
    const category = claim && CAUSE.test(text) ? "learning" : "reasoning";
    // A cause no edit acted on before the person spoke again was a guess they cut short or the agent took back
    // (read only where the session shows its edits: some exports keep them in the prose alone).
    if (category === "learning" && edited.size > 0 && !actedOn(turn)) return;
    const w = words(text);
    const anchors = new Set(anchorsOf(text));
    const twice = prose.findIndex((p) => {
      const j = jaccard(w, words(p.text));
      return j >= 0.45 || (j >= 0.25 && anchorsOf(p.text).some((a) => anchors.has(a)));
    });
    // Where it was first said leads the evidence: the turn that reasoned it out (or recommended it) before the
    // later wording that acted on it.
    const earlier = twice >= 0 ? prose.splice(twice, 1)[0]!.evidence : [];
    const record = category === "learning" ? { proposition: text } : { outcome: text };
    const draft: UnitDraft = {
      category,
      text,
      record,
      key: signature(text),
      confidence,
      evidence: [...earlier, ...ev(turn, text).filter((e) => !earlier.some((x) => x.turn === e.turn))],
      files: filesIn(text),
    };
    prose.push(draft);
    if (!claim) choices.set(draft, { said, turn });
  };
  const segments = segmentTurns(span);
  const candidates = [
    ...segments
      .filter((s) => s.category === "learning" && s.role === "assistant")
      .map((s) => ({ text: s.text, turn: s.turn, confidence: s.confidence })),
    ...sections.decisions
      .filter((d) => inSpan(d.turn) && !/^(?:plan: |work on a new branch)/.test(d.text))
      .map((d) => ({ text: d.text, turn: d.turn, confidence: 0.5 })),
    // The agent's own statements of a cause or a choice: the summary's Decisions keep only choices, while a finding
    // ("… fails because …") is a learning here; `keep` admits only whole, grounded claims and carried-out choices.
    ...agentSentences(span)
      .filter((x) => x.text.length >= 25 && x.text.length <= 320 && PROSE_CANDIDATE.test(x.text))
      .map((x) => ({ text: x.text, turn: x.turn, confidence: 0.5 })),
  ].sort((a, b) => (position.get(a.turn) ?? 0) - (position.get(b.turn) ?? 0));
  for (const c of candidates) keep(c.text, c.turn, c.confidence);
  // A statement restating a change of the span is that change (folded into it where it says why), not a unit.
  out.push(...withoutRestatedChanges(prose, out, choices, sections, span, position));
  // A preference is kept only from a turn the human-turn classifier took for a standing instruction (its sentences
  // are the User Constraints): a one-off request or a remark is not a preference to recall later.
  const instructed = new Set(sections.constraints.map((c) => c.turn));
  for (const s of segments) {
    if (s.category === "preference" && s.role === "user" && instructed.has(s.turn)) {
      out.push({
        category: "preference",
        text: redact(s.text),
        record: { summary: redact(s.text).slice(0, 200) },
        key: signature(s.text),
        confidence: s.confidence,
        evidence: ev(s.turn, s.text),
        files: [],
      });
    }
  }
  return out;
}

/** What a distillation needs: the compressed span of a session and its summary's sections. */
export interface DistillJob {
  projectId: number;
  sessionId: string;
  span: Turn[];
  sections: Sections;
}

export interface DistillResult {
  added: number;
  merged: number;
  superseded: number;
  conflicts: number;
  dropped: number;
  archived: number;
  warm: number;
  cold: number;
}

export function emptyResult(): DistillResult {
  return { added: 0, merged: 0, superseded: 0, conflicts: 0, dropped: 0, archived: 0, warm: 0, cold: 0 };
}

function mergeEvidence(old: Evidence[], b: Evidence[]): Evidence[] {
  const seen = new Set(old.map((e) => `${e.session}:${e.turn}`));
  return [...old, ...b.filter((e) => !seen.has(`${e.session}:${e.turn}`))].slice(-20);
}

/** What writing one draft did: the unit it inserted, or the existing unit it merged into. */
export interface UnitWrite {
  /** The inserted unit's rowid (from the insert itself), or the unit merged into; absent when dropped. */
  id: number | undefined;
  action: "added" | "merged" | "dropped";
  /** The unit this one superseded (a metric's previous value). */
  superseded?: number;
  /** A stored commitment this one contradicts. */
  conflictsWith?: number;
}

/** What a stored unit brings to cross-referencing: the fields of its draft, its merge key as `key`. */
export type SettledUnit = Pick<UnitDraft, "text" | "record" | "key" | "confidence" | "files"> & { category: string };

/**
 * Writes one draft with cross-referencing; runs inside the caller's write transaction. A `pending` unit (review
 * mode) waits for approval: it merges only into another pending unit, supersedes and contradicts nothing and gets
 * no graph node until approved (approval settles it with `settleUnit`).
 */
function writeDraft(
  db: Db,
  projectId: number,
  sessionId: string,
  d: UnitDraft,
  now: string,
  r: DistillResult,
  pending = false,
): UnitWrite {
  // A unit waiting for review must not change units already in force (their importance, tier or evidence).
  const inReach = (m: { status: string }) => !pending || m.status === "pending";
  const same = memoriesByKey(db, projectId, d.category, d.key);
  let similar: MemoryRow | undefined = same.find(inReach);
  if (!similar && d.category === "learning") {
    const w = words(d.text);
    const near = similarMemories(db, projectId, "learning", w, SAME_LEARNING, {
      accept: (m) => inReach(m) && jaccard(w, words(m.text)) >= SAME_LEARNING,
    })[0];
    similar = near && getMemory(db, near.id);
  }
  if (similar && d.category !== "performance") {
    // The same unit again: evidence chains concatenated, confidence raised.
    const conf = 1 - (1 - similar.confidence) * (1 - d.confidence);
    const imp = Math.max(similar.importance, importance(d.category, 0, 0.8));
    updateMemory(db, similar.id, {
      evidence: mergeEvidence(similar.evidence, d.evidence),
      confidence: conf,
      importance: imp,
      tier: tierOf(imp) === "dropped" ? "cold" : tierOf(imp),
      updated_at: now,
    });
    r.merged++;
    return { id: similar.id, action: "merged" };
  }
  // The agent's own announcements ("I'll update X") are kept cold: searchable, not served by default.
  const imp = importance(d.category, 0, 1) * (d.category === "commitment" && d.record.by === "agent" ? 0.45 : 1);
  const tier = tierOf(imp);
  if (tier === "dropped") {
    r.dropped++;
    return { id: undefined, action: "dropped" };
  }
  const id = insertMemory(db, {
    project_id: projectId,
    session_id: sessionId,
    category: d.category,
    text: d.text,
    record: { ...d.record },
    merge_key: d.key,
    confidence: d.confidence,
    importance: imp,
    tier,
    status: pending ? "pending" : "active",
    superseded_by: null,
    conflicts_with: null,
    evidence: d.evidence,
    files: d.files,
    created_at: now,
    updated_at: now,
  });
  // A change whose text leaves out a request that said nothing of the work ("go ahead") is still found by its words.
  const asked = typeof d.record.request === "string" && !d.text.includes(d.record.request) ? d.record.request : "";
  indexMemory(db, id, identifierTokens(`${d.category} ${d.text} ${asked}`).join(" "));
  r.added++;
  if (tier === "warm") r.warm++;
  else r.cold++;
  if (pending) return { id, action: "added" };
  return { id, action: "added", ...settleUnit(db, projectId, id, d, now, r) };
}

/**
 * Puts a unit now in force among the others, inside the caller's write transaction: a metric supersedes the
 * active unit with its key (whose value joins its history), a commitment of the opposite polarity about the same
 * things is flagged as a conflict (both kept; the more recent wins unless the older is much more certain), and the
 * unit gets its graph node. Run when a unit is written active and when a pending unit is approved.
 */
export function settleUnit(
  db: Db,
  projectId: number,
  id: number,
  d: SettledUnit,
  now: string,
  r: DistillResult = emptyResult(),
): Pick<UnitWrite, "superseded" | "conflictsWith"> {
  const previous =
    d.category === "performance"
      ? memoriesByKey(db, projectId, d.category, d.key).find((m) => m.id !== id && m.status === "active")
      : undefined;
  if (previous) {
    const prevRecord = previous.record as { value?: unknown; history?: unknown[]; timestamp?: unknown };
    const history = [
      ...(prevRecord.history ?? []),
      { value: prevRecord.value, timestamp: prevRecord.timestamp, id: previous.id },
    ].slice(-10);
    updateMemory(db, id, { record: { ...d.record, history } });
    updateMemory(db, previous.id, { status: "superseded", superseded_by: id, updated_at: now });
    r.superseded++;
  }
  // A later finding or decision about the same subject replaces the earlier one: it stays, shown and ranked down.
  let replaced: SimilarUnit | undefined;
  if (!previous && (d.category === "learning" || d.category === "reasoning")) {
    const w = words(d.text);
    const anchors = new Set(anchorsOf(d.text));
    replaced = similarMemories(db, projectId, d.category, w, SAME_SUBJECT, {
      self: id,
      newest: SAME_SUBJECT_CANDIDATES,
      // The same subject: a name in code both cite, and enough words in common.
      accept: (m) =>
        m.status === "active" &&
        anchorsOf(m.text).some((a) => anchors.has(a)) &&
        jaccard(w, words(m.text)) >= SAME_SUBJECT,
    })[0];
    if (replaced) {
      updateMemory(db, replaced.id, { status: "superseded", superseded_by: id, updated_at: now });
      r.superseded++;
    }
  }
  let clash: SimilarUnit | undefined;
  if (d.category === "commitment") {
    const w = words(d.text);
    const neg = NEGATION.test(d.text);
    clash = similarMemories(db, projectId, "commitment", w, CLASHING_COMMITMENT, {
      self: id,
      accept: (m) =>
        m.status === "active" && NEGATION.test(m.text) !== neg && jaccard(w, words(m.text)) >= CLASHING_COMMITMENT,
    })[0];
    if (clash) {
      const olderWins = clash.confidence >= d.confidence + 0.3;
      updateMemory(db, olderWins ? id : clash.id, {
        status: "conflict",
        conflicts_with: olderWins ? clash.id : id,
        updated_at: now,
      });
      updateMemory(db, olderWins ? clash.id : id, { conflicts_with: olderWins ? id : clash.id, updated_at: now });
      r.conflicts++;
    }
  }
  linkUnitNode(db, projectId, id, d);
  const superseded = previous ?? replaced;
  return { ...(superseded ? { superseded: superseded.id } : {}), ...(clash ? { conflictsWith: clash.id } : {}) };
}

/**
 * Gives a unit its graph node (searchable, queued for a vector) and task_memory edges to the files it cites that
 * the graph knows. Runs inside the caller's write transaction.
 */
export function linkUnitNode(
  db: Db,
  projectId: number,
  id: number,
  d: { category: string; text: string; files: readonly string[] },
): void {
  const memNode = upsertLooseNode(db, projectId, {
    key: `memory:${id}`,
    type: "memory",
    path: null,
    name: d.category,
    kind: d.category,
    startLine: null,
    endLine: null,
    summary: d.text.slice(0, 300),
    tokens: countTokens(d.text),
    contentHash: null,
    source: "distill",
    fts: { name: d.category, path: "", body: identifierTokens(d.text).join(" ") },
    // Queued for a vector; embedded by the next search or graph build.
    embedText: `${d.category}: ${d.text}`.slice(0, 2000),
  });
  const targets = d.files.flatMap((f) => {
    const n = getNodeByKey(db, `file:${f.replace(/^\.\//, "")}`);
    return n ? [{ dst: n.id, weight: 1 }] : [];
  });
  if (targets.length > 0) replaceEdgesFrom(db, memNode, "task_memory", targets);
}

/** The most of one turn the archive keeps: a pasted log or a file listing beyond this is cut. */
const MAX_ARCHIVED_CHARS = 40_000;

/**
 * What the archive keeps of a turn: what was said, each call (its command, or its input) and each output, so an
 * edit's path, a commit's message and an error's line are found in the archive as in the transcript.
 */
export function archiveText(t: Turn): string {
  const calls = t.tool_calls.map((c) => `${c.name} ${commandText(c.input) || JSON.stringify(c.input)}`);
  const text = [t.text, ...calls, ...t.tool_results.map((r) => r.output)].filter((x) => x.trim()).join("\n");
  return text.length > MAX_ARCHIVED_CHARS ? text.slice(0, MAX_ARCHIVED_CHARS) : text;
}

/**
 * Writes drafts with cross-referencing, in one transaction; archives the span's redacted turns. Every draft is
 * redacted here, whatever made it (distillation, record_memory, an import), so its text, key, record, evidence,
 * search tokens and vector text are all derived from redacted text.
 */
export function writeUnits(
  db: Db,
  projectId: number,
  sessionId: string,
  span: readonly Turn[],
  rawDrafts: readonly UnitDraft[],
  opts: { pending?: boolean } = {},
): DistillResult {
  const drafts = rawDrafts.map((d) => redactDeep(d));
  const r = emptyResult();
  const now = new Date().toISOString();
  writeTx(db, () => {
    for (const d of drafts) writeDraft(db, projectId, sessionId, d, now, r, opts.pending ?? false);
    r.archived = archiveTurns(
      db,
      projectId,
      sessionId,
      span
        .filter((t) => t.kind === "message" && t.role !== "system")
        .map((t) => ({ t, text: redact(archiveText(t)) }))
        .filter(({ text }) => text.trim())
        .map(({ t, text }) => ({ id: t.id, role: t.role, text, tokens: identifierTokens(text).join(" ") })),
    );
  });
  return r;
}

/**
 * Writes one unit in its own write transaction and says which row it became: the id comes from the insert
 * (or is the unit it merged into), never from a later read, so concurrent writers each get their own. In review
 * mode the unit waits for approval (`pending`) like a distilled one: a person reviews what the agent keeps.
 */
export function writeUnit(
  db: Db,
  projectId: number,
  sessionId: string,
  draft: UnitDraft,
): UnitWrite & { result: DistillResult; pending: boolean } {
  const r = emptyResult();
  const now = new Date().toISOString();
  let pending = false;
  const w = writeTx(db, () => {
    pending = isReviewMode(db, projectId);
    return writeDraft(db, projectId, sessionId, redactDeep(draft), now, r, pending);
  });
  return { ...w, result: r, pending };
}

/** Distils a compressed span into memory units; in review mode they wait for approval (status `pending`). */
export function distill(
  db: Db,
  projectId: number,
  sessionId: string,
  span: readonly Turn[],
  sections: Sections,
): DistillResult {
  // A unit citing files carries their content hashes, so a later read can tell when the code moved on.
  const root = projectRoot(db, projectId);
  const drafts = draftUnits(sessionId, span, sections).map((d) => {
    if (!root || d.files.length === 0) return d;
    // Cited paths as the project knows them (an export without a working directory records absolute ones).
    const files = [...new Set(d.files.map((f) => projectPath(root, f)))];
    if (d.category !== "change") return { ...d, files };
    const hashes = fileHashes(root, files);
    return Object.keys(hashes).length ? { ...d, files, record: { ...d.record, file_hashes: hashes } } : { ...d, files };
  });
  return writeUnits(db, projectId, sessionId, span, drafts, { pending: isReviewMode(db, projectId) });
}
