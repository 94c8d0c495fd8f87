// The wire is a contract: every tool's name, description, annotations and input and output JSON Schemas, as a
// real SDK client lists them, are the committed snapshot (taken over stdio from `memcards serve`). A change to
// it is a change clients see: update the snapshot on purpose (`npx vitest run test/mcp/tools-list.test.ts -u`).
import { describe, expect, it } from "vitest";

import { connect } from "../helpers/mcp.js";
import { tmpDir } from "../helpers/tmp.js";

describe("tools/list", () => {
  it("is the committed snapshot, key for key and in order", async () => {
    const c = await connect({ flags: { root: tmpDir() }, env: { MEMCARDS_HOME: tmpDir() } });
    try {
      const { tools } = await c.client.listTools();
      await expect(`${JSON.stringify(tools, null, 2)}\n`).toMatchFileSnapshot("./__snapshots__/tools-list.json");
    } finally {
      await c.close();
    }
  });
});
