// Resources over a real MCP client: an unknown id is a clear not-found error (Invalid Params), never internal.
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";

import { connect } from "../helpers/mcp.js";
import { copyInto, tmpDir } from "../helpers/tmp.js";
import { fixture } from "../transcript/data.js";

/** The JSON-RPC error a read ends in. */
async function readError(read: Promise<unknown>): Promise<McpError> {
  const err = await read.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(McpError);
  return err as McpError;
}

describe("resources", () => {
  it("answer an unknown card or session with Invalid Params naming the id", async () => {
    const root = tmpDir();
    const c = await connect({ flags: { root, embedder: "offline" }, env: { MEMCARDS_HOME: tmpDir() } });
    try {
      const card = await readError(c.client.readResource({ uri: "memcards://cards/c0ffee1234" }));
      expect(card.code).toBe(ErrorCode.InvalidParams);
      expect(card.message).toMatch(/NOT_FOUND: no card c0ffee1234 was served/);
      const none = await readError(c.client.readResource({ uri: "memcards://sessions/nope/summary" }));
      expect(none.code).toBe(ErrorCode.InvalidParams);
      expect(none.message).toMatch(/NOT_FOUND: no summary for session nope/);

      // Nothing stored yet is an empty list, not an error.
      const listed = await c.client.listResources();
      expect(listed.resources.map((r) => r.uri).sort()).toEqual(["memcards://graph/stats", "memcards://project/brief"]);
      const done = await c.client.complete({
        ref: { type: "ref/resource", uri: "memcards://sessions/{id}/summary" },
        argument: { name: "id", value: "" },
      });
      expect(done.completion.values).toEqual([]);

      await c.client.callTool({
        name: "compress_context",
        arguments: { transcript_path: copyInto(root, fixture("claude-code.jsonl")), session_id: "s-1" },
      });
      const other = await readError(c.client.readResource({ uri: "memcards://sessions/s-2/summary" }));
      expect(other.message).toMatch(/no summary for session s-2; sessions with one: /);
      const known = (await c.client.listResources()).resources.filter((r) => r.uri.endsWith("/summary"));
      expect(known).toHaveLength(1);
      const read = await c.client.readResource({ uri: known[0]!.uri });
      expect((read.contents[0] as { text: string }).text).toContain("## Next Steps");
    } finally {
      await c.close();
    }
  });

  it("read the graph statistics and the brief of a project with nothing in it", async () => {
    const c = await connect({ flags: { root: tmpDir(), embedder: "offline" }, env: { MEMCARDS_HOME: tmpDir() } });
    try {
      const stats = await c.client.readResource({ uri: "memcards://graph/stats" });
      expect(JSON.parse((stats.contents[0] as { text: string }).text)).toMatchObject({ state: "empty", files: 0 });
      const brief = await c.client.readResource({ uri: "memcards://project/brief" });
      expect((brief.contents[0] as { text: string }).text).toMatch(/No memory for this project yet/);
    } finally {
      await c.close();
    }
  });
});
