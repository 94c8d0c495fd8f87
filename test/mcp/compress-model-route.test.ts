// compress_context's client-model route through MCP sampling: kept when in shape and lossless, else the
// deterministic summary stands; the result says which ran.
import { describe, expect, it } from "vitest";

import { connect, textOf } from "../helpers/mcp.js";
import { writeSession } from "../helpers/session.js";
import { tmpDir } from "../helpers/tmp.js";

type Structured = Record<string, unknown>;

/** A model that copies the summary's own Next Steps (so no fact is lost) under new intent/state prose. */
function faithful(prompt: string): string {
  const summary = /<summary>\n([\s\S]*?)\n<\/summary>/.exec(prompt)?.[1] ?? "";
  const next = /## Next Steps\n([\s\S]*?)(?=\n## |$)/.exec(summary)?.[1]?.trim() ?? "- continue";
  return [
    "## Session Intent",
    "Fix the sitemap routes of Harmony and land the PR.",
    "## Current State",
    "MODEL-STATE: the routes are patched and the tests pass locally.",
    "## Next Steps",
    next,
  ].join("\n");
}

describe("compress_context client-model route", () => {
  it("uses the client's model where sampling is offered and stores the rewrite", async () => {
    const prompts: string[] = [];
    const root = tmpDir();
    const c = await connect({
      flags: { root, embedder: "offline" },
      env: { MEMCARDS_HOME: tmpDir() },
      sampling: (p) => {
        prompts.push(p);
        return faithful(p);
      },
    });
    try {
      const res = await c.client.callTool({
        name: "compress_context",
        arguments: { transcript_path: writeSession(root, "long.jsonl", 60) },
      });
      expect(res.isError).toBeFalsy();
      expect((res.structuredContent as Structured).route).toBe("model");
      expect(prompts).toHaveLength(1);
      expect(prompts[0]).toContain("<latest_messages>");
      expect(textOf(res)).toContain("MODEL-STATE");
      expect(textOf(res)).toMatch(/Route: the client's model rewrote/);
      const stored = await c.client.callTool({ name: "get_summary", arguments: {} });
      expect(textOf(stored)).toContain(
        "MODEL-STATE: the routes are patched and the tests pass locally.\n\n_(client model)_",
      );

      // Asked for the deterministic route: no request reaches the model.
      const again = await c.client.callTool({
        name: "compress_context",
        arguments: { transcript_path: writeSession(root, "other.jsonl"), route: "deterministic" },
      });
      expect((again.structuredContent as Structured).route).toBe("deterministic");
      expect(prompts).toHaveLength(1);
    } finally {
      await c.close();
    }
  });

  it("keeps the deterministic summary when the answer is out of shape or loses a fact", async () => {
    let calls = 0;
    const root = tmpDir();
    const c = await connect({
      flags: { root, embedder: "offline" },
      env: { MEMCARDS_HOME: tmpDir() },
      sampling: () =>
        ++calls === 1
          ? "## Session Intent\nWork.\n## Current State\nFine.\n## Next Steps\n- MODEL-NEXT: carry on"
          : "Sure! Here is a summary of the session.",
    });
    try {
      // A session ending with open task items: a generic Next Steps would drop them.
      const lossy = await c.client.callTool({
        name: "compress_context",
        arguments: { transcript_path: writeSession(root, "lossy.jsonl") },
      });
      expect((lossy.structuredContent as Structured).route).toBe("deterministic");
      expect(textOf(lossy)).toMatch(/Client-model route not used: the rewrite lost \d+ facts? the summary held/);
      expect(textOf(lossy)).not.toContain("MODEL-NEXT");

      const shapeless = await c.client.callTool({
        name: "compress_context",
        arguments: { transcript_path: writeSession(root, "other.jsonl") },
      });
      expect((shapeless.structuredContent as Structured).route).toBe("deterministic");
      expect(textOf(shapeless)).toMatch(
        /Client-model route not used: the model's answer lacked one of the three sections/,
      );
      expect(textOf(shapeless)).toContain("## Next Steps");
    } finally {
      await c.close();
    }
  });

  it("says the route is deterministic when the client offers no sampling", async () => {
    const root = tmpDir();
    const c = await connect({ flags: { root, embedder: "offline" }, env: { MEMCARDS_HOME: tmpDir() } });
    try {
      const res = await c.client.callTool({
        name: "compress_context",
        arguments: { transcript_path: writeSession(root, "other.jsonl") },
      });
      expect((res.structuredContent as Structured).route).toBe("deterministic");
      expect(textOf(res)).toContain("Route: deterministic.");
    } finally {
      await c.close();
    }
  });
});
