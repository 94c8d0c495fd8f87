// What became of an error a session hit, read from its events alone: whether it is worth a unit (the person
// reported it, it persisted through an attempt at a fix, or it was left unresolved), and what the events prove of
// its resolution (the same command ran clean at a later turn; the one file edited in between). A fix is never
// guessed from what came after: a unit that says less is better than one that names the wrong fix.
import type { Failure, Turn } from "../conversation/schema.js";
import { callsWithResults, runParts, sameRun, type SessionEvent } from "../transcript/events/events.js";
import { resultFailed } from "../transcript/events/failures.js";
import { commandText } from "../transcript/events/ledger.js";

/** An edit of a project file, at the position of its turn in the span. */
export interface FateEdit {
  path: string;
  i: number;
}

/** What the events say of one error: whether to keep it, and the sentence on its resolution (empty for none). */
export interface Fate {
  worth: boolean;
  /** Why it is kept: reported by the person, persisted through an edit, or left unresolved. */
  why: "reported" | "persisted" | "unresolved" | "none";
  resolution: string;
  /** The turn that proved it resolved, and the one file the fix changed, when the events tie one. */
  resolvedAt?: string;
  fixedIn?: string;
  /** The one file edited after the person's report and before they spoke again (no run proves it the fix). */
  answeredBy?: string;
}

/** The longest command named in a resolution; a longer one is "the same command", never cut. */
const MAX_COMMAND = 100;

type Run = Extract<SessionEvent, { type: "run" }>;
/** A command part that says what it runs: a program and something it runs it on. */
const NAMES_A_RUN = /^[\w./-]*[A-Za-z]{2,}[\w./-]*\s+\S/;

/**
 * The commands whose result a turn holds, with their outcome: read from that turn and the one before it (a call's
 * result may come in the next turn), not from the whole span.
 */
function runsAt(span: readonly Turn[], i: number): Run[] {
  if (i < 0) return [];
  const from = Math.max(0, i - 1);
  const out: Run[] = [];
  for (const { call, result, resultAt } of callsWithResults(span.slice(from, i + 1))) {
    const command = commandText(call.input);
    if (!result || resultAt !== i - from || !command) continue;
    const parts = runParts(command);
    if (parts.length === 0) continue;
    const turn = span[i]!.id;
    out.push({ type: "run", turn, at: i, command, key: parts.join(" && "), parts, ok: !resultFailed(result, call) });
  }
  return out;
}

/** The part of a failing run that a later clean run repeats, with that clean run. */
function rerun(
  runs: readonly Run[],
  failedAt: string,
  passedAt: string,
): { part: string; fail: Run; pass: Run } | undefined {
  const pass = runs.find((r) => r.turn === passedAt && r.ok);
  if (!pass) return undefined;
  let found: { part: string; fail: Run; pass: Run } | undefined;
  for (const fail of runs.filter((r) => r.turn === failedAt && !r.ok))
    for (const part of fail.parts) {
      if (!pass.parts.some((p) => sameRun(p, part))) continue;
      // A part that names what it runs; a brace or a bare word of a compound command only says it was the same.
      if (NAMES_A_RUN.test(part)) return { part, fail, pass };
      found ??= { part: "", fail, pass };
    }
  return found;
}

/** The files edited after position `from` and at or before `to`. */
function editedBetween(edits: readonly FateEdit[], from: number, to: number): string[] {
  return [...new Set(edits.filter((e) => e.i > from && e.i <= to).map((e) => e.path))];
}

/**
 * The fate of an error: kept when the person reported it, when it was hit again after an edit (the first attempt did
 * not fix it), or when it was left unresolved (no later clean run and no edit after it). An error the agent hit in
 * its own run and got past with its next edits is a step of the work, not worth recalling.
 */
export function failureFate(
  f: Pick<Failure, "category" | "turn" | "last_turn" | "resolved" | "open">,
  span: readonly Turn[],
  edits: readonly FateEdit[],
  /** Where the person's next request after the error's last hit is, if they spoke again. */
  nextRequest: number | undefined,
): Fate {
  const index = new Map(span.map((t, i) => [t.id, i]));
  const first = index.get(f.turn) ?? -1;
  const last = index.get(f.last_turn) ?? first;
  const editsAfter = editedBetween(edits, last, span.length);
  const persisted = last > first && editedBetween(edits, first, last).length > 0;
  // A session whose record shows no edit at all (an IDE chat's export keeps them in prose) cannot tell.
  const seesEdits = edits.length > 0;
  const unresolved = !f.resolved && (seesEdits ? editsAfter.length === 0 : f.open === true);
  const why =
    f.category === "user-reported" ? "reported" : persisted ? "persisted" : unresolved ? "unresolved" : "none";
  const fate: Fate = { worth: why !== "none", why, resolution: "" };
  if (f.resolved) {
    const again = rerun([...runsAt(span, last), ...runsAt(span, index.get(f.resolved) ?? -1)], f.last_turn, f.resolved);
    const passAt = index.get(f.resolved) ?? last;
    const fixed = editedBetween(edits, again ? (index.get(again.fail.turn) ?? last) : last, passAt);
    const one = fixed.length === 1 ? fixed[0] : undefined;
    const what = again?.part && again.part.length <= MAX_COMMAND ? `\`${again.part}\`` : "the same command";
    const after = one ? ` after ${one} was edited` : "";
    // The turn by its place in the session (t57), as the summary names turns: a client's own turn ids can be UUIDs.
    const at = span[passAt] && index.has(f.resolved) ? `t${span[passAt].index}` : f.resolved;
    fate.resolution = again
      ? ` Resolved: ${what} ran clean at turn ${at}${after}.`
      : ` Resolved: a later run of the same command or file ran clean at turn ${at}.`;
    fate.resolvedAt = f.resolved;
    if (one && again) fate.fixedIn = one;
    return fate;
  }
  if (unresolved && seesEdits) {
    // Nothing after it ran the same command clean or edited the project: what the events show, no more.
    fate.resolution = " No later run of it passed in the session.";
    return fate;
  }
  // The person's report, not hit again: the one file edited before they spoke next is what the events tie to it. It
  // is kept on the unit's record, not said in its text: no run proves it fixed the error, and the change unit of the
  // same request names that file already (said twice, the two crowd a search's results).
  if (why === "reported") {
    const between = editedBetween(edits, last, (nextRequest ?? span.length) - 1);
    if (between.length === 1) fate.answeredBy = between[0];
  }
  return fate;
}
