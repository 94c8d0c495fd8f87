// Probes: facts from the raw turns that the summary must still hold; a deterministic normalized-substring check.
import type { Turn } from "../../conversation/schema.js";
import { displayPath, fileEvents } from "../events/ledger.js";
import { conversational, prose } from "../extraction/extract.js";
import { classifyTurn, instructionSentences } from "../extraction/human-classes.js";
import type { Probe, ProbeType } from "../schema.js";

/** Lowercase, markdown emphasis and quotes unified, whitespace collapsed. */
export function normalize(s: string): string {
  return s
    .toLowerCase()
    .replace(/[\u2018\u2019]/g, "'")
    .replace(/[\u201c\u201d]/g, '"')
    .replace(/[`*_]/g, "")
    .replace(/\s+/g, " ")
    .trim();
}

function head(s: string, max: number): string {
  const one = s.replace(/\s+/g, " ").trim();
  if (one.length <= max) return one;
  const cut = one.slice(0, max);
  const sp = cut.lastIndexOf(" ");
  return sp > max / 2 ? cut.slice(0, sp) : cut;
}

const EXC = /\b([A-Z]\w*(?:Error|Exception))\b(?::\s*([^\n]{0,50}))?/;
const OP_VERB = /^(edited|written|created|added|updated|deleted|changed|moved|applied|diff|edit)/;

/** Probes generated from the raw turns of the summarized span, at most `max`, spread over the span. */
export function generateProbes(turns: Turn[], cwd: string | undefined, max = 60): Probe[] {
  const probes: Probe[] = [];
  const seen = new Set<string>();
  const add = (type: ProbeType, expect: string[], turn: string, fact: string): void => {
    const key = `${type}:${expect.map(normalize).join("|")}`;
    if (seen.has(key) || expect.some((e) => normalize(e).length < 3)) return;
    seen.add(key);
    probes.push({ type, expect, turn, fact });
  };
  // Artifacts: every changed path, with what was done to it.
  const byPath = new Map<string, { op: string; turn: string }>();
  for (const e of fileEvents(turns)) byPath.set(displayPath(e.path, cwd), { op: e.op, turn: e.turn });
  for (const [path, { op, turn }] of byPath) {
    const verb = OP_VERB.exec(op)?.[1] ?? op.split(/\s+/)[0] ?? "changed";
    add("artifact", [path, verb], turn, `- \`${path}\` — ${op} (${turn})`);
  }
  for (const t of turns) {
    if (t.kind !== "message") continue;
    // Errors: exceptions named in failed tool results and user reports.
    const texts = [
      ...t.tool_results.filter((r) => r.is_error || EXC.test(r.output)).map((r) => r.output),
      ...(t.role === "user" && !t.sidechain ? [t.text] : []),
    ];
    for (const text of texts) {
      const m = EXC.exec(text);
      if (m) add("error", [m[1]!], t.id, `- ${head(m[0], 160)} (${t.id})`);
      else {
        // A failed tool call: its error line, or its first line when it names no error word.
        const lines = text
          .split("\n")
          .map((l) => l.replace(/<\/?tool_use_error>/g, "").trim())
          .filter(Boolean);
        const first = lines.find((l) => /error|failed|cannot|not found/i.test(l)) ?? lines[0];
        if (first && t.tool_results.some((r) => r.is_error))
          add("error", [head(first.trim(), 50)], t.id, `- ${head(first.trim(), 200)} (${t.id})`);
      }
    }
    // A constraint probe only where the person set a standing instruction (the human-turn classifier), its first
    // rule sentence whole.
    if (t.role === "user" && conversational(t) && classifyTurn(t.text, t.kind) === "instruction") {
      const first = instructionSentences(t.text)[0]?.trim();
      if (first) add("constraint", [head(first, 48)], t.id, `- "${first}" (${t.id})`);
    }
    if (t.role === "assistant" && conversational(t)) {
      for (const s of prose(t.text).split(/(?<=[.!?])\s+|\n/)) {
        if (
          /^\s*[A-Za-z]/.test(s) &&
          /\b(decided to|I'?ll use|instead of|rather than|chose|switch(?:ed)? to)\b/i.test(s) &&
          s.length > 30 &&
          s.length < 300
        ) {
          add("decision", [head(s.trim(), 48)], t.id, `- ${head(s.trim(), 240)} (${t.id})`);
        }
      }
    }
  }
  // Next steps: the latest task list's open items.
  for (let i = turns.length - 1; i >= 0; i--) {
    const t = turns[i]!;
    const todo = t.tool_calls.find((c) => c.name === "TodoWrite" && Array.isArray(c.input.todos));
    if (!todo) continue;
    for (const x of todo.input.todos as Record<string, unknown>[]) {
      if (x.status !== "completed" && typeof x.content === "string")
        add("next", [head(x.content, 48)], t.id, `- ${x.content} (${String(x.status)}) (${t.id})`);
    }
    break;
  }
  if (probes.length <= max) return probes;
  // Keep every type represented, then spread the rest evenly.
  const step = probes.length / max;
  return Array.from({ length: max }, (_, i) => probes[Math.floor(i * step)]!);
}

export interface ProbeReport {
  total: number;
  passed: number;
  score: number;
  by_type: Partial<Record<ProbeType, { total: number; passed: number }>>;
  failed: Probe[];
}

/** Checks probes against a text. */
export function checkProbes(probes: Probe[], text: string): ProbeReport {
  const hay = normalize(text);
  const failed: Probe[] = [];
  const byType: ProbeReport["by_type"] = {};
  for (const p of probes) {
    const ok = p.expect.every((e) => hay.includes(normalize(e)));
    const bt = (byType[p.type] ??= { total: 0, passed: 0 });
    bt.total++;
    if (ok) bt.passed++;
    else failed.push(p);
  }
  const passed = probes.length - failed.length;
  return { total: probes.length, passed, score: probes.length ? passed / probes.length : 1, by_type: byType, failed };
}
