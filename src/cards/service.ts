// get_memory_cards: candidates → utility → packing → cards, with the audit; and record_outcome.
import { createHash } from "node:crypto";

import { z } from "zod";

import { Sections } from "../conversation/schema.js";
import { AppError } from "../errors.js";
import { indexCompleteness } from "../graph/build-state.js";
import type { RankedFile, Ranker } from "../retrieval/rank.js";
import { CONFIDENT, type EvidenceFeatures } from "../scoring/calibration.js";
import { auditCards, cardMarkdown, makeCard } from "../scoring/cards.js";
import { blendComponents, type JudgeFn, judgePrompt, parseJudgeAnswer } from "../scoring/judge.js";
import { pack, type PackResult } from "../scoring/pack.js";
import { type Candidate, type Card, type CardAudit, PackMode, UnitKind } from "../scoring/schema.js";
import { components, utilityOf } from "../scoring/utility.js";
import { recordOutcomes, recordServed, servedCard } from "../storage/cards.js";
import { hasIndexedFiles } from "../storage/graph/counts.js";
import { anySymbol } from "../storage/graph/nodes.js";
import type { ProjectScope } from "../storage/scope.js";
import { latestSummary } from "../storage/summaries.js";
import { count } from "../text/plural.js";
import { redact } from "../text/redact.js";
import { gatherCandidates } from "./candidates.js";
import { CardsInput, OutcomeInput } from "./input.js";

export { CardsInput, OutcomeInput };

/** Retrieval reads at most this much of a task (a pasted log can be huge); anchors come from the same text. */
export const MAX_TASK_CHARS = 20_000;

export interface CardsResult {
  taskChars: number;
  cards: Card[];
  mode: PackMode;
  budget: number;
  tokens: number;
  /** The ids each packing mode selected, so the two can be compared. */
  selected: Record<PackMode, string[]>;
  skipped: PackResult["skipped"];
  audit: CardAudit;
  ranking: { path: string; channels: Record<string, number> }[];
  /** Which route estimated the components: the client's model through sampling, or run-time signals alone. */
  route: "judge" | "deterministic";
  judged: number;
  notes: string[];
  candidates: number;
  /** How much the task's retrieval can be trusted (0–1, calibrated), and the features it came from. */
  confidence: number;
  evidence: EvidenceFeatures;
  /** The index the cards come from: `partial` while a build has not finished (N of M files indexed). */
  index: IndexState;
}

export const IndexState = z.object({
  state: z.enum(["complete", "partial"]),
  indexed: z.number().int(),
  total: z.number().int().optional(),
});
export type IndexState = z.infer<typeof IndexState>;

/** The index state in a few words: `complete`, or `partial, N of M files`. */
export function indexText(ix: IndexState): string {
  return ix.state === "complete" ? "complete" : `partial, ${ix.indexed} of ${ix.total ?? "?"} files`;
}

/** The line a pack carries about a partial index, or nothing when the index is complete. */
export function indexLine(ix: IndexState): string | undefined {
  if (ix.state === "complete") return undefined;
  return `index: ${indexText(ix)}; cards may miss what is not indexed yet (build_context_graph finishes it).`;
}

export interface CardsDeps extends ProjectScope {
  ranker: Ranker;
  /** Present only when the client offers MCP sampling. */
  judge?: JudgeFn;
  /**
   * The indexing policy when the project has no context graph yet. With `indexFirst`, it is called to build
   * the graph before the cards are made (`memcards cards`: a person asked and waits). Without it the call
   * fails with NOT_INDEXED (the get_memory_cards tool: the agent decides when to pay for build_context_graph).
   */
  indexFirst?: () => Promise<void>;
}

/**
 * Throws NOT_INDEXED when the graph has never been built for this database (as the indexer's own check does, read
 * here so that the cards path does not load the indexer).
 */
function assertIndexed(db: CardsDeps["db"]): void {
  if (!hasIndexedFiles(db))
    throw new AppError(
      "NOT_INDEXED",
      "this project has no context graph yet; run build_context_graph (or `memcards index`) first",
    );
}

/** Applies the indexing policy of `deps` (see CardsDeps.indexFirst); throws NOT_INDEXED when there is no graph. */
export async function ensureIndexed(deps: Pick<CardsDeps, "db" | "indexFirst">): Promise<void> {
  try {
    assertIndexed(deps.db);
  } catch (err) {
    if (!deps.indexFirst || !(err instanceof AppError) || err.code !== "NOT_INDEXED") throw err;
    await deps.indexFirst();
    assertIndexed(deps.db);
  }
}

/** At most this many candidates are judged, within this time; the rest keep their deterministic estimates. */
export const JUDGE_MAX = 6;
export const JUDGE_TIMEOUT_MS = 15_000;

