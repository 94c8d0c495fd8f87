// Inputs are bounded where the tools read them (the error names the field and the limit), results are
// bounded where they leave, and an error never echoes bulk input back.
import { describe, expect, it } from "vitest";
import { z } from "zod";

import { OutcomeInput, recordOutcome } from "../../src/cards/service.js";
import { toAppError } from "../../src/errors.js";
import { MAX_IDS, MAX_INLINE_CHARS, MAX_PATH_CHARS, MAX_RESULT_CHARS } from "../../src/limits.js";
import { fail, ok } from "../../src/mcp/result.js";
import { openDatabase } from "../../src/storage/db.js";
import { upsertProject } from "../../src/storage/projects.js";
import { CompressInput } from "../../src/transcript/compression/compress.js";
import { connect, textOf } from "../helpers/mcp.js";
import { tmpDir } from "../helpers/tmp.js";

async function call(name: string, args: Record<string, unknown>) {
  const c = await connect({ flags: { root: tmpDir() }, env: { MEMCARDS_HOME: tmpDir() } });
  try {
    const res = await c.client.callTool({ name, arguments: args });
    return { isError: Boolean(res.isError), text: textOf(res), structured: res.structuredContent };
  } finally {
    await c.close();
  }
}

describe("tool input limits", () => {
  it("refuse an over-long path, naming the field and the limit", async () => {
    const long = "a/".repeat(MAX_PATH_CHARS);
    const cards = await call("get_memory_cards", { task: "fix the parser", files: ["ok.py", long] });
    expect(cards.isError).toBe(true);
    expect(cards.text).toMatch(new RegExp(`<=${MAX_PATH_CHARS} characters at files\\[1\\]`));
    expect(cards.text.length).toBeLessThan(2000);
    const mem = await call("record_memory", { category: "learning", text: "x", files: [long] });
    expect(mem.text).toMatch(/files\[0\]/);
    const neighbors = await call("graph_neighbors", { ref: long });
    expect(neighbors.text).toMatch(new RegExp(`${MAX_PATH_CHARS}.*ref`));
  });

  it("refuse too many ids and too much inline conversation", async () => {
    const ids = Array.from({ length: MAX_IDS + 1 }, (_, i) => `c${i}`);
    const outcome = await call("record_outcome", { helped: ids });
    expect(outcome.isError).toBe(true);
    expect(outcome.text).toMatch(new RegExp(`${MAX_IDS}.*helped`));
    const chunk = "word ".repeat(360_000);
    const messages = [1, 2, 3].map(() => ({ role: "user", content: chunk }));
    const compress = await call("compress_context", { messages });
    expect(compress.isError).toBe(true);
    expect(compress.text).toMatch(new RegExp(`${MAX_INLINE_CHARS} characters .*messages`));
    expect(compress.text.length).toBeLessThan(2000);
  });

  it("reach the command line and domain callers as BAD_INPUT with the field and the limit", () => {
    const content = "x".repeat(MAX_INLINE_CHARS / 2);
    const r = CompressInput.safeParse({ messages: [1, 2, 3].map(() => ({ role: "user", content })) });
    expect(r.success).toBe(false);
    const e = toAppError(r.error);
    expect(e.code).toBe("BAD_INPUT");
    expect(e.message).toMatch(new RegExp(`^messages: at most ${MAX_INLINE_CHARS} characters`));
    // What took seconds (3.9M characters of one unbroken run) is refused before any of it is read.
    const big = CompressInput.safeParse({
      messages: [1, 2].map(() => ({ role: "user", content: "x".repeat(1_950_000) })),
    });
    expect(big.success).toBe(false);
    const ids = OutcomeInput.safeParse({ helped: ["x".repeat(201)] });
    expect(toAppError(ids.error).message).toMatch(/^helped\.0: Too big: expected string to have <=200 characters/);
    // A thousand problems are summarized, not listed.
    const many = z.array(z.string().max(1)).safeParse(Array.from({ length: 1000 }, () => "xx"));
    expect(toAppError(many.error).message).toMatch(/and 990 more problems$/);
  });
});

describe("bounded results", () => {
  it("record_outcome counts unknown ids and names only a few, once", async () => {
    const ids = Array.from({ length: MAX_IDS }, (_, i) => `${"z".repeat(150)}${i}`);
    const all = await call("record_outcome", { helped: ids });
    expect(all.isError).toBe(true);
    expect(all.text).toMatch(/^NOT_FOUND: none of the 1000 card ids .* and 995 more was served/);
    expect(all.text.length).toBeLessThan(1000);
    const dir = tmpDir();
    const db = openDatabase(`${dir}/m.db`);
    const projectId = upsertProject(db, "p", dir).id;
    const r = recordOutcome(
      { db, projectId, unitKeyOfCard: () => undefined },
      { helped: ids, editedFiles: ["src/a.ts"] },
    );
    expect(r).toMatchObject({ recorded: 1, unknownCount: MAX_IDS });
    expect(r.unknown).toHaveLength(5);
    db.close();
    const some = await call("record_outcome", { helped: ids, edited_files: ["src/a.ts"] });
    expect(some.isError).toBe(false);
    expect(some.text).toMatch(/^Recorded 1 outcome\. 1000 unknown card ids: .* and 995 more\.$/);
    expect(JSON.stringify(some.structured).length).toBeLessThan(1500);
  });

  it("cut text and drop structured content past the result cap, and clip error messages", () => {
    const rows = { rows: "y".repeat(MAX_RESULT_CHARS + 1) };
    const big = ok("x".repeat(MAX_RESULT_CHARS * 2), rows);
    const text = (big.content[0] as { text: string }).text;
    expect(text.length).toBeLessThan(MAX_RESULT_CHARS + 200);
    expect(text).toMatch(/\[result cut at 1000000 characters of 2000000\]$/);
    expect(big.structuredContent).toEqual({
      truncated: `structured result of ${JSON.stringify(rows).length} characters: left out rows`,
    });
    // A tool's result keeps its required fields and loses its optional ones, largest first, only as needed.
    const half = "z".repeat(MAX_RESULT_CHARS / 2);
    const cut = ok("t", { id: 1, audit: half, ranking: `${half}!`, note: "small" }, ["audit", "ranking", "note"]);
    expect(cut.structuredContent).toMatchObject({ id: 1, audit: half, note: "small" });
    expect(cut.structuredContent?.truncated).toMatch(/: left out ranking$/);
    // Required fields over the cap fail the call rather than break the tool's output schema.
    expect(() => ok("t", { id: half + half }, [])).toThrow(/over the result cap/);
    const small = ok("fine", { n: 1 });
    expect(small).toEqual({ content: [{ type: "text", text: "fine" }], structuredContent: { n: 1 } });
    const err = fail(new Error("z".repeat(5_000_000)));
    expect((err.content[0] as { text: string }).text.length).toBeLessThan(2100);
  });
});
