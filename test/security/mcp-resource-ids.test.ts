// Hostile ids in resource URIs: malformed encoding, over-long ids and path tricks are the caller's errors
// (Invalid Params, bounded messages), never internal errors and never reads outside the store.
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";

import { MAX_ID_CHARS } from "../../src/limits.js";
import { connect } from "../helpers/mcp.js";
import { tmpDir } from "../helpers/tmp.js";

async function refused(read: Promise<unknown>): Promise<string> {
  const err = await read.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(McpError);
  expect((err as McpError).code).toBe(ErrorCode.InvalidParams);
  return (err as McpError).message;
}

describe("resource ids", () => {
  it("refuse malformed, over-long and path-like ids as Invalid Params", async () => {
    const c = await connect({ flags: { root: tmpDir(), embedder: "offline" }, env: { MEMCARDS_HOME: tmpDir() } });
    try {
      for (const uri of ["memcards://cards/%E0%A4%A", "memcards://sessions/%ZZ/summary"])
        expect(await refused(c.client.readResource({ uri }))).toMatch(/BAD_INPUT: .*not valid percent-encoding/);
      const long = "a".repeat(50_000);
      for (const uri of [`memcards://cards/${long}`, `memcards://sessions/${long}/summary`]) {
        const message = await refused(c.client.readResource({ uri }));
        expect(message).toMatch(new RegExp(`BAD_INPUT: a (card|session) id has at most ${MAX_ID_CHARS} characters`));
        expect(message.length).toBeLessThan(500);
      }
      const path = await refused(c.client.readResource({ uri: "memcards://cards/..%2F..%2Fetc%2Fpasswd" }));
      expect(path).toMatch(/NOT_FOUND: no card \.\.\/\.\.\/etc\/passwd was served/);
      expect(path).not.toMatch(/root:/);
    } finally {
      await c.close();
    }
  });
});