async function applyJudge(
  judge: JudgeFn,
  task: string,
  cards: { candidate: Candidate; card: Card }[],
  notes: string[],
): Promise<number> {
  const top = [...cards].sort((a, b) => b.card.utility - a.card.utility).slice(0, JUDGE_MAX);
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), JUDGE_TIMEOUT_MS);
  let judged = 0;
  let failed = 0;
  try {
    const answers = await Promise.allSettled(
      top.map((c) => judge(judgePrompt(task, c.candidate, c.card), controller.signal)),
    );
    answers.forEach((a, i) => {
      const parsed = a.status === "fulfilled" ? parseJudgeAnswer(a.value) : undefined;
      if (!parsed) {
        failed++;
        return;
      }
      const entry = top[i]!;
      const k = blendComponents(entry.card.components, parsed);
      entry.card = { ...makeCard(entry.candidate, k, utilityOf(k), entry.card.id) };
      judged++;
    });
  } finally {
    clearTimeout(timer);
  }
  if (failed > 0)
    notes.push(
      `The client's model answered ${judged} of ${top.length} judge requests; the rest kept deterministic estimates.`,
    );
  return judged;
}

export function cardId(key: string): string {
  return `c${createHash("sha1").update(key).digest("hex").slice(0, 10)}`;
}

/** Scores every candidate and builds its card (utility needs the card's own token cost). */
export async function scoreCandidates(
  deps: CardsDeps,
  task: string,
  files: readonly string[],
  kinds: ReadonlySet<UnitKind>,
  session?: Sections,
  preRanked?: readonly RankedFile[],
) {
  const { candidates, ranked, features, confidence } = await gatherCandidates(
    { ...deps, ...(session ? { session } : {}) },
    task,
    files,
    kinds,
    preRanked,
  );
  const cards = candidates.map((c) => {
    const id = cardId(c.key);
    const draft = makeCard(c, components(c, 0), 0, id);
    const k = components(c, draft.tokens);
    return { candidate: c, card: makeCard(c, k, utilityOf(k), id) };
  });
  return { cards, ranked, features, confidence };
}

/** The cards for a task, packed under the budget; the cards served are recorded (for record_outcome). */
export async function getMemoryCards(deps: CardsDeps, raw: CardsInput): Promise<CardsResult> {
  return cardsFor(deps, raw, true);
}

/**
 * Runs the whole cards path once, as a call would, on a task made of one indexed symbol and its file, recording
 * nothing: a server's warm-up after `initialize`, so that the first get_memory_cards finds its code compiled, its
 * statements prepared and the ranker's per-index state read. Nothing happens without an index, nor once the ranker
 * has ranked (a call that came first warmed the path, and a second run would only take CPU from the calls that
 * follow). Resolves to whether the path ran.
 */
export async function warmCards(deps: CardsDeps): Promise<boolean> {
  if (deps.ranker.used()) return false;
  const s = hasIndexedFiles(deps.db) ? anySymbol(deps.db) : undefined;
  if (!s) return false;
  const r = await cardsFor(deps, { task: `fix ${s.name} in ${s.path}` }, false);
  renderCards(r);
  redact(r.cards[0]?.evidence ?? s.name);
  return true;
}

async function cardsFor(deps: CardsDeps, raw: CardsInput, record: boolean): Promise<CardsResult> {
  const input = CardsInput.parse(raw);
  const notes: string[] = [];
  if (!input.task.trim())
    throw new AppError("BAD_INPUT", "task is empty: pass the issue or instruction you are about to work on");
  await ensureIndexed(deps);
  let task = input.task;
  if (task.length > MAX_TASK_CHARS) {
    notes.push(`The task is ${task.length} characters; its first ${MAX_TASK_CHARS} were used.`);
    task = task.slice(0, MAX_TASK_CHARS);
  }
  let session: Sections | undefined;
  if (input.sessionId) {
    const row = latestSummary(deps.db, input.sessionId, deps.projectId);
    if (row) session = Sections.parse(row.sections);
    else
      notes.push(
        `Session ${input.sessionId} has no stored summary yet; its constraints and failures are not included.`,
      );
  }
  const kinds = new Set<UnitKind>(input.kinds ?? UnitKind.options);
  const ix = indexCompleteness(deps.db);
  const index: IndexState = {
    state: ix.partial ? "partial" : "complete",
    indexed: ix.indexed,
    ...(ix.total !== undefined ? { total: ix.total } : {}),
  };
  const partialLine = indexLine(index);
  if (partialLine) notes.push(partialLine);
  const { cards, ranked, features, confidence } = await scoreCandidates(deps, task, input.files ?? [], kinds, session);
  if (confidence < CONFIDENT)
    notes.push(
      `No confident card: this index knows little of the task (confidence ${confidence.toFixed(2)}; ${Math.round(features.coverage * 100)}% of its terms weighted by rarity occur here${features.anchored ? "" : ", nothing it names resolved"}). Check the task is about this project, or name a file or symbol.`,
    );
  const judged = deps.judge && input.judge ? await applyJudge(deps.judge, task, cards, notes) : 0;
  const governingRules = new Set(
    cards.filter((c) => c.candidate.kind === "rule" && !c.candidate.signals.off_scope).map((c) => c.card.id),
  );
  const items = cards.map((c) => ({
    card: c.card,
    governing: governingRules.has(c.card.id),
    blocked: c.candidate.signals.conflict && c.card.components.risk >= 0.5,
  }));
  const packs = {
    post_selection: pack(items, input.budgetTokens, "post_selection"),
    pre_budget: pack(items, input.budgetTokens, "pre_budget"),
  };
  const chosen = packs[input.mode];
  const byId = new Map(cards.map((c) => [c.card.id, c.card]));
  const served = chosen.selected.map((id) => byId.get(id)!);
  const stale = served.filter((c) => c.stale).length;
  if (stale > 0)
    notes.push(
      `${count(stale, "card")} come from files changed since indexing (marked ⚠ stale); run build_context_graph to refresh.`,
    );
  if (record)
    recordServed(
      deps.db,
      deps.projectId,
      input.sessionId,
      task,
      served.map((c) => ({ id: c.id, unitKey: c.source, card: c })),
    );
  return {
    taskChars: input.task.length,
    cards: served,
    mode: input.mode,
    budget: input.budgetTokens,
    tokens: chosen.tokens,
    selected: { post_selection: packs.post_selection.selected, pre_budget: packs.pre_budget.selected },
    skipped: chosen.skipped,
    audit: auditCards(served),
    ranking: ranked.slice(0, 10).map((r) => ({ path: r.path, channels: r.channels })),
    route: judged > 0 ? "judge" : "deterministic",
    judged,
    notes,
    candidates: cards.length,
    confidence: Math.round(confidence * 1000) / 1000,
    evidence: features,
    index,
  };
}

