// The canary corpus (every secret form, test/fixtures/secrets/canaries.json) through each channel that writes —
// index (secrets in content and in file paths), transcript compress and distill, record_memory, compress_context
// with its durable background queue, import, export, the hook log, the team push queue — then no canary may be in
// any byte memcards wrote: the store, its -wal and -shm, hooks.log (project and user), the export file. Team push
// is covered by the payloads queued to leave the client (team_outbox, what `team push` sends), not a server.
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";

import { describe, expect, it } from "vitest";

import { resolveProjectRoot } from "../../src/project/root.js";
import { openDatabase } from "../../src/storage/db.js";
import { upsertProject } from "../../src/storage/projects.js";
import { pendingOps } from "../../src/storage/team/outbox.js";
import { linkTeam, queueDistilledForTeam } from "../../src/team/queue.js";
import { runCli } from "../helpers/cli.js";
import { connect, textOf } from "../helpers/mcp.js";
import { tmpDir } from "../helpers/tmp.js";
import { canariesIn, type Canary, canaryText, corpus, ftsNeedlesOf, ftsTerms, needlesOf } from "./canaries.js";

/** Every file under `dir`, recursively, with its bytes. */
function filesUnder(dir: string): [string, Buffer][] {
  const out: [string, Buffer][] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    const st = statSync(p);
    if (st.isDirectory()) out.push(...filesUnder(p));
    else out.push([p, readFileSync(p)]);
  }
  return out;
}

/** Canaries (kind → files) found in the bytes of the given files, in either leak form. */
function leaks(files: [string, Buffer][]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const c of corpus.canaries) {
    for (const [path, bytes] of files) {
      if (needlesOf(c).some((n) => bytes.includes(Buffer.from(n, "utf8")))) (out[c.kind] ??= []).push(path);
    }
  }
  return out;
}

