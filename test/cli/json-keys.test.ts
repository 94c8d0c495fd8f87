// The CLI's --json output names things in snake_case, as the MCP wire does, while memcards is camelCase inside:
// cards (its task length, audit and card components) and a search's raw-turn hits, printed by the built CLI.
import { join } from "node:path";

import { describe, expect, it } from "vitest";

import { repoRoot, runCli } from "../helpers/cli.js";
import { tmpDir } from "../helpers/tmp.js";
import { copyPolyglot } from "../repo/fixture.js";

/** Every object key of `v` at every depth, except the keys of the objects under `dataKeyed` (keys that are data). */
function keysOf(v: unknown, dataKeyed: ReadonlySet<string>, into = new Set<string>()): Set<string> {
  if (Array.isArray(v)) for (const x of v) keysOf(x, dataKeyed, into);
  else if (v !== null && typeof v === "object")
    for (const [k, x] of Object.entries(v)) {
      into.add(k);
      if (!dataKeyed.has(k)) keysOf(x, dataKeyed, into);
    }
  return into;
}

describe("--json keys", () => {
  const env = { MEMCARDS_HOME: tmpDir() };

  it("cards prints its task length, audit and components in snake_case", () => {
    const root = copyPolyglot();
    const r = runCli(
      ["cards", "Circle.area returns a negative value", "--root", root, "--embedder", "offline", "--json"],
      {
        env,
      },
    );
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as {
      task_chars: number;
      audit: Record<string, unknown>;
      cards: { components: Record<string, number> }[];
    };
    expect(out.task_chars).toBe("Circle.area returns a negative value".length);
    expect(Object.keys(out.audit)).toEqual(
      expect.arrayContaining(["field_completeness", "action_hints", "no_placeholders", "token_ratio"]),
    );
    expect(out.cards.length).toBeGreaterThan(0);
    expect(Object.keys(out.cards[0]!.components).sort()).toEqual([
      "action_shift",
      "cost",
      "necessity",
      "outcome_uplift",
      "risk",
    ]);
    // `ranking[].channels` and `selected` are keyed by data (channel names, packing modes).
    const camel = [...keysOf(out, new Set(["channels", "selected"]))].filter((k) => /[A-Z]/.test(k));
    expect(camel).toEqual([]);
  });

  it("search --raw prints each raw turn's session and turn in snake_case", () => {
    const root = copyPolyglot();
    const transcript = join(repoRoot, "test", "fixtures", "transcripts", "claude-code.jsonl");
    const flags = ["--root", root, "--embedder", "offline"];
    expect(runCli(["compress", transcript, ...flags, "--json"], { env }).code).toBe(0);
    const r = runCli(["search", "test", "--raw", ...flags, "--json"], { env });
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as { raw: Record<string, unknown>[] };
    expect(out.raw.length).toBeGreaterThan(0);
    for (const hit of out.raw)
      expect(Object.keys(hit).sort()).toEqual(["role", "score", "session_id", "text", "turn_id"]);
  });
});