/** Files for a task as the product ranks them for its cards: the `memcards` rung of the localization ladder. */
export async function rankFilesByUtility(deps: CardsDeps, task: string, limit: number): Promise<string[]> {
  const q = task.slice(0, MAX_TASK_CHARS);
  // Files keep the fused retrieval order: re-ordering them by card utility ranked the changed file lower on
  // both development sets (docs/benchmarks.md), so utility orders cards, not files.
  const full = await deps.ranker.rank(q, limit);
  return full.map((r) => r.path).slice(0, limit);
}

export function renderCards(r: CardsResult): string {
  if (r.cards.length === 0)
    return `No card fits: ${r.candidates} candidates, none useful within ${r.budget} tokens.${r.notes.length ? `\n${r.notes.join("\n")}` : ""}`;
  const body = r.cards.map((c, i) => cardMarkdown(c, i + 1)).join("\n\n");
  const foot = `— ${r.cards.length} cards, ${r.tokens}/${r.budget} tokens (${r.mode}); report what helped with record_outcome.`;
  return [body, foot, ...r.notes].join("\n\n");
}

/** Unknown card ids named back to the caller: a few, never the whole list it sent. */
const UNKNOWN_SHOWN = 5;

/** "a, b, c and 997 more": a short, bounded mention of ids. */
export function someIds(ids: readonly string[], total = ids.length): string {
  const shown = ids.slice(0, UNKNOWN_SHOWN).map((id) => (id.length > 40 ? `${id.slice(0, 40)}…` : id));
  return `${shown.join(", ")}${total > shown.length ? ` and ${total - shown.length} more` : ""}`;
}

/**
 * Records which cards helped (by card id) and which files were finally edited (as helpful file units).
 * `unknown` lists at most a few of the ids that name no served card; `unknownCount` says how many there were.
 * Card ids are looked up among the project's served cards unless `unitKeyOfCard` is given.
 */
export function recordOutcome(
  deps: Pick<ProjectScope, "db" | "projectId"> & { unitKeyOfCard?: (id: string) => string | undefined },
  raw: OutcomeInput,
): { recorded: number; unknown: string[]; unknownCount: number } {
  const input = OutcomeInput.parse(raw);
  const unitKeyOfCard = deps.unitKeyOfCard ?? ((id: string) => servedCard(deps.db, deps.projectId, id)?.unit_key);
  const unknown: string[] = [];
  const units: { unitKey: string; helped: boolean }[] = [];
  for (const [ids, helped] of [
    [input.helped, true],
    [input.notHelpful, false],
  ] as const) {
    for (const id of ids) {
      const key = unitKeyOfCard(id);
      if (key) units.push({ unitKey: key, helped });
      else unknown.push(id);
    }
  }
  for (const f of input.editedFiles) units.push({ unitKey: `file:${f.replace(/^\.\//, "")}`, helped: true });
  if (units.length === 0 && unknown.length > 0) {
    throw new AppError(
      "NOT_FOUND",
      `${unknown.length === 1 ? "no card with id" : `none of the ${unknown.length} card ids`} ${someIds(unknown)} was served in this project`,
    );
  }
  if (units.length === 0)
    throw new AppError("BAD_INPUT", "nothing to record: pass helped, not_helpful or edited_files");
  return {
    recorded: recordOutcomes(deps.db, deps.projectId, input.sessionId, units),
    unknown: unknown.slice(0, UNKNOWN_SHOWN),
    unknownCount: unknown.length,
  };
}
