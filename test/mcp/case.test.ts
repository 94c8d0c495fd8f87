// The edge's renaming: wire schemas derived from camelCase ones keep what the inside declared, and values cross
// the edge with their keys renamed where the schema names them, and only there.
import { describe, expect, it } from "vitest";
import { z } from "zod";

import { camelCase, fromWire, snakeCase, toWire, wireSchema } from "../../src/text/case.js";

const Inner = z.object({ elapsedMs: z.number(), phase: z.string() });
const Shape = z
  .object({
    budgetTokens: z.number().int().min(50).max(500).default(120).describe("token budget"),
    sessionId: z.string().max(10).optional().describe("the session"),
    progress: Inner.optional(),
    steps: z.array(Inner).max(3).optional(),
    byName: z.record(z.string(), Inner).optional(),
    plain: z.boolean().default(false),
  })
  .strict();

describe("case at the edge", () => {
  it("renames names both ways", () => {
    expect(snakeCase("budgetTokens")).toBe("budget_tokens");
    expect(snakeCase("already_snake")).toBe("already_snake");
    expect(camelCase("budget_tokens")).toBe("budgetTokens");
    expect(camelCase("files_per_second")).toBe("filesPerSecond");
  });

  it("derives the wire schema with descriptions, defaults, limits and strictness kept", () => {
    const json = z.toJSONSchema(wireSchema(Shape), { io: "input" }) as {
      properties: Record<string, Record<string, unknown>>;
      additionalProperties: boolean;
    };
    expect(Object.keys(json.properties)).toEqual([
      "budget_tokens",
      "session_id",
      "progress",
      "steps",
      "by_name",
      "plain",
    ]);
    expect(json.properties.budget_tokens).toMatchObject({
      default: 120,
      minimum: 50,
      maximum: 500,
      description: "token budget",
    });
    expect(json.properties.session_id).toMatchObject({ maxLength: 10, description: "the session" });
    expect(json.properties.steps).toMatchObject({ maxItems: 3 });
    expect(JSON.stringify(json.properties.progress)).toContain("elapsed_ms");
    expect(json.additionalProperties).toBe(false);
    // The wire schema parses snake_case and refuses the inside's names.
    expect(wireSchema(Shape).safeParse({ budgetTokens: 100 }).success).toBe(false);
    expect(wireSchema(Shape).parse({ budget_tokens: 100 })).toEqual({ budget_tokens: 100, plain: false });
    // Nothing to rename: the very same schema.
    const flat = z.object({ task: z.string() });
    expect(wireSchema(flat)).toBe(flat);
  });

  it("turns wire arguments into the inside's names and results back, record keys left as data", () => {
    const wire = wireSchema(Shape).parse({
      budget_tokens: 100,
      session_id: "s1",
      steps: [{ elapsed_ms: 3, phase: "scan" }],
      by_name: { "out:imports": { elapsed_ms: 1, phase: "parse" } },
    });
    const inside = fromWire(Shape, wire);
    expect(inside).toEqual({
      budgetTokens: 100,
      sessionId: "s1",
      steps: [{ elapsedMs: 3, phase: "scan" }],
      byName: { "out:imports": { elapsedMs: 1, phase: "parse" } },
      plain: false,
    });
    expect(Shape.parse(inside)).toEqual(inside);
    expect(toWire(Shape, inside)).toEqual(wire);
  });

  it("refuses two keys that meet on the wire", () => {
    expect(() => wireSchema(z.object({ aB: z.number(), a_b: z.number() }))).toThrow(/a_b/);
  });

  it("renames an object default to the wire's names, so the published default is one a client may send", () => {
    const withDefault = z.object({ progress: Inner.default({ elapsedMs: 1, phase: "scan" }) });
    const json = z.toJSONSchema(wireSchema(withDefault), { io: "input" }) as {
      properties: Record<string, Record<string, unknown>>;
    };
    expect(json.properties.progress!.default).toEqual({ elapsed_ms: 1, phase: "scan" });
    expect(fromWire(withDefault, wireSchema(withDefault).parse({}))).toEqual({
      progress: { elapsedMs: 1, phase: "scan" },
    });
  });

  it("refuses what it cannot carry to the wire rather than publish or check the inside's names", () => {
    // An object check would see the wire's names, and a check on the inside's always fails there.
    const checked = z
      .object({ budgetTokens: z.number(), keepRecent: z.number() })
      .refine((v) => v.keepRecent < v.budgetTokens, { path: ["keepRecent"] });
    expect(() => wireSchema(checked)).toThrow(/check/);
    // Keys inside a transform, a tuple, an intersection or a lazy schema would reach the wire in camelCase.
    expect(() => wireSchema(z.object({ p: Inner.transform((v) => v) }))).toThrow(/elapsedMs/);
    expect(() => wireSchema(z.object({ t: z.tuple([Inner]) }))).toThrow(/elapsedMs/);
    expect(() => wireSchema(z.object({ i: Inner.and(z.object({ kind: z.string() })) }))).toThrow(/elapsedMs/);
    expect(() => wireSchema(z.object({ l: z.lazy(() => Inner) }))).toThrow(/elapsedMs/);
    // A capital run or a leading capital has no one snake form (idSHA would be id_s_h_a).
    expect(() => wireSchema(z.object({ idSHA: z.string() }))).toThrow(/idSHA/);
    expect(() => wireSchema(z.object({ URL: z.string() }))).toThrow(/URL/);
    // Digits are kept where they stand.
    expect(Object.keys(wireSchema(z.object({ p95Ms: z.number(), bm25: z.number() })).shape)).toEqual([
      "p95_ms",
      "bm25",
    ]);
    // Checks and transforms with nothing to rename stay as they are.
    const plain = z.object({ n: z.number().transform((x) => x * 2) }).refine((v) => v.n > 0);
    expect(wireSchema(plain)).toBe(plain);
  });
});