/** A Claude Code transcript carrying every canary in user text, tool input and tool output. */
function transcript(dir: string, session: string): string {
  const lines: unknown[] = [];
  let n = 0;
  const push = (type: "user" | "assistant", content: unknown) =>
    lines.push({ type, uuid: `${session}-${++n}`, sessionId: session, message: { role: type, content } });
  push("user", "Set up the deployment. Never commit credentials.");
  corpus.canaries.forEach((c: Canary, i) => {
    push("user", `Never log this: ${c.text}`);
    push("assistant", [
      { type: "text", text: `Keeping it out of the repository: ${c.text}` },
      { type: "tool_use", id: `t${i}`, name: "Bash", input: { command: `printf '%s' '${c.text}' > /dev/null` } },
    ]);
    push("user", [{ type: "tool_result", tool_use_id: `t${i}`, content: `ok ${c.text}` }]);
  });
  push("assistant", "Done: 12 tests passed, password_reset_view unchanged.");
  const path = join(dir, `${session}.jsonl`);
  writeFileSync(path, lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
  return path;
}

const byKind = (kind: string) => corpus.canaries.find((c) => c.kind === kind)!.canary;

describe("every channel, every byte written", () => {
  it("keeps the whole corpus out of the store, its WAL and SHM, the logs and the export", async () => {
    expect(corpus.canaries.length).toBeGreaterThanOrEqual(50);
    const root = tmpDir("memcards-channels-");
    const home = tmpDir();
    const sessions = join(root, "sessions");
    const env = { HOME: home, MEMCARDS_HOME: home };
    const cli = (args: string[], input?: string) =>
      runCli(["--root", root, "--embedder", "offline", ...args], { cwd: root, env, ...(input ? { input } : {}) });

    // index: secrets in file contents, and in a file's and a folder's name.
    writeFileSync(
      join(root, "settings.py"),
      `CANARIES = """\n${canaryText}\n"""\n\ndef password_reset_view(r):\n    return r\n`,
    );
    writeFileSync(join(root, ".env"), `${canaryText}\n`);
    mkdirSync(join(root, "notes"));
    writeFileSync(join(root, "notes", `prod-${byKind("github token")}.md`), "# release notes\n");
    mkdirSync(join(root, `deploy_${byKind("anthropic key")}`));
    writeFileSync(join(root, `deploy_${byKind("anthropic key")}`, "readme.md"), "# keys\n");
    const indexed = cli(["index", "--json"]);
    expect(indexed.code, indexed.stderr).toBe(0);
    expect((JSON.parse(indexed.stdout) as { skipped: Record<string, number> }).skipped["secret-in-path"]).toBe(2);

    // team: the project is linked to a team, so what is recorded from here on is queued to leave the client.
    const dbPath = join(root, ".memcards", "memcards.db");
    const location = resolveProjectRoot({ explicit: root, cwd: root, userDir: home });
    const linkDb = openDatabase(dbPath);
    linkTeam(linkDb, upsertProject(linkDb, location.key, root).id, "team-channels");
    linkDb.close();

    // transcript: compress (summary) and distill (units and archived turns) through the CLI.
    mkdirSync(sessions);
    expect(cli(["compress", transcript(sessions, "cli-compress")]).code).toBe(0);
    expect(cli(["distill", transcript(sessions, "cli-distill")]).code).toBe(0);

    // record_memory and compress_context (its job waits in the durable queue) through a real MCP client.
    const c = await connect({ flags: { root, embedder: "offline" }, env: { MEMCARDS_HOME: home } });
    try {
      for (const [i, can] of corpus.canaries.entries()) {
        const r = await c.client.callTool({
          name: "record_memory",
          arguments: { category: i % 2 ? "learning" : "commitment", text: `Keep out of logs: ${can.text}` },
        });
        expect(r.isError, textOf(r)).toBeFalsy();
        expect(canariesIn(textOf(r))).toEqual([]);
      }
      const comp = await c.client.callTool({
        name: "compress_context",
        arguments: { transcript_path: transcript(sessions, "mcp-compress"), keep_recent: 2, route: "deterministic" },
      });
      expect(comp.isError, textOf(comp)).toBeFalsy();
      expect(canariesIn(JSON.stringify(comp))).toEqual([]);
    } finally {
      await c.close();
    }

    // import: units whose text, key, record, evidence and files carry the canaries.
    const lines = corpus.canaries.map((can) =>
      JSON.stringify({
        category: "learning",
        text: `Imported: ${can.text}`,
        key: `key ${can.text}`,
        confidence: 0.8,
        record: { note: can.text },
        evidence: [{ session: "imp", turn: "t1", quote: can.text }],
        files: ["settings.py"],
      }),
    );
    const importFile = join(sessions, "units.jsonl");
    writeFileSync(importFile, lines.join("\n") + "\n");
    const imported = cli(["import", importFile]);
    expect(imported.code, imported.stderr).toBe(0);

    // hook log: a hook call whose event, session id, path and stdin carry secrets.
    const hookTranscript = transcript(sessions, "hook-session");
    const pre = cli(
      ["hook", "PreCompact"],
      JSON.stringify({ cwd: root, session_id: "hook-session", transcript_path: hookTranscript }),
    );
    expect(pre.code).toBe(0);
    const token = byKind("github token");
    cli(["hook", `Bogus${token}`], JSON.stringify({ cwd: root, session_id: `s-${token}` }));
    cli(
      ["hook", "PreCompact"],
      `{"cwd": "${root}", "transcript_path": "/tmp/${byKind("anthropic key")}.jsonl", "session_id": "x"}`,
    );
    cli(["hook", "SessionStart"], `not json ${canaryText.split("\n")[0]}`);

    // export: the file written.
    const exportFile = join(sessions, "export.jsonl");
    const exported = cli(["export", "--all", "--out", exportFile]);
    expect(exported.code, exported.stderr).toBe(0);

    // team push: what is queued to leave the client once the project is linked to a team.
    const db = openDatabase(dbPath);
    try {
      const scope = { db, projectId: upsertProject(db, location.key, root).id, root };
      queueDistilledForTeam(scope);
      const ops = pendingOps(db, scope.projectId, 100_000);
      expect(ops.length).toBeGreaterThan(corpus.canaries.length);
      const payloads = JSON.stringify(ops);
      expect(payloads).toContain("[redacted");
      expect(canariesIn(payloads)).toEqual([]);
      // No search index holds a canary's tokens (the byte search can miss prefix-compressed terms).
      const terms = ftsTerms(db);
      expect(corpus.canaries.flatMap((x) => ftsNeedlesOf(x.canary)).filter((t) => terms.has(t))).toEqual([]);
    } finally {
      db.close();
    }

    const written = [
      ...filesUnder(join(root, ".memcards")),
      ...filesUnder(home),
      [exportFile, readFileSync(exportFile)] as [string, Buffer],
    ];
    const names = written.map(([p]) => p);
    expect(names.some((p) => p.endsWith("memcards.db"))).toBe(true);
    expect(names.some((p) => p.endsWith("hooks.log"))).toBe(true);
    expect(leaks(written)).toEqual({});
    // The channels carried the corpus (redacted) and kept what is not a secret.
    const all = Buffer.concat(written.map(([, b]) => b)).toString("latin1");
    expect(all).toContain("[redacted");
    expect(all).toContain("password_reset_view");
    expect(readFileSync(join(root, ".memcards", "hooks.log"), "utf8")).toMatch(/Bogus/);
  }, 300_000);
});
