// Concurrent writers on one SQLite file: every acknowledged id is the row that caller wrote, and no id is
// handed to two callers; a merge names the unit it merged into; forget --id removes only that unit.
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { realpathSync } from "node:fs";
import { join } from "node:path";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { describe, expect, it } from "vitest";

import { forget, recordMemory } from "../../src/session/memory.js";
import { openDatabase } from "../../src/storage/db.js";
import { getMemory } from "../../src/storage/memories.js";
import { upsertProject } from "../../src/storage/projects.js";
import { cliPath } from "../helpers/cli.js";
import { connect } from "../helpers/mcp.js";
import { tmpDir } from "../helpers/tmp.js";

/** Writes per writer: enough for the writers to interleave while the CLI writer runs beside them. */
const PER_WRITER = 40;

interface Ack {
  writer: string;
  id: number;
  text: string;
}

function env(extra: Record<string, string>): Record<string, string> {
  const base = Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined));
  return { ...base, ...extra };
}

/** Records PER_WRITER distinct learnings through `call`; returns the acknowledgements. */
async function writer(tag: string, call: (text: string) => Promise<{ id: number | null; merged: boolean }>) {
  const acks: Ack[] = [];
  for (let i = 0; i < PER_WRITER; i++) {
    const text = `writer ${tag} records fact ${i} marker ${randomUUID()}`;
    const r = await call(text);
    expect(r.merged).toBe(false);
    expect(r.id).not.toBeNull();
    acks.push({ writer: tag, id: r.id!, text });
  }
  return acks;
}

/** `memcards remember` in a shell loop: the CLI prints the id it stored. */
function cliWriter(root: string, home: string, tag: string): Promise<Ack[]> {
  const texts = Array.from({ length: 6 }, (_, i) => `writer ${tag} records fact ${i} marker ${randomUUID()}`);
  const script = texts
    .map((t) => `"${process.execPath}" "${cliPath}" remember learning "${t}" --root "${root}" --log-level silent`)
    .join(" && ");
  return new Promise((resolve, reject) => {
    const child = spawn("sh", ["-c", script], { env: env({ MEMCARDS_HOME: home }), stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.on("error", reject);
    child.on("exit", (code) => {
      if (code !== 0) return reject(new Error(`cli writer exited ${code}`));
      const ids = [...out.matchAll(/^stored \(#(\d+)\)$/gm)].map((m) => Number(m[1]));
      expect(ids).toHaveLength(texts.length);
      resolve(texts.map((text, i) => ({ writer: tag, id: ids[i]!, text })));
    });
  });
}

describe("record_memory under concurrent writers", () => {
  it("returns to each caller the id of its own row, never another writer's", async () => {
    const root = realpathSync(tmpDir());
    const home = tmpDir();
    const servers = await Promise.all(
      ["s1", "s2"].map(async () => {
        const transport = new StdioClientTransport({
          command: process.execPath,
          args: [cliPath, "serve", "--root", root, "--log-level", "silent"],
          env: env({ MEMCARDS_HOME: home }),
          stderr: "pipe",
        });
        const client = new Client({ name: "writer", version: "1.0.0" });
        await client.connect(transport);
        return client;
      }),
    );
    const local = await connect({ flags: { root }, env: { MEMCARDS_HOME: home } });
    const clients = [...servers, local.client];
    try {
      // Every connection opens the store (and its migrations) before the writes race.
      for (const c of clients) await c.callTool({ name: "status", arguments: {} });
      const viaTool = (c: Client) => async (text: string) => {
        const res = await c.callTool({ name: "record_memory", arguments: { category: "learning", text } });
        expect(res.isError).toBeFalsy();
        return res.structuredContent as { id: number | null; merged: boolean };
      };
      const all = (
        await Promise.all([
          writer("stdio-one", viaTool(servers[0]!)),
          writer("stdio-two", viaTool(servers[1]!)),
          writer("in-process", viaTool(local.client)),
          cliWriter(root, home, "cli"),
        ])
      ).flat();
      expect(all.length).toBe(3 * PER_WRITER + 6);
      const db = openDatabase(join(root, ".memcards", "memcards.db"));
      try {
        const wrong = all.filter((a) => getMemory(db, a.id)?.text !== a.text);
        expect(wrong).toEqual([]);
        const seen = new Map<number, string>();
        const shared = all.filter((a) => {
          const prev = seen.get(a.id);
          seen.set(a.id, a.writer);
          return prev !== undefined;
        });
        expect(shared).toEqual([]);
      } finally {
        db.close();
      }
    } finally {
      await Promise.all(servers.map((c) => c.close()));
      await local.close();
    }
  }, 120_000);
});

describe("record_memory ids", () => {
  it("names the unit a duplicate merged into, and forget by that id removes only it", () => {
    const dir = tmpDir();
    const db = openDatabase(join(dir, "m.db"));
    const deps = { db, projectId: upsertProject(db, "p", dir).id, root: dir };
    const first = recordMemory(deps, { category: "preference", text: "Prefer small pull requests" });
    const other = recordMemory(deps, { category: "preference", text: "Prefer rebase over merge commits" });
    const again = recordMemory(deps, { category: "preference", text: "Prefer  small pull requests" });
    expect(first).toMatchObject({ merged: false, outcome: "stored" });
    expect(again).toMatchObject({ id: first.id, merged: true, outcome: "merged with an existing unit" });
    expect(other.id).not.toBe(first.id);
    expect(getMemory(db, other.id!)?.text).toBe("Prefer rebase over merge commits");
    expect(forget(deps, { id: other.id! }).memories).toBe(1);
    expect(getMemory(db, other.id!)).toBeUndefined();
    expect(getMemory(db, first.id!)?.text).toBe("Prefer small pull requests");
    db.close();
  });
});
