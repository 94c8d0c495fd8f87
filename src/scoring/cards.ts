// Cards: the five mandatory fields written from a candidate's facts, their markdown, and the structural audit.
import { clipWords } from "../text/cut.js";
import { countTokens } from "../text/tokens.js";
import type { Candidate, Card, CardAudit, Components } from "./schema.js";

const lines = (c: Candidate) => (c.lines ? `:${c.lines[0]}-${c.lines[1]}` : "");
const clip = clipWords;

function channelsText(c: Candidate): string {
  const ch = Object.entries(c.signals.channels)
    .sort((a, b) => a[1] - b[1])
    .map(([k, r]) => `${k} #${r}`);
  return ch.length ? ch.join(", ") : "graph neighborhood";
}

/** The five fields of a card. Kept to exact identifiers and spans; no prose that could be a placeholder. */
export function cardFields(
  c: Candidate,
): Pick<Card, "trigger" | "evidence" | "action_hint" | "failure_if_ignored" | "scope"> {
  const where = `${c.path ?? ""}${lines(c)}`;
  switch (c.kind) {
    case "file":
      return {
        trigger: `Before editing code for this task in ${c.path}`,
        evidence: `${c.path} ranks #${c.signals.fused_rank ?? "?"} (${channelsText(c)})${c.about.defines ? `; defines ${c.about.defines}` : ""}${c.signals.anchor_hit ? "; named in the task" : ""}${c.about.session ? `; ${c.about.session}` : ""}`,
        action_hint: `Open ${c.path}${c.about.defines ? ` and start at ${c.about.defines.split(", ")[0]}` : ""}`,
        failure_if_ignored: `The fix may land in the wrong file; ${c.path} is where the task's identifiers live.`,
        scope: c.path ?? "repository",
      };
    case "symbol":
      return {
        trigger: `When changing ${c.name}`,
        evidence: `${c.about.kind ?? "symbol"} ${c.name} at ${where}${c.text ? `: \`${clip(c.text, 100)}\`` : ""}`,
        action_hint: `Edit ${c.name} in ${where}`,
        failure_if_ignored: `Callers of ${c.name} keep the old behaviour, or the edit misses the definition.`,
        scope: where,
      };
    case "test":
      return {
        trigger: `After editing ${c.about.covers ?? "the covered module"}`,
        evidence: `${c.path} covers ${c.about.covers ?? "it"} (imports or is named after it)${c.about.session ? `; ${c.about.session}` : ""}`,
        action_hint: `Run ${c.path} and add a case for this task`,
        failure_if_ignored: `A regression in ${c.about.covers ?? "the module"} goes unnoticed until CI.`,
        scope: c.path ?? c.about.covers ?? "tests",
      };
    case "rule":
      return {
        trigger: `Before touching ${c.about.governs ?? "files under its scope"}`,
        evidence: `${c.path}: ${clip(c.text, 220)}`,
        action_hint: `Follow ${c.path} for ${c.about.governs ?? "this scope"}`,
        failure_if_ignored: `The change breaks a project rule and is rejected in review.`,
        scope: c.about.governs ?? c.path ?? "repository",
      };
    case "constraint":
      return {
        trigger: `Whenever the work touches what the user constrained`,
        evidence: c.about.author
          ? `team rule by ${c.about.author}: "${clip(c.text, 240)}"`
          : `user (${c.about.turn ?? "earlier"}): "${clip(c.text, 240)}"`,
        action_hint: c.about.author
          ? `Respect the team's rule (${c.about.author}): ${clip(c.text, 120)}`
          : `Respect the user's instruction: ${clip(c.text, 120)}`,
        failure_if_ignored: `The user has to repeat the correction; trust is lost.`,
        scope: c.about.scope ?? "this session",
      };
    case "failure":
      return {
        trigger: `Before repeating the step that failed`,
        evidence: `${clip(c.text, 220)} (${c.about.turn ?? "earlier"})${c.about.cites ? `; names ${c.about.cites}` : ""}${c.about.remediation ? `; ${c.about.remediation}` : ""}`,
        action_hint: `Check this failure's cause before the next attempt${c.about.remediation ? ` (${clip(c.about.remediation, 80)})` : ""}`,
        failure_if_ignored: `The same error comes back and costs another round.`,
        scope: c.about.scope ?? "this session",
      };
  }
}

