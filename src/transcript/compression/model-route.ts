// The optional client-model route of compression (MCP sampling, where the client offers it): the client's
// model rewrites the narrative sections (Session Intent, Current State, Next Steps) from the deterministic
// summary and the latest messages. One bounded request; the rewrite is kept only when it parses and loses no
// probe the deterministic summary holds; otherwise the deterministic summary stands. The result says which ran.
import type { Turn } from "../../conversation/schema.js";
import type { Db } from "../../storage/db.js";
import { replaceSummaryMarkdown } from "../../storage/summaries.js";
import { count } from "../../text/plural.js";
import { countTokens } from "../../text/tokens.js";
import { conversational, prose } from "../extraction/extract.js";
import { SECTION_TITLES } from "../rendering/render.js";
import type { Probe } from "../schema.js";
import type { Compression } from "./compress.js";
import { checkProbes } from "./probes.js";

/** Asks the client's model; resolves to its text. */
export type AskModel = (prompt: string, opts: { maxTokens: number; timeoutMs: number }) => Promise<string>;

export const MODEL_ROUTE_TIMEOUT_MS = 20_000;
export const MODEL_ROUTE_MAX_TOKENS = 700;
/** Tokens of the latest conversation shown to the model. */
const RECENT_TOKENS = 6000;

export const NARRATIVE = ["intent", "state", "next"] as const;

export interface ModelRoute {
  route: "model" | "deterministic";
  /** Why the deterministic summary stands, when it does. */
  reason?: string;
  ms: number;
}

function latestConversation(span: readonly Turn[]): string {
  const parts: string[] = [];
  let used = 0;
  for (let i = span.length - 1; i >= 0 && used < RECENT_TOKENS; i--) {
    const t = span[i]!;
    if ((t.role !== "user" && t.role !== "assistant") || !conversational(t)) continue;
    const text = prose(t.text).trim();
    if (!text) continue;
    const n = countTokens(text);
    const piece =
      n + used > RECENT_TOKENS ? text.slice(0, Math.floor(((RECENT_TOKENS - used) / n) * text.length)) : text;
    parts.unshift(`${t.role} (${t.id}): ${piece}`);
    used += Math.min(n, RECENT_TOKENS - used);
  }
  return parts.join("\n\n");
}

export function modelPrompt(summary: string, span: readonly Turn[]): string {
  return [
    "You maintain the running summary of a coding session. Below are the current summary and the latest messages.",
    `Rewrite only these three sections, in at most 220 words together, keeping every file path, identifier, command and number exactly as written: ${NARRATIVE.map((k) => `"## ${SECTION_TITLES[k]}"`).join(", ")}.`,
    "Session Intent: what the user is trying to achieve overall. Current State: where the work stands now (what is done, what is verified, what is broken). Next Steps: the concrete next actions, as a list.",
    "Answer with exactly those three markdown headings and their bodies, nothing else.",
    `<summary>\n${summary}\n</summary>`,
    `<latest_messages>\n${latestConversation(span)}\n</latest_messages>`,
  ].join("\n\n");
}

/** An answer wrapped whole in a ```markdown fence is unwrapped. */
function unwrapFence(text: string): string {
  const m = /^\s*```[a-z]*\n([\s\S]*?)\n```\s*$/.exec(text);
  return m ? m[1]! : text;
}

/** The bodies of the three headings in the model's answer; undefined when one is missing or empty. */
export function parseNarrative(text: string): Record<(typeof NARRATIVE)[number], string> | undefined {
  const out: Partial<Record<(typeof NARRATIVE)[number], string>> = {};
  for (const k of NARRATIVE) {
    const title = SECTION_TITLES[k].replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
    const m = new RegExp(`^#{1,3}\\s*${title}\\s*$([\\s\\S]*?)(?=^#{1,3}\\s|$(?![\\s\\S]))`, "m").exec(text);
    const body = m?.[1]?.trim();
    if (!body) return undefined;
    out[k] = body;
  }
  return out as Record<(typeof NARRATIVE)[number], string>;
}

