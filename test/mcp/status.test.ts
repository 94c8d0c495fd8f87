import { realpathSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

import { describe, expect, it } from "vitest";

import { countTokens } from "../../src/text/tokens.js";
import { connect, textOf } from "../helpers/mcp.js";
import { tmpDir } from "../helpers/tmp.js";

describe("status tool over the in-memory transport", () => {
  it("lists status with all four annotations and an input schema", async () => {
    const root = tmpDir();
    const c = await connect({ flags: { root }, env: { MEMCARDS_HOME: tmpDir() } });
    try {
      const { tools } = await c.client.listTools();
      const status = tools.find((t) => t.name === "status");
      expect(status).toBeDefined();
      expect(status?.annotations).toMatchObject({
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      });
      expect(status?.inputSchema.type).toBe("object");
      expect(countTokens(JSON.stringify(tools))).toBeLessThan(5150);
    } finally {
      await c.close();
    }
  });

  it("reports root, database and embedder; structuredContent stays small", async () => {
    const root = realpathSync(tmpDir());
    const c = await connect({ flags: { root, embedder: "offline" }, env: { MEMCARDS_HOME: tmpDir() } });
    try {
      const res = await c.client.callTool({ name: "status", arguments: {} });
      expect(res.isError).toBeFalsy();
      const text = textOf(res);
      expect(text).toContain(`root: ${root} (from flag)`);
      expect(text).toContain(join(root, ".memcards", "memcards.db"));
      expect(text).toMatch(/embedder: offline:hash-v1:256 \(offline, 256-d\)/);
      expect(res.structuredContent).toMatchObject({ root, embedder_mode: "offline" });
      expect(countTokens(JSON.stringify(res.structuredContent))).toBeLessThan(150);
    } finally {
      await c.close();
    }
  });

  it("uses the client's MCP roots when no root is given", async () => {
    const root = realpathSync(tmpDir());
    const c = await connect({ roots: [pathToFileURL(root).href], env: { MEMCARDS_HOME: tmpDir(), MEMCARDS_ROOT: "" } });
    try {
      const res = await c.client.callTool({ name: "status", arguments: {} });
      expect(textOf(res)).toContain(`root: ${root} (from mcp-roots)`);
    } finally {
      await c.close();
    }
  });

  it("falls back to the per-user store with cwd / and no roots", async () => {
    const home = realpathSync(tmpDir());
    const c = await connect({ env: { MEMCARDS_HOME: home, MEMCARDS_ROOT: "" }, cwd: "/" });
    try {
      const res = await c.client.callTool({ name: "status", arguments: {} });
      expect(textOf(res)).toContain(`root: ${home} (from user-store)`);
    } finally {
      await c.close();
    }
  });

  it("rejects unknown arguments with an error the model can read", async () => {
    const c = await connect({ flags: { root: tmpDir() }, env: { MEMCARDS_HOME: tmpDir() } });
    try {
      const res = await c.client.callTool({ name: "status", arguments: { bogus: 1 } }).catch((e: Error) => e);
      const message = res instanceof Error ? res.message : textOf(res);
      expect(message).toMatch(/bogus|unrecognized/i);
      if (!(res instanceof Error)) expect(res.isError).toBe(true);
    } finally {
      await c.close();
    }
  });

  it("returns isError with the fix when the root is wrong", async () => {
    const c = await connect({ flags: { root: "/no/such/project" }, env: { MEMCARDS_HOME: tmpDir() } });
    try {
      const res = await c.client.callTool({ name: "status", arguments: {} });
      expect(res.isError).toBe(true);
      expect(textOf(res)).toMatch(/NOT_FOUND: .*\/no\/such\/project does not exist/);
    } finally {
      await c.close();
    }
  });
});
