// Collects turns while a parser reads, with skip and ignore counters and stable ids.
import type { Role, ToolCall, ToolResult, Turn, TurnKind } from "../../conversation/schema.js";
import { echoesAgent, injectedKind } from "../extraction/human.js";
import type { Transcript, TranscriptFormat } from "../schema.js";

export interface TurnInput {
  id?: string;
  role: Role;
  kind?: TurnKind;
  text?: string;
  tool_calls?: ToolCall[];
  tool_results?: ToolResult[];
  timestamp?: string;
  sidechain?: boolean;
}

/** Accumulates a transcript; parsers call `turn`, `skip` and `ignore`, then `done`. */
export class TurnSink {
  readonly turns: Turn[] = [];
  private skipReasons: Record<string, number> = {};
  private ignored: Record<string, number> = {};
  partialTail = false;
  title: string | undefined;
  sessionId: string | undefined;
  cwd: string | undefined;
  /** What the agent said since the person last spoke: a user turn that repeats it is the client's, not theirs. */
  private agentSaid = "";

  constructor(readonly format: TranscriptFormat) {}

  /** Adds a turn; a user message holding only injected text (system, skill, CI, hook, interruption) becomes meta. */
  turn(t: TurnInput): Turn {
    const index = this.turns.length;
    const kind = t.kind ?? "message";
    const person = kind === "message" && t.role === "user" && !t.sidechain;
    const injected = person && (injectedKind(t.text ?? "") || echoesAgent(t.text ?? "", this.agentSaid));
    if (person) this.agentSaid = "";
    else if (kind === "message" && t.role === "assistant" && !t.sidechain && t.text)
      this.agentSaid = `${this.agentSaid}\n${t.text}`.slice(-100_000);
    const turn: Turn = {
      id: t.id ?? `t${index}`,
      index,
      role: t.role,
      kind: injected ? "meta" : kind,
      text: (t.text ?? "").trim(),
      tool_calls: t.tool_calls ?? [],
      tool_results: t.tool_results ?? [],
      ...(t.timestamp ? { timestamp: t.timestamp } : {}),
      ...(t.sidechain ? { sidechain: true } : {}),
    };
    this.turns.push(turn);
    return turn;
  }

  skip(reason: string): void {
    this.skipReasons[reason] = (this.skipReasons[reason] ?? 0) + 1;
  }

  ignore(reason: string): void {
    this.ignored[reason] = (this.ignored[reason] ?? 0) + 1;
  }

  done(): Transcript {
    const skipped = Object.values(this.skipReasons).reduce((a, b) => a + b, 0);
    return {
      format: this.format,
      turns: this.turns,
      skipped,
      skip_reasons: this.skipReasons,
      ignored: this.ignored,
      partial_tail: this.partialTail,
      ...(this.title ? { title: this.title } : {}),
      ...(this.sessionId ? { session_id: this.sessionId } : {}),
      ...(this.cwd ? { cwd: this.cwd } : {}),
    };
  }
}

/** Splits JSONL text into records; a cut-off final line is reported, other bad lines are skipped. */
export function jsonLines(text: string, sink: TurnSink): unknown[] {
  const lines = text.split("\n");
  const endsClean = text.endsWith("\n");
  const out: unknown[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (!line) continue;
    try {
      out.push(JSON.parse(line));
    } catch {
      if (i === lines.length - 1 && !endsClean) {
        sink.partialTail = true;
        sink.skip("partial_last_line");
      } else sink.skip("malformed_json");
    }
  }
  return out;
}

/** Text of a string or an array of `{type: "text", text}`-like blocks. */
export function blockText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  const parts: string[] = [];
  for (const b of content) {
    if (typeof b === "string") parts.push(b);
    else if (b && typeof b === "object") {
      const o = b as Record<string, unknown>;
      if (typeof o.text === "string") parts.push(o.text);
      else if (o.type === "image" || o.type === "input_image") parts.push("[image]");
    }
  }
  return parts.join("\n");
}

export function asRecord(v: unknown): Record<string, unknown> {
  return v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

export function str(v: unknown): string | undefined {
  return typeof v === "string" ? v : undefined;
}

/** Parses a JSON-encoded tool argument string; a bare string is kept under `command`. */
export function parseArgs(args: unknown): Record<string, unknown> {
  if (args && typeof args === "object" && !Array.isArray(args)) return args as Record<string, unknown>;
  if (typeof args !== "string") return {};
  try {
    const v: unknown = JSON.parse(args);
    if (v && typeof v === "object" && !Array.isArray(v)) return v as Record<string, unknown>;
  } catch {
    /* not JSON: a raw command or patch */
  }
  return { command: args };
}