/** The summary with the narrative sections' bodies replaced. */
export function replaceSections(summary: string, bodies: Record<(typeof NARRATIVE)[number], string>): string {
  let md = summary;
  for (const k of NARRATIVE) {
    const title = SECTION_TITLES[k].replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
    md = md.replace(
      new RegExp(`(^## ${title}\\s*\\n)([\\s\\S]*?)(?=^## |$(?![\\s\\S]))`, "m"),
      (_m, head: string) => `${head}${bodies[k]}\n\n_(client model)_\n\n`,
    );
  }
  return md.trimEnd();
}

/**
 * Runs the route: returns the rewritten summary when the model answered in shape within the bounds and
 * every probe the deterministic summary passes still passes; otherwise the deterministic summary.
 */
export async function runModelRoute(
  ask: AskModel,
  summary: string,
  span: readonly Turn[],
  probes: Probe[],
  /** The most tokens the summary may hold (its budget). */
  limit = Number.POSITIVE_INFINITY,
): Promise<{ markdown: string; route: ModelRoute }> {
  const t0 = performance.now();
  const ms = () => Math.round(performance.now() - t0);
  let text: string;
  try {
    text = await ask(modelPrompt(summary, span), {
      maxTokens: MODEL_ROUTE_MAX_TOKENS,
      timeoutMs: MODEL_ROUTE_TIMEOUT_MS,
    });
  } catch (err) {
    return {
      markdown: summary,
      route: {
        route: "deterministic",
        reason: `the client's model did not answer: ${(err as Error).message}`,
        ms: ms(),
      },
    };
  }
  const bodies = parseNarrative(unwrapFence(text));
  if (!bodies)
    return {
      markdown: summary,
      route: { route: "deterministic", reason: "the model's answer lacked one of the three sections", ms: ms() },
    };
  if (NARRATIVE.some((k) => bodies[k].includes("```")))
    return {
      markdown: summary,
      route: { route: "deterministic", reason: "the rewrite contained code blocks", ms: ms() },
    };
  const rewritten = replaceSections(summary, bodies);
  // Every probe the deterministic summary passes must still pass (gaining another does not make up for it).
  const failedBefore = new Set(checkProbes(probes, summary).failed);
  const lost = checkProbes(probes, rewritten).failed.filter((p) => !failedBefore.has(p));
  if (lost.length > 0)
    return {
      markdown: summary,
      route: {
        route: "deterministic",
        reason: `the rewrite lost ${count(lost.length, "fact")} the summary held`,
        ms: ms(),
      },
    };
  const size = countTokens(rewritten);
  if (size > countTokens(summary) * 1.25 + 100 || size > Math.max(limit, countTokens(summary)))
    return {
      markdown: summary,
      route: { route: "deterministic", reason: "the rewrite was too long for the budget", ms: ms() },
    };
  return { markdown: rewritten, route: { route: "model", ms: ms() } };
}

/**
 * Applies the route to a finished compression: when the model's rewrite is kept, the stored summary and the
 * returned markdown carry it. `ask` is absent when the client offers no sampling.
 */
export async function withModelRoute<R extends Compression & { seq?: number }>(
  db: Db,
  r: R,
  route: "auto" | "deterministic",
  ask: AskModel | undefined,
): Promise<R & { route: ModelRoute }> {
  if (route === "deterministic") return { ...r, route: { route: "deterministic", reason: "asked for", ms: 0 } };
  if (!ask) return { ...r, route: { route: "deterministic", reason: "the client offers no sampling", ms: 0 } };
  if (r.seq === undefined || r.span.length === 0)
    return { ...r, route: { route: "deterministic", reason: "nothing new was summarized", ms: 0 } };
  // The rewrite keeps within the budget, and within the session's own size.
  const limit = Math.min(r.stats.budget.tokens, r.stats.tokens_total_before);
  const out = await runModelRoute(ask, r.summary.markdown, r.span, r.probe_list, limit);
  if (out.route.route !== "model") {
    r.notes.push(`Client-model route not used: ${out.route.reason}; the deterministic summary stands.`);
    return { ...r, route: out.route };
  }
  replaceSummaryMarkdown(db, r.session_id, r.seq, out.markdown);
  return {
    ...r,
    markdown: `${out.markdown}${r.markdown.slice(r.summary.markdown.length)}`,
    summary: { ...r.summary, markdown: out.markdown },
    route: out.route,
  };
}
