// Every tool declares an output schema, and the SDK client validates every tool's structuredContent against it.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { JsonSchemaType, jsonSchemaValidator } from "@modelcontextprotocol/sdk/validation";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { describe, expect, it } from "vitest";
import { z } from "zod";

import { silentLogger } from "../../src/log.js";
import type { ToolDeps } from "../../src/mcp/context.js";
import { TOOLS } from "../../src/mcp/register.js";
import { defineTool } from "../../src/mcp/tool.js";
import { connect, textOf } from "../helpers/mcp.js";
import { copyInto, tmpDir } from "../helpers/tmp.js";
import { copyPolyglot } from "../repo/fixture.js";
import { fixture } from "../transcript/data.js";

type Structured = Record<string, unknown>;

/** The SDK's own validator, counting the results it checked per output schema. */
function countingValidator(): { validator: jsonSchemaValidator; checked: Map<JsonSchemaType, number> } {
  const ajv = new AjvJsonSchemaValidator();
  const checked = new Map<JsonSchemaType, number>();
  return {
    checked,
    validator: {
      getValidator<T>(schema: JsonSchemaType) {
        const validate = ajv.getValidator<T>(schema);
        return (input: unknown) => {
          const r = validate(input);
          if (r.valid) checked.set(schema, (checked.get(schema) ?? 0) + 1);
          return r;
        };
      },
    },
  };
}

/** Every property name a JSON Schema declares, at any depth. */
function declaredKeys(schema: unknown): string[] {
  if (!schema || typeof schema !== "object") return [];
  const s = schema as { properties?: Record<string, unknown> };
  return [
    ...Object.keys(s.properties ?? {}),
    ...Object.entries(schema).flatMap(([k, v]) =>
      k === "properties" ? Object.values(v as object).flatMap(declaredKeys) : declaredKeys(v),
    ),
  ];
}

describe("output schemas", () => {
  it("are listed for every tool, closed to undeclared keys, with room for the truncation note", async () => {
    const c = await connect({ flags: { root: tmpDir() }, env: { MEMCARDS_HOME: tmpDir() } });
    try {
      const { tools } = await c.client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(TOOLS.map((t) => t.name).sort());
      expect(tools.flatMap((t) => declaredKeys(t.outputSchema))).toEqual(
        expect.arrayContaining(["client_sampling", "raw_turns", "regex_fallback", "elapsed_ms"]),
      );
      for (const t of tools) {
        expect(t.outputSchema, t.name).toMatchObject({
          type: "object",
          additionalProperties: false,
          properties: { truncated: { type: "string" } },
        });
        expect(t.outputSchema?.required?.length, t.name).toBeGreaterThan(0);
        for (const key of declaredKeys(t.outputSchema)) expect(key, t.name).toMatch(/^[a-z][a-z0-9_]*$/);
      }
    } finally {
      await c.close();
    }
  });

  it("hold for every tool's result, as the SDK client checks them", async () => {
    const root = copyPolyglot();
    const { validator, checked } = countingValidator();
    const c = await connect({
      flags: { root, embedder: "offline" },
      env: { MEMCARDS_HOME: tmpDir() },
      sampling: () => "no judgement today",
      validator,
    });
    try {
      // The client compiles a validator per output schema when it lists the tools; calls are then checked.
      const { tools } = await c.client.listTools();
      const results = new Map<string, Structured>();
      const call = async (name: string, args: Structured) => {
        const res = await c.client.callTool({ name, arguments: args }, undefined, { timeout: 120_000 });
        expect(res.isError, `${name}: ${textOf(res)}`).toBeFalsy();
        results.set(name, res.structuredContent as Structured);
        return res.structuredContent as Structured;
      };
      await call("status", {});
      const started = await call("build_context_graph", { wait: false });
      expect(started.state).toBe("running");
      await call("build_context_graph", { job_id: started.job_id });
      const built = await call("build_context_graph", { watch: false });
      expect(built).toMatchObject({ state: "done", files: { regex_fallback: expect.any(Number) } });
      await call("graph_neighbors", { ref: "pyproj/shapes/geometry.py" });
      const compressed = await call("compress_context", {
        transcript_path: copyInto(root, fixture("claude-code.jsonl")),
      });
      await call("get_summary", { session_id: compressed.session_id });
      const cards = await call("get_memory_cards", { task: "Circle.area in pyproj/shapes/geometry.py", verbose: true });
      expect(cards).toHaveProperty("audit");
      const first = (cards.cards as { id: string }[])[0]!.id;
      await call("record_outcome", { helped: [first], edited_files: ["pyproj/shapes/geometry.py"] });
      const stored = await call("record_memory", { category: "learning", text: "geometry tests need numpy" });
      await call("search_memory", { query: "numpy geometry", include_raw: true });
      await call("recall", {});
      const forgot = await call("forget", { id: stored.id });
      expect(forgot).toEqual({ memories: 1, raw_turns: 0, summaries: 0, purged: true });

      expect([...results.keys()].sort()).toEqual(tools.map((t) => t.name).sort());
      for (const t of tools) expect(checked.get(t.outputSchema as JsonSchemaType), t.name).toBeGreaterThan(0);
      // The validator is the strict one: a key the schema does not declare is refused.
      const status = tools.find((t) => t.name === "status")!;
      const strict = new AjvJsonSchemaValidator().getValidator(status.outputSchema as JsonSchemaType);
      expect(strict({ ...results.get("status"), schemaVersion: 1 }).valid).toBe(false);
    } finally {
      await c.close();
    }
  }, 240_000);

  it("turn a result outside its schema into an INTERNAL error and drop keys it does not declare", async () => {
    const server = new McpServer({ name: "t", version: "1" });
    const deps: ToolDeps = {
      app: () => Promise.reject(new Error("no app here")),
      roots: () => Promise.resolve([]),
      clientModel: () => undefined,
      logger: silentLogger,
      version: "test",
    };
    const tool = (name: string, data: Structured) =>
      defineTool({
        name,
        title: name,
        description: name,
        input: z.object({}).strict(),
        output: z.object({ n: z.number() }),
        annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
        run: () => ({ text: "done", data: data as { n: number } }),
      }).register(server, deps);
    tool("wrong", { n: "one" });
    tool("extra", { n: 1, secret_extra: true });
    const client = new Client({ name: "t", version: "1" });
    const [a, b] = InMemoryTransport.createLinkedPair();
    await Promise.all([server.connect(a), client.connect(b)]);
    try {
      await client.listTools();
      const wrong = await client.callTool({ name: "wrong", arguments: {} });
      expect(wrong.isError).toBe(true);
      expect(wrong.structuredContent).toBeUndefined();
      expect(textOf(wrong)).toMatch(/^INTERNAL: wrong built a result outside its output schema/);
      const extra = await client.callTool({ name: "extra", arguments: {} });
      expect(extra.structuredContent).toEqual({ n: 1 });
    } finally {
      await client.close();
      await server.close();
    }
  });
});
