// A scripted Anthropic Messages API on 127.0.0.1: replays assistant turns (text and tool_use) to a real client
// such as Claude Code, answers the client's own side requests sensibly, and records every request it receives.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** One content block of a scripted assistant turn. */
export type ScriptBlock =
  { type: "text"; text: string } | { type: "tool_use"; name: string; input: Record<string, unknown>; id?: string };

/** A request as it arrived: path, headers and the parsed JSON body. */
export interface RecordedRequest {
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: MessagesBody;
  /** How the harness classified it: the agent's main loop, a compaction, or a side call (titles, summaries). */
  kind: "main" | "compact" | "side" | "count_tokens" | "other";
}

export interface MessagesBody {
  model?: string;
  max_tokens?: number;
  stream?: boolean;
  system?: unknown;
  tools?: { name: string }[];
  messages?: { role: string; content: unknown }[];
  [key: string]: unknown;
}

/** A step of the script: fixed blocks, or a function of the request (it may wait, e.g. for a hook's work). */
export type ScriptStep = ScriptBlock[] | ((req: RecordedRequest) => ScriptBlock[] | Promise<ScriptBlock[]>);

export interface ScriptedModel {
  /** http://127.0.0.1:<port>, for ANTHROPIC_BASE_URL. */
  url: string;
  /** Every request received, in order. */
  requests: RecordedRequest[];
  /** Appends steps; each main-loop request takes the next one (plain text "Done." once the script is used up). */
  push(...steps: ScriptStep[]): void;
  /** Steps not yet taken. */
  pending(): number;
  /** The main-loop requests only. */
  main(): RecordedRequest[];
  close(): Promise<void>;
}

/** The text the summary request of a compaction asks for (an <analysis> block, then a <summary> block). */
export const COMPACT_SUMMARY =
  "<analysis>The user asked for a scripted change; it was made.</analysis>\n<summary>1. Primary Request and Intent: the scripted change.\n2. Pending Tasks: none.</summary>";

/** Every text in a value (strings, and the `text` of content blocks), joined by newlines. */
export function textIn(value: unknown): string {
  if (typeof value === "string") return value;
  if (Array.isArray(value)) return value.map(textIn).join("\n");
  if (value && typeof value === "object") {
    const o = value as Record<string, unknown>;
    if (typeof o.text === "string") return o.text;
    if ("content" in o) return textIn(o.content);
  }
  return "";
}

/** Classifies a request by its shape, the way a model sees it. */
export function classify(path: string, body: MessagesBody): RecordedRequest["kind"] {
  if (path.includes("/count_tokens")) return "count_tokens";
  if (!path.startsWith("/v1/messages")) return "other";
  const last = body.messages?.at(-1);
  const lastText = last && last.role === "user" ? textIn(last.content) : "";
  // Claude Code's compaction prompt asks for plain text: an <analysis> block followed by a <summary> block.
  if (/<summary>/.test(lastText) && /create a detailed summary of the conversation/i.test(lastText)) return "compact";
  const tools = body.tools ?? [];
  // The agent loop offers its tools (Bash, Edit, …); title and other side calls offer none, or run on a small model.
  if (tools.length > 0 && !/haiku/i.test(body.model ?? "") && (body.max_tokens ?? 0) > 1024) return "main";
  return "side";
}

let ids = 0;

function sendStream(res: ServerResponse, model: string, blocks: ScriptBlock[]): void {
  const id = `msg_scripted_${++ids}`;
  const event = (type: string, data: Record<string, unknown>) =>
    res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  event("message_start", {
    message: {
      id,
      type: "message",
      role: "assistant",
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 100, output_tokens: 1 },
    },
  });
  blocks.forEach((b, index) => {
    if (b.type === "text") {
      event("content_block_start", { index, content_block: { type: "text", text: "" } });
      event("content_block_delta", { index, delta: { type: "text_delta", text: b.text } });
    } else {
      event("content_block_start", {
        index,
        content_block: { type: "tool_use", id: b.id ?? `toolu_scripted_${++ids}`, name: b.name, input: {} },
      });
      event("content_block_delta", {
        index,
        delta: { type: "input_json_delta", partial_json: JSON.stringify(b.input) },
      });
    }
    event("content_block_stop", { index });
  });
  const stop = blocks.some((b) => b.type === "tool_use") ? "tool_use" : "end_turn";
  event("message_delta", { delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 20 } });
  event("message_stop", {});
  res.end();
}

function sendJson(res: ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(value));
}

function sendMessage(res: ServerResponse, model: string, blocks: ScriptBlock[]): void {
  sendJson(res, 200, {
    id: `msg_scripted_${++ids}`,
    type: "message",
    role: "assistant",
    model,
    content: blocks.map((b, i) =>
      b.type === "text" ? b : { type: "tool_use", id: b.id ?? `toolu_scripted_${i}`, name: b.name, input: b.input },
    ),
    stop_reason: blocks.some((b) => b.type === "tool_use") ? "tool_use" : "end_turn",
    stop_sequence: null,
    usage: { input_tokens: 100, output_tokens: 20 },
  });
}

const MAX_BODY = 32 * 1024 * 1024;

/** Starts the scripted model on a free loopback port. */
export async function startScriptedModel(steps: ScriptStep[] = []): Promise<ScriptedModel> {
  const script = [...steps];
  const requests: RecordedRequest[] = [];

  async function answer(req: IncomingMessage, res: ServerResponse, raw: string): Promise<void> {
    const path = req.url ?? "/";
    let body: MessagesBody = {};
    try {
      body = raw ? (JSON.parse(raw) as MessagesBody) : {};
    } catch {
      sendJson(res, 400, { type: "error", error: { type: "invalid_request_error", message: "body is not JSON" } });
      return;
    }
    const kind = classify(path, body);
    const rec: RecordedRequest = { path, headers: req.headers, body, kind };
    requests.push(rec);
    if (kind === "other") {
      sendJson(res, 404, { type: "error", error: { type: "not_found_error", message: `no route ${path}` } });
      return;
    }
    if (kind === "count_tokens") {
      sendJson(res, 200, { input_tokens: Math.ceil(raw.length / 4) });
      return;
    }
    let blocks: ScriptBlock[];
    if (kind === "compact") blocks = [{ type: "text", text: COMPACT_SUMMARY }];
    else if (kind === "side") blocks = [{ type: "text", text: "Scripted session" }];
    else {
      const step = script.shift();
      blocks =
        step === undefined ? [{ type: "text", text: "Done." }] : typeof step === "function" ? await step(rec) : step;
    }
    const model = body.model ?? "claude-scripted";
    if (body.stream) sendStream(res, model, blocks);
    else sendMessage(res, model, blocks);
  }

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) req.destroy();
      else chunks.push(c);
    });
    req.on("end", () => {
      answer(req, res, Buffer.concat(chunks).toString("utf8")).catch((err: unknown) => {
        if (!res.headersSent) sendJson(res, 500, { type: "error", error: { type: "api_error", message: String(err) } });
        else res.end();
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    push: (...more) => void script.push(...more),
    pending: () => script.length,
    main: () => requests.filter((r) => r.kind === "main"),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
