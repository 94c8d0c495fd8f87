// Secrets never reach a summary, a memory unit, the archive or a hook's output, whatever the transcript format:
// one small transcript per supported format carries canary secrets (credentials in URLs of several schemes,
// `key=value` and `key: value` in sentences, a `.env` body, provider keys) in the user's text, a tool's output,
// an edited file's content and the edit operation. Each goes through compress_context over the real MCP SDK client
// (store, summary, search, recall), inline distillation, and the PreCompact / SessionStart hooks; then every
// output, every row of every table and the bytes of the database and its WAL are searched for the canary.
import { join } from "node:path";

import { describe, expect, it } from "vitest";

import { compressContext } from "../../src/session/compress.js";
import { openDatabase } from "../../src/storage/db.js";
import { upsertProject } from "../../src/storage/projects.js";
import { runCli } from "../helpers/cli.js";
import { connect, textOf } from "../helpers/mcp.js";
import { tmpDir } from "../helpers/tmp.js";
import { dbBytes, ftsTerms } from "./canaries.js";
import { CANARY_WORD, FORMAT_WRITERS } from "./canary-formats.js";

/** Where the canary word occurs in `text` (any case), with a little context for the failure message. */
function hits(text: string): string[] {
  const out: string[] = [];
  const lower = text.toLowerCase();
  for (let at = lower.indexOf(CANARY_WORD); at >= 0 && out.length < 5; at = lower.indexOf(CANARY_WORD, at + 1))
    out.push(text.slice(Math.max(0, at - 60), at + 30).replace(/\s+/g, " "));
  return out;
}

/** Every row of every table (virtual tables' shadow tables included), as text per table. */
function tableDumps(path: string): [string, string][] {
  const db = openDatabase(path);
  try {
    const tables = db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
      .all() as { name: string }[];
    const out: [string, string][] = [];
    for (const { name } of tables) {
      let rows: unknown[];
      try {
        rows = db.prepare(`SELECT * FROM "${name.replace(/"/g, '""')}"`).all();
      } catch {
        continue; // a virtual table whose module is not loaded here is read through its shadow tables
      }
      const text = JSON.stringify(rows, (_k, v: unknown) =>
        Buffer.isBuffer(v) || v instanceof Uint8Array ? Buffer.from(v).toString("latin1") : v,
      );
      out.push([name, text]);
    }
    return out;
  } finally {
    db.close();
  }
}

describe("canary secrets in every transcript format", () => {
  it("reach no summary, unit, archive, hook output, table or byte of the store", async () => {
    const root = tmpDir("memcards-canary-");
    const dbPath = join(tmpDir(), "canary.db");
    const home = tmpDir();
    const outputs: [string, string][] = [];
    const formats = Object.keys(FORMAT_WRITERS);
    const c = await connect({ flags: { root, db: dbPath, embedder: "offline" }, env: { MEMCARDS_HOME: home } });
    try {
      for (const format of formats) {
        const path = FORMAT_WRITERS[format]!(root, `mcp-${format}`);
        const r = await c.client.callTool(
          {
            name: "compress_context",
            arguments: { transcript_path: path, session_id: `mcp-${format}`, keep_recent: 2, route: "deterministic" },
          },
          undefined,
          { timeout: 120_000 },
        );
        expect(r.isError, `${format}: ${textOf(r)}`).toBeFalsy();
        const sc = r.structuredContent as { source: { format: string } };
        expect(sc.source.format, "the transcript was read in its own format").toBe(format);
        expect(textOf(r), `${format}: the secrets reached the summary's input and were redacted`).toContain(
          "[redacted",
        );
        outputs.push([`compress_context ${format}`, `${textOf(r)}\n${JSON.stringify(r)}`]);
        const summary = await c.client.callTool({ name: "get_summary", arguments: { session_id: `mcp-${format}` } });
        outputs.push([`get_summary ${format}`, JSON.stringify(summary)]);
      }
      for (const query of ["deploy credentials", "env settings database", "password key"]) {
        const s = await c.client.callTool({
          name: "search_memory",
          arguments: { query, include_raw: true, include_inactive: true, limit: 50 },
        });
        outputs.push([`search_memory ${query}`, JSON.stringify(s)]);
      }
      outputs.push([
        "recall",
        JSON.stringify(await c.client.callTool({ name: "recall", arguments: { budget_tokens: 6000 } })),
      ]);
    } finally {
      await c.close();
    }

    // Inline distillation into memory units, for every format.
    const db = openDatabase(dbPath);
    try {
      const project = upsertProject(db, "inline", root);
      for (const format of formats) {
        const r = compressContext(
          { db, projectId: project.id, root },
          { transcriptPath: FORMAT_WRITERS[format]!(root, `inline-${format}`), keepRecent: 0 },
        );
        expect(r.memories?.archived, `${format}: the turns reached the archive`).toBeGreaterThan(0);
        outputs.push([`inline ${format}`, `${r.markdown}\n${JSON.stringify(r.summary.sections)}`]);
      }
      const terms = [...ftsTerms(db)].filter((t) => t.includes(CANARY_WORD));
      expect(terms, "search index terms").toEqual([]);
    } finally {
      db.close();
    }

    // The hooks: PreCompact stores the compression, SessionStart after a compaction prints it.
    const env = { HOME: home, MEMCARDS_HOME: home, MEMCARDS_DB: dbPath };
    for (const format of formats) {
      const session = `hook-${format}`;
      const transcript = FORMAT_WRITERS[format]!(root, session);
      const pre = runCli(["hook", "PreCompact"], {
        cwd: root,
        env,
        input: JSON.stringify({ cwd: root, session_id: session, transcript_path: transcript }),
      });
      expect(pre.code, pre.stderr).toBe(0);
      const start = runCli(["hook", "SessionStart"], {
        cwd: root,
        env,
        input: JSON.stringify({ cwd: root, session_id: session, source: "compact" }),
      });
      expect(start.stdout, `${format}: SessionStart prints the stored summary`).toMatch(/^# memcards: this session/);
      outputs.push([`PreCompact ${format}`, pre.stdout + pre.stderr], [`SessionStart ${format}`, start.stdout]);
    }

    const leaks = outputs.flatMap(([what, text]) => hits(text).map((h) => `${what}: …${h}…`));
    expect(leaks).toEqual([]);
    // The channels carried the secrets' surroundings: redaction markers and the edited file are there.
    const all = outputs.map((o) => o[1]).join("\n");
    expect(all).toContain("[redacted");
    expect(all).toContain(".env");

    const tableLeaks = tableDumps(dbPath).flatMap(([table, text]) => hits(text).map((h) => `${table}: …${h}…`));
    expect(tableLeaks).toEqual([]);
    expect(hits(dbBytes(dbPath).toString("latin1"))).toEqual([]);
  }, 300_000);
});
