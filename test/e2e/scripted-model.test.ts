// The scripted Messages API the Claude Code tests run against: it replays the script to the main loop as SSE,
// answers compaction and side requests by their shape, records every request, and stays on the loopback.
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { classify, COMPACT_SUMMARY, type ScriptedModel, startScriptedModel } from "../helpers/scripted-model.js";

const TOOLS = [{ name: "Bash" }, { name: "Edit" }];

async function post(url: string, body: unknown): Promise<Response> {
  return fetch(`${url}/v1/messages?beta=true`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
}

/** The events of an SSE body, in order. */
function events(sse: string): { type: string; [k: string]: unknown }[] {
  return sse
    .split("\n\n")
    .filter((b) => b.includes("data: "))
    .map((b) => JSON.parse(b.slice(b.indexOf("data: ") + 6)) as { type: string });
}

describe("the scripted model", () => {
  let model: ScriptedModel;
  beforeAll(async () => {
    model = await startScriptedModel([
      [{ type: "tool_use", name: "Edit", input: { file_path: "/x", old_string: "a" } }],
    ]);
  });
  afterAll(async () => {
    await model.close();
  });

  it("listens on 127.0.0.1 only", () => {
    expect(model.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it("streams the next scripted turn to a main-loop request, then plain text once the script is used up", async () => {
    const body = {
      model: "claude-x",
      max_tokens: 32000,
      stream: true,
      tools: TOOLS,
      messages: [{ role: "user", content: "go" }],
    };
    const first = events(await (await post(model.url, body)).text());
    expect(first.map((e) => e.type)).toEqual([
      "message_start",
      "content_block_start",
      "content_block_delta",
      "content_block_stop",
      "message_delta",
      "message_stop",
    ]);
    expect(first[1]).toMatchObject({ content_block: { type: "tool_use", name: "Edit" } });
    expect(JSON.parse((first[2] as unknown as { delta: { partial_json: string } }).delta.partial_json)).toEqual({
      file_path: "/x",
      old_string: "a",
    });
    expect(first[4]).toMatchObject({ delta: { stop_reason: "tool_use" } });
    const second = events(await (await post(model.url, body)).text());
    expect(second[2]).toMatchObject({ delta: { type: "text_delta", text: "Done." } });
    expect(second[4]).toMatchObject({ delta: { stop_reason: "end_turn" } });
    expect(model.main()).toHaveLength(2);
    expect(model.requests[0]!.body.messages).toEqual([{ role: "user", content: "go" }]);
  });

  it("answers a compaction with an <analysis> and a <summary> block, and side calls with plain text", async () => {
    const compact = {
      model: "claude-x",
      max_tokens: 32000,
      tools: TOOLS,
      messages: [
        { role: "user", content: "Your task is to create a detailed summary of the conversation so far ... <summary>" },
      ],
    };
    const c = (await (await post(model.url, compact)).json()) as { content: { text: string }[] };
    expect(c.content[0]!.text).toBe(COMPACT_SUMMARY);
    const side = { model: "claude-haiku-x", max_tokens: 512, messages: [{ role: "user", content: "title?" }] };
    const s = (await (await post(model.url, side)).json()) as { content: { type: string }[]; stop_reason: string };
    expect(s.content[0]!.type).toBe("text");
    expect(s.stop_reason).toBe("end_turn");
    expect(model.requests.slice(-2).map((r) => r.kind)).toEqual(["compact", "side"]);
  });

  it("classifies by shape; refuses what is not JSON; 404s other paths", async () => {
    expect(classify("/v1/messages/count_tokens", {})).toBe("count_tokens");
    expect(classify("/v1/messages", { model: "m", max_tokens: 64000, tools: TOOLS, messages: [] })).toBe("main");
    expect(classify("/v1/messages", { model: "m", max_tokens: 64000, messages: [] })).toBe("side");
    expect(classify("/v1/messages", { model: "claude-haiku", max_tokens: 64000, tools: TOOLS, messages: [] })).toBe(
      "side",
    );
    const bad = await fetch(`${model.url}/v1/messages`, {
      method: "POST",
      body: "{nope",
      signal: AbortSignal.timeout(5000),
    });
    expect(bad.status).toBe(400);
    const other = await fetch(`${model.url}/v1/models`, { signal: AbortSignal.timeout(5000) });
    expect(other.status).toBe(404);
  });
});