/** A card's compact markdown: what `content` shows and what its token cost counts. */
export function cardMarkdown(card: Omit<Card, "tokens">, n?: number): string {
  return [
    `### ${n !== undefined ? `${n}. ` : ""}${card.kind}: ${card.scope}${card.stale ? " ⚠ stale" : ""} (utility ${card.utility.toFixed(2)}, id ${card.id})`,
    `- when: ${card.trigger}`,
    `- evidence: ${card.evidence}`,
    `- do: ${card.action_hint}`,
    `- if ignored: ${card.failure_if_ignored}`,
  ].join("\n");
}

export function makeCard(c: Candidate, k: Components, utility: number, id: string): Card {
  const fields = cardFields(c);
  const base = {
    id,
    kind: c.kind,
    ...fields,
    utility: Math.round(utility * 1000) / 1000,
    components: Object.fromEntries(Object.entries(k).map(([a, v]) => [a, Math.round(v * 1000) / 1000])) as Components,
    raw_tokens: c.raw_tokens,
    source: c.key,
    stale: c.signals.stale,
  };
  return { ...base, tokens: cardTokens(cardMarkdown(base)) };
}

/**
 * Token counts of card lines already counted, by the line's exact text (so an entry can never describe changed
 * content): a card is built twice per call and most of its lines repeat from call to call, only its utility and
 * rank change. Bounded; emptied when full.
 */
const lineCounts = new Map<string, number>();
const LINE_COUNTS_MAX = 50_000;

/**
 * `countTokens` of a card's markdown, line by line through the memo. The text is cut after each newline that a
 * non-space character follows: the cl100k pre-tokenizer never joins text across such a point, so the parts' counts
 * add up to the whole's.
 */
export function cardTokens(markdown: string): number {
  let n = 0;
  let from = 0;
  for (let i = markdown.indexOf("\n"); i >= 0; i = markdown.indexOf("\n", i + 1)) {
    const next = markdown[i + 1];
    if (next === undefined || /\s/.test(next)) continue;
    n += segmentTokens(markdown.slice(from, i + 1));
    from = i + 1;
  }
  return n + segmentTokens(markdown.slice(from));
}

/**
 * The head line's utility changes from call to call: it is counted in three parts, each cut where the pre-tokenizer
 * cuts too (before the space of ` (` after a non-space, and before the `,` after the utility's digits).
 */
const HEAD = /^(.*\S)( \(utility \d+\.\d+)(, id [^\s,()]+\)\n?)$/s;

function segmentTokens(segment: string): number {
  const m = segment.startsWith("### ") ? HEAD.exec(segment) : null;
  return m ? lineTokens(m[1]!) + lineTokens(m[2]!) + lineTokens(m[3]!) : lineTokens(segment);
}

function lineTokens(line: string): number {
  let n = lineCounts.get(line);
  if (n === undefined) {
    if (lineCounts.size >= LINE_COUNTS_MAX) lineCounts.clear();
    lineCounts.set(line, (n = countTokens(line)));
  }
  return n;
}

export const ACTION_VERBS = [
  "Open",
  "Edit",
  "Run",
  "Follow",
  "Respect",
  "Check",
  "Read",
  "Update",
  "Avoid",
  "Verify",
  "Add",
  "Use",
  "Keep",
];
const PLACEHOLDER = /\b(TODO|TBD|FIXME|lorem ipsum|undefined|null|NaN)\b|\{\w+\}|<placeholder>|\?\?\?/;

/** The paper's structural audit over a set of cards. */
export function auditCards(cards: readonly Card[]): CardAudit {
  const problems: string[] = [];
  let complete = 0;
  let verbs = 0;
  let clean = 0;
  for (const c of cards) {
    const fields = [c.trigger, c.evidence, c.action_hint, c.failure_if_ignored, c.scope];
    if (fields.every((f) => f.trim().length > 0)) complete++;
    else problems.push(`${c.id}: empty field`);
    if (ACTION_VERBS.some((v) => c.action_hint.startsWith(`${v} `))) verbs++;
    else problems.push(`${c.id}: action hint without a verb: ${c.action_hint.slice(0, 40)}`);
    if (fields.some((f) => PLACEHOLDER.test(f))) problems.push(`${c.id}: placeholder text`);
    else clean++;
  }
  const n = Math.max(1, cards.length);
  const raw = cards.reduce((a, c) => a + c.raw_tokens, 0);
  const tok = cards.reduce((a, c) => a + c.tokens, 0);
  return {
    cards: cards.length,
    fieldCompleteness: cards.length ? complete / n : 1,
    actionHints: cards.length ? verbs / n : 1,
    noPlaceholders: cards.length ? clean / n : 1,
    tokenRatio: raw > 0 ? Math.round((tok / raw) * 1000) / 1000 : 0,
    problems,
  };
}
