// Deleted is gone: after every kind of forget (one unit, a session, units citing a file, everything) the
// forgotten units' distinctive words are in no row, no full-text index page, no served card and nowhere in the
// bytes of the database file or its WAL; what was not forgotten is still there.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

import { describe, expect, it } from "vitest";

import { openDatabase } from "../../src/storage/db.js";
import { runCli } from "../helpers/cli.js";
import { connect, textOf } from "../helpers/mcp.js";
import { tmpDir } from "../helpers/tmp.js";
import { ftsTerms, leaked } from "./canaries.js";

type Structured = Record<string, unknown>;

function project() {
  const root = tmpDir("memcards-forget-");
  mkdirSync(join(root, "src"));
  writeFileSync(
    join(root, "src", "billing.py"),
    "def refund(order, amount):\n    return order.total - amount\n\n\ndef charge(order):\n    return order.total\n",
  );
  const dbPath = join(tmpDir(), "forget.db");
  const home = tmpDir();
  const cli = (args: string[]) =>
    runCli(["--root", root, "--db", dbPath, "--embedder", "offline", ...args], {
      cwd: root,
      env: { HOME: home, MEMCARDS_HOME: home },
    });
  const open = () => connect({ flags: { root, db: dbPath, embedder: "offline" }, env: { MEMCARDS_HOME: home } });
  return { root, dbPath, cli, open };
}

/** Which words are still anywhere: in the file bytes (database and WAL) or among the full-text index terms. */
function traces(dbPath: string, words: readonly string[]): string[] {
  const db = openDatabase(dbPath);
  try {
    const terms = ftsTerms(db);
    const inFts = words.filter((w) => terms.has(w.toLowerCase())).map((w) => `fts:${w}`);
    return [...leaked(dbPath, words).map((w) => `bytes:${w}`), ...inFts];
  } finally {
    db.close();
  }
}

