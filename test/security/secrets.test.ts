// No stored secrets: the canary corpus goes through every channel (record_memory, compress_context with its
// summary, raw archive and distillation, build_context_graph over a repo with settings.py and .env, memory cards
// and their resource, search, recall, the SessionStart hook), then no canary may appear in any result nor anywhere
// in the bytes of the database file and its WAL; the negatives must still be there.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

import { describe, expect, it } from "vitest";

import { compressContext } from "../../src/session/compress.js";
import { openDatabase } from "../../src/storage/db.js";
import { upsertProject } from "../../src/storage/projects.js";
import { runCli } from "../helpers/cli.js";
import { connect, textOf } from "../helpers/mcp.js";
import { tmpDir } from "../helpers/tmp.js";
import {
  canariesIn,
  type Canary,
  canaryText,
  corpus,
  dbBytes,
  ftsNeedlesOf,
  ftsTerms,
  leaked,
  needlesOf,
} from "./canaries.js";

const byKind = (kind: string): Canary => corpus.canaries.find((c) => c.kind === kind)!;

/** A small project whose settings.py and .env hold every canary, and whose app.py holds the negatives. */
function secretRepo(): string {
  const root = tmpDir("memcards-secrets-");
  const mysql = byKind("mysql url").canary;
  const pw = byKind(".env lower-case").canary;
  writeFileSync(
    join(root, "settings.py"),
    [
      '"""Settings of the shop."""',
      "import os",
      "",
      `CANARIES = """`,
      canaryText,
      `"""`,
      "",
      `def connect(url="mysql://shop:${mysql}@db.internal:3306/shop", password="${pw}"):`,
      "    return url",
      "",
    ].join("\n"),
  );
  writeFileSync(join(root, ".env"), `${canaryText}\n`);
  writeFileSync(
    join(root, "app.py"),
    [...corpus.negatives.map((n) => `# ${n}`), "", "def password_reset_view(request):", "    return request", ""].join(
      "\n",
    ),
  );
  return root;
}