describe("forget leaves no trace", () => {
  it("by id: the unit, its card (and the card resource), its outcomes and every index entry go", async () => {
    const p = project();
    const c = await p.open();
    try {
      expect((await c.client.callTool({ name: "build_context_graph", arguments: {} })).isError).toBeFalsy();
      const rec = async (text: string) => {
        const r = await c.client.callTool({
          name: "record_memory",
          arguments: { category: "commitment", text, files: ["src/billing.py"] },
        });
        return (r.structuredContent as { id: number }).id;
      };
      const gone = await rec("Never call refund in src/billing.py without the xylophonequartz guard");
      await rec("Always log charge calls in src/billing.py with the marmaladebicycle tag");
      const cards = await c.client.callTool({
        name: "get_memory_cards",
        arguments: { task: "refund in src/billing.py returns the wrong amount", files: ["src/billing.py"] },
      });
      const ids = (cards.structuredContent as { cards: { id: string }[] }).cards.map((x) => x.id);
      let cardId: string | undefined;
      for (const id of ids) {
        const res = await c.client.readResource({ uri: `memcards://cards/${id}` });
        if (JSON.stringify(res).includes("xylophonequartz")) cardId = id;
      }
      expect(cardId, "the unit was served as a card").toBeDefined();
      await c.client.callTool({ name: "record_outcome", arguments: { helped: [cardId] } });
      expect(traces(p.dbPath, ["xylophonequartz"])).toEqual(["bytes:xylophonequartz", "fts:xylophonequartz"]);

      const f = await c.client.callTool({ name: "forget", arguments: { id: gone } });
      expect((f.structuredContent as Structured).memories).toBe(1);
      await expect(c.client.readResource({ uri: `memcards://cards/${cardId}` })).rejects.toThrow(/no card/);
      expect(traces(p.dbPath, ["xylophonequartz"])).toEqual([]);
      // The unit that was not forgotten is untouched, and the search still finds it.
      expect(traces(p.dbPath, ["marmaladebicycle"])).toEqual(["bytes:marmaladebicycle", "fts:marmaladebicycle"]);
      const s = await c.client.callTool({ name: "search_memory", arguments: { query: "marmaladebicycle" } });
      expect(textOf(s)).toContain("marmaladebicycle");
      const db = openDatabase(p.dbPath);
      const key = `memory:${gone}`;
      expect(db.prepare("SELECT COUNT(*) AS n FROM cards_served WHERE unit_key = ?").get(key)).toEqual({ n: 0 });
      expect(db.prepare("SELECT COUNT(*) AS n FROM outcomes WHERE unit_key = ?").get(key)).toEqual({ n: 0 });
      expect(db.prepare("SELECT COUNT(*) AS n FROM nodes WHERE key = ?").get(key)).toEqual({ n: 0 });
      db.close();
    } finally {
      await c.close();
    }
    expect(traces(p.dbPath, ["xylophonequartz"])).toEqual([]);
  });

  it("by session, by file, then everything: summaries, raw turns, units, quotes and index pages go", async () => {
    const p = project();
    const session = (name: string, word: string) => {
      const file = join(tmpDir(), `${name}.json`); // outside the project: the graph must not index it
      writeFileSync(
        file,
        JSON.stringify([
          { role: "user", content: `Never deploy on Fridays without the ${word} checklist.` },
          { role: "user", content: "Always run the linter before pushing to main." },
          { role: "assistant", content: `Understood. I learned that the ${word} checklist covers the refund path.` },
          { role: "user", content: `The ${word} build took 41 s. Please refactor src/billing.py next.` },
          { role: "assistant", content: `Done: refund in src/billing.py now checks the ${word} flag.` },
        ]),
      );
      const r = p.cli(["distill", file, "--session", name, "--json"]);
      expect(r.code, r.stderr).toBe(0);
      expect((JSON.parse(r.stdout) as { memories: { archived: number } }).memories.archived).toBeGreaterThan(0);
    };
    // s2 first: its linter rule then gains a quote from s1 (a merge), which forgetting s1 must take away.
    session("s2", "pelicanturbine");
    session("s1", "quokkaharmonica");
    const quotesOf = (sessionId: string) => {
      const db = openDatabase(p.dbPath);
      const n = db
        .prepare(
          "SELECT COUNT(*) AS n FROM memories m, json_each(m.evidence) e WHERE json_extract(e.value, '$.session') = ?",
        )
        .get(sessionId) as { n: number };
      db.close();
      return n.n;
    };
    const c = await p.open();
    try {
      expect((await c.client.callTool({ name: "build_context_graph", arguments: {} })).isError).toBeFalsy();
      expect(traces(p.dbPath, ["quokkaharmonica", "pelicanturbine"])).toHaveLength(4);
      expect(quotesOf("s1")).toBeGreaterThan(0);
      const sum = await c.client.readResource({ uri: "memcards://sessions/s1/summary" });
      expect(JSON.stringify(sum)).toContain("quokkaharmonica");

      const f1 = await c.client.callTool({ name: "forget", arguments: { session_id: "s1" } });
      const r1 = f1.structuredContent as Structured;
      expect(r1.summaries).toBe(1);
      expect(r1.raw_turns as number).toBeGreaterThan(0);
      expect(traces(p.dbPath, ["quokkaharmonica"])).toEqual([]);
      expect(traces(p.dbPath, ["pelicanturbine"])).toHaveLength(2);
      expect(quotesOf("s1")).toBe(0);
      const kept = await c.client.callTool({ name: "search_memory", arguments: { query: "linter before pushing" } });
      expect(textOf(kept)).toContain("Always run the linter before pushing");
      await expect(c.client.readResource({ uri: "memcards://sessions/s1/summary" })).rejects.toThrow();

      await c.client.callTool({
        name: "record_memory",
        arguments: {
          category: "learning",
          text: "The walrusfiddle cache lives in lib/cache.py",
          files: ["lib/cache.py"],
        },
      });
      expect(traces(p.dbPath, ["walrusfiddle"])).toHaveLength(2);
      const f2 = await c.client.callTool({ name: "forget", arguments: { file: "lib/cache.py" } });
      expect((f2.structuredContent as Structured).memories).toBe(1);
      expect(traces(p.dbPath, ["walrusfiddle"])).toEqual([]);
    } finally {
      await c.close();
    }

    const all = p.cli(["forget", "--all"]);
    expect(all.code, all.stderr).toBe(0);
    expect(all.stdout).toMatch(/forgot [1-9]\d* memory units?, [1-9]\d* archived turns?, 1 summary$/m);
    expect(traces(p.dbPath, ["pelicanturbine", "quokkaharmonica", "walrusfiddle"])).toEqual([]);
    const db = openDatabase(p.dbPath);
    for (const table of ["memories", "raw_turns", "summaries", "sessions", "cards_served", "outcomes"])
      expect(db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get(), table).toEqual({ n: 0 });
    expect(db.prepare("SELECT COUNT(*) AS n FROM nodes WHERE type = 'memory'").get()).toEqual({ n: 0 });
    // The code graph is not memory: it stays (and holds only redacted text).
    expect(db.prepare("SELECT COUNT(*) AS n FROM nodes WHERE path = 'src/billing.py'").get()).not.toEqual({ n: 0 });
    db.close();
  });
});