/** A Claude Code transcript that carries every canary in user text, assistant text, tool inputs and outputs. */
function secretTranscript(dir: string, session: string): string {
  const lines: unknown[] = [];
  let n = 0;
  const push = (type: "user" | "assistant", content: unknown) =>
    lines.push({ type, uuid: `${session}-${++n}`, sessionId: session, message: { role: type, content } });
  push("user", "Set up the shop settings. Never log credentials.");
  corpus.canaries.forEach((c, i) => {
    push("user", `Never commit this line: ${c.text}`);
    push("assistant", [
      { type: "text", text: `I'll keep it out of the repository: ${c.text}` },
      { type: "tool_use", id: `t${i}`, name: "Bash", input: { command: `echo '${c.text}' > notes/secret${i}.txt` } },
    ]);
    push("user", [{ type: "tool_result", tool_use_id: `t${i}`, content: `wrote ${c.text}` }]);
  });
  push("user", "Always run the tests before pushing. The reset uses password_reset_view in app.py.");
  push("assistant", [
    { type: "text", text: "Updating config/settings.py now." },
    {
      type: "tool_use",
      id: "edit",
      name: "Edit",
      input: { file_path: join(dir, "config", "settings.py"), old_string: "x", new_string: canaryText },
    },
  ]);
  push("user", [{ type: "tool_result", tool_use_id: "edit", content: "ok" }]);
  push("assistant", "Done: settings updated, 12 tests passed.");
  const path = join(dir, `${session}.jsonl`);
  writeFileSync(path, lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
  return path;
}

function expectClean(what: string, text: string): void {
  expect(canariesIn(text), `${what} carries canaries`).toEqual([]);
}

describe("no stored secrets", () => {
  it("keeps every canary out of every result and out of the database file and its WAL", async () => {
    const root = secretRepo();
    mkdirSync(join(root, "config"));
    const dbPath = join(tmpDir(), "secrets.db");
    const home = tmpDir();
    const c = await connect({ flags: { root, db: dbPath, embedder: "offline" }, env: { MEMCARDS_HOME: home } });
    const results: [string, string][] = [];
    const call = async (name: string, args: Record<string, unknown>) => {
      const r = await c.client.callTool({ name, arguments: args }, undefined, { timeout: 120_000 });
      results.push([`${name} ${JSON.stringify(args).slice(0, 60)}`, `${textOf(r)}\n${JSON.stringify(r)}`]);
      return r;
    };
    try {
      // record_memory: every canary as a unit of its own, and the negatives.
      for (const [i, can] of corpus.canaries.entries()) {
        const r = await call("record_memory", {
          category: i % 2 ? "learning" : "commitment",
          text: `Keep ${can.text} out of the logs`,
          files: ["settings.py"],
        });
        expect(r.isError, textOf(r)).toBeFalsy();
      }
      const neg = await call("record_memory", {
        category: "learning",
        text: `Negatives stay: ${corpus.negatives.join(" ; ")}`,
      });
      expect(neg.isError, textOf(neg)).toBeFalsy();

      // compress_context: a transcript (summary, kept messages, background distillation) and raw messages.
      const transcript = secretTranscript(root, "sess-a");
      const comp = await call("compress_context", {
        transcript_path: transcript,
        keep_recent: 3,
        route: "deterministic",
      });
      expect(comp.isError, textOf(comp)).toBeFalsy();
      expect(textOf(comp)).toContain("## Files Modified");
      const msgs = await call("compress_context", {
        session_id: "sess-m",
        messages: corpus.canaries.flatMap((x) => [
          { role: "user", content: `Never use ${x.text} in tests` },
          { role: "assistant", content: `Noted: ${x.text}` },
        ]),
        keep_recent: 2,
      });
      expect(msgs.isError, textOf(msgs)).toBeFalsy();

      // build_context_graph over settings.py and .env; cards for a task that itself carries a secret.
      const built = await call("build_context_graph", {});
      expect(built.isError, textOf(built)).toBeFalsy();
      const cards = await call("get_memory_cards", {
        task: `connect() in settings.py fails with ${byKind("postgres url").text}; keep the logs clean`,
        files: ["settings.py"],
        session_id: "sess-a",
        budget_tokens: 4000,
      });
      expect(cards.isError, textOf(cards)).toBeFalsy();
      const ids = (cards.structuredContent as { cards: { id: string }[] }).cards.map((x) => x.id);
      expect(ids.length).toBeGreaterThan(0);
      for (const id of ids) {
        const res = await c.client.readResource({ uri: `memcards://cards/${id}` });
        results.push([`card ${id}`, JSON.stringify(res)]);
      }
      for (const q of ["logs", "credentials settings", "commit line"])
        await call("search_memory", { query: q, include_raw: true, include_inactive: true, limit: 50 });
      await call("recall", { budget_tokens: 5000 });
      await call("get_summary", { session_id: "sess-a" });
      await call("get_summary", { session_id: "sess-m" });
      await call("graph_neighbors", { path: "settings.py" });
      await call("graph_neighbors", { path: ".env" });
      const summary = await c.client.readResource({ uri: "memcards://sessions/sess-a/summary" });
      results.push(["summary resource", JSON.stringify(summary)]);
    } finally {
      await c.close();
    }

    // Distillation inline, outside the server, over the same transcript for another session.
    const db = openDatabase(dbPath);
    const project = upsertProject(db, "inline", root);
    const inline = compressContext(
      { db, projectId: project.id, root },
      { transcriptPath: secretTranscript(root, "sess-b"), keepRecent: 0 },
    );
    expect(inline.memories?.added).toBeGreaterThan(0);
    expect(inline.memories?.archived).toBeGreaterThan(0);
    results.push(["inline compression", inline.markdown]);
    // No search index holds a canary's tokens (the byte search can miss prefix-compressed terms).
    const terms = ftsTerms(db);
    expect(terms.has("password_reset_view")).toBe(true);
    expect(corpus.canaries.flatMap((x) => ftsNeedlesOf(x.canary)).filter((t) => terms.has(t))).toEqual([]);
    db.close();

    // The SessionStart hook after a compaction prints the stored summary of the session.
    const hookEnv = { HOME: home, MEMCARDS_HOME: home, MEMCARDS_DB: dbPath };
    const pre = runCli(["hook", "PreCompact"], {
      cwd: root,
      env: hookEnv,
      input: JSON.stringify({ cwd: root, session_id: "sess-h", transcript_path: secretTranscript(root, "sess-h") }),
    });
    expect(pre.code).toBe(0);
    const start = runCli(["hook", "SessionStart"], {
      cwd: root,
      env: hookEnv,
      input: JSON.stringify({ cwd: root, session_id: "sess-h", source: "compact" }),
    });
    expect(start.stdout).toMatch(/^# memcards: this session before compaction/);
    results.push(["SessionStart hook", start.stdout]);
    const brief = runCli(["hook", "SessionStart"], {
      cwd: root,
      env: hookEnv,
      input: JSON.stringify({ cwd: root, session_id: "sess-new", source: "startup" }),
    });
    results.push(["SessionStart brief", brief.stdout]);

    for (const [what, text] of results) expectClean(what, text);
    // The channels did carry the corpus: the (redacted) lines reached the store and the results.
    const all = results.map((r) => r[1]).join("\n");
    expect(all).toContain("[redacted");
    expect(all).toContain("password_reset_view");

    // Nothing anywhere in the bytes of the database and its WAL, in either leak form.
    const needles = corpus.canaries.flatMap(needlesOf);
    expect(leaked(dbPath, needles)).toEqual([]);
    const bytes = dbBytes(dbPath).toString("latin1");
    expect(bytes).toContain("[redacted");

    // Precision: the negatives reached the store intact (memory text, graph, summaries).
    const missing = corpus.negatives.filter((n) => !bytes.includes(n));
    expect(missing).toEqual([]);
  });
});
