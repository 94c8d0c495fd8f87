// `memcards eval cards-session`: what run-time signals add to the cards. Benchmark tasks carry no session, so
// here each scenario scripts one on a copy of a repository (the polyglot fixture): the user states a constraint,
// the agent edits a file and a test fails. The same task asks for cards before the session and after it (with its
// session id); the report says which of the things the next step needs each pack served.
import { appendFileSync, cpSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { createApp } from "../src/app.js";
import { getMemoryCards } from "../src/cards/service.js";
import type { Config } from "../src/config.js";
import { buildGraph } from "../src/graph/build-graph.js";
import type { Logger } from "../src/log.js";
import { resolveProjectRoot } from "../src/project/root.js";
import type { Card } from "../src/scoring/schema.js";
import { compressContext } from "../src/session/compress.js";
import { cardPath } from "./cards.js";
import { round } from "./localize/metrics.js";

export interface SessionScenario {
  name: string;
  /** The task as the agent asks for cards: vague, as a person writes it, no path. */
  task: string;
  /** The file the fix belongs in, the test that failed, a phrase of the user's constraint. */
  gold: { file: string; test: string; constraint: string };
  /** What the user said (the constraint), the file the agent edited, the test command and its failing output. */
  user: string;
  edited: string;
  command: string;
  output: string;
}

/** Scenarios on the polyglot fixture (fixtures/repos/polyglot): one per language with a test beside its code. */
export const FIXTURE_SCENARIOS: SessionScenario[] = [
  {
    name: "python",
    task: "the area comes out negative for some inputs",
    gold: { file: "pyproj/shapes/geometry.py", test: "pyproj/tests/test_geometry.py", constraint: "float" },
    user: "Fix the negative area. Never change the public signature of Circle.area; keep the float return type.",
    edited: "pyproj/shapes/geometry.py",
    command: "pytest pyproj/tests/test_geometry.py",
    output: "FAILED pyproj/tests/test_geometry.py::test_area - AssertionError: assert -3.14 == 3.14\n1 failed in 0.02s",
  },
  {
    name: "rust",
    task: "the norm is wrong for points far from the origin",
    gold: { file: "rustcrate/src/geometry.rs", test: "rustcrate/tests/geometry.rs", constraint: "f64" },
    user: "Look at the norm of a point. Do not add dependencies to Cargo.toml and keep Point::norm returning f64.",
    edited: "rustcrate/src/geometry.rs",
    command: "cargo test",
    output:
      "running 1 test\ntest norm_of_unit ... FAILED\nthread 'norm_of_unit' panicked at rustcrate/tests/geometry.rs:5:5:\nassertion `left == right` failed\nerror: test failed, to rerun pass `--test geometry`",
  },
  {
    name: "go",
    task: "reads sometimes return a stale value after a write",
    gold: { file: "gosvc/store/store.go", test: "gosvc/store/store_test.go", constraint: "mutex" },
    user: "Reads return stale values. Keep the mutex in Store; do not switch to sync.Map.",
    edited: "gosvc/store/store.go",
    command: "go test ./gosvc/store/",
    output:
      // As `go test` prints it: the test by its function, the file by its bare name.
      "--- FAIL: TestGet (0.00s)\n    store_test.go:9: missing value\nFAIL\tgosvc/store\t0.003s",
  },
  {
    name: "typescript",
    task: "adding two numbers gives the wrong result for large values",
    gold: { file: "web/src/math.ts", test: "web/src/math.test.ts", constraint: "bigint" },
    user: "The sum is wrong for large values. Do not use bigint; keep add(a: number, b: number).",
    edited: "web/src/math.ts",
    command: "npx vitest run web/src/math.test.ts",
    output:
      " FAIL  web/src/math.test.ts > add > sums\nAssertionError: expected 3 to be 4\n ❯ web/src/math.test.ts:5:20",
  },
];

/** The session as a chat transcript with tool calls: the user's words, an edit, a test run that fails. */
export function sessionTranscript(s: SessionScenario): unknown[] {
  const call = (id: string, name: string, args: Record<string, unknown>) => ({
    id,
    type: "function",
    function: { name, arguments: JSON.stringify(args) },
  });
  return [
    { role: "user", content: `${s.task}. ${s.user}` },
    {
      role: "assistant",
      content: `I will change ${s.edited}.`,
      tool_calls: [call("c1", "edit_file", { path: s.edited, old_str: "a", new_str: "b" })],
    },
    { role: "tool", tool_call_id: "c1", content: `Edited ${s.edited}` },
    { role: "assistant", content: "Running the tests.", tool_calls: [call("c2", "shell", { command: s.command })] },
    { role: "tool", tool_call_id: "c2", content: `$ ${s.command}\n${s.output}\nexit code 1` },
  ];
}

const BUDGET = 1200;

export interface SessionPackScore {
  /** Served a file or symbol card for the file the fix belongs in, and its place among the served cards. */
  file: boolean;
  file_at: number | null;
  /** Served the failing test (a test card) or the failure itself (a failure card citing the test). */
  test: boolean;
  failure: boolean;
  /** Place of the first failure card citing the test among the served cards. */
  failure_at: number | null;
  constraint: boolean;
  tokens: number;
  cards: number;
}

export interface SessionEvalReport {
  scenarios: { name: string; before: SessionPackScore; after: SessionPackScore }[];
  /** Shares over scenarios. */
  before: Record<"file" | "test" | "failure" | "constraint", number>;
  after: Record<"file" | "test" | "failure" | "constraint", number>;
  budget: number;
}

function score(cards: readonly Card[], gold: SessionScenario["gold"], tokens: number): SessionPackScore {
  const at = cards.findIndex((c) => (c.kind === "file" || c.kind === "symbol") && cardPath(c) === gold.file);
  const testName = gold.test.slice(gold.test.lastIndexOf("/") + 1);
  const failureAt = cards.findIndex((c) => c.kind === "failure" && c.evidence.includes(testName));
  return {
    file: at >= 0,
    file_at: at >= 0 ? at + 1 : null,
    test: cards.some((c) => c.kind === "test" && cardPath(c) === gold.test),
    failure: failureAt >= 0,
    failure_at: failureAt >= 0 ? failureAt + 1 : null,
    constraint: cards.some((c) => c.kind === "constraint" && c.evidence.toLowerCase().includes(gold.constraint)),
    tokens,
    cards: cards.length,
  };
}

/** Runs each scenario on a fresh copy of `repo` with a fresh index. */
export async function runSessionEval(opts: {
  repo: string;
  config: Config;
  logger: Logger;
  scenarios?: readonly SessionScenario[];
}): Promise<SessionEvalReport> {
  const out: SessionEvalReport["scenarios"] = [];
  for (const s of opts.scenarios ?? FIXTURE_SCENARIOS) {
    const dir = mkdtempSync(join(tmpdir(), "memcards-session-"));
    try {
      const root = join(dir, "repo");
      cpSync(opts.repo, root, { recursive: true });
      const config: Config = { ...opts.config, root, db: join(dir, "memcards.db"), userDir: join(dir, "home") };
      const location = resolveProjectRoot({ explicit: root, cwd: root, userDir: config.userDir });
      const app = createApp(config, location, opts.logger);
      try {
        await buildGraph(app.scope, app, { lexicalOnly: true });
        const deps = { ...app.scope, ranker: app.ranker };
        const before = await getMemoryCards(deps, { task: s.task, budgetTokens: BUDGET });
        // The session: the agent's edit lands on disk, the transcript so far is compressed.
        appendFileSync(join(root, s.edited), "\n");
        const sessionId = `bench-${s.name}`;
        const transcript = join(dir, "session.json");
        writeFileSync(transcript, JSON.stringify(sessionTranscript(s)));
        compressContext(app.scope, { sessionId: sessionId, keepRecent: 0, transcriptPath: transcript });
        const after = await getMemoryCards(deps, { task: s.task, budgetTokens: BUDGET, sessionId: sessionId });
        out.push({
          name: s.name,
          before: score(before.cards, s.gold, before.tokens),
          after: score(after.cards, s.gold, after.tokens),
        });
      } finally {
        await app.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  const share = (k: "before" | "after", f: "file" | "test" | "failure" | "constraint") =>
    round(out.filter((r) => r[k][f]).length / Math.max(1, out.length));
  const shares = (k: "before" | "after") => ({
    file: share(k, "file"),
    test: share(k, "test"),
    failure: share(k, "failure"),
    constraint: share(k, "constraint"),
  });
  return { scenarios: out, before: shares("before"), after: shares("after"), budget: BUDGET };
}

export function renderSessionEval(r: SessionEvalReport): string {
  const yes = (b: boolean) => (b ? "yes" : "no");
  const lines = [
    `Scripted sessions (${r.scenarios.length}): the same task's cards (${r.budget} tokens) before the session and after it (a constraint, an edit, a failing test).`,
    "",
    "| scenario | fix file (place) before → after | failing test before → after | failure card | constraint card |",
    "|---|---|---|---|---|",
  ];
  for (const s of r.scenarios) {
    const place = (p: SessionPackScore) => (p.file ? `#${p.file_at}` : "—");
    lines.push(
      `| ${s.name} | ${place(s.before)} → ${place(s.after)} | ${yes(s.before.test)} → ${yes(s.after.test)} | ${yes(s.before.failure)} → ${yes(s.after.failure)} | ${yes(s.before.constraint)} → ${yes(s.after.constraint)} |`,
    );
  }
  lines.push(
    "",
    `Shares before → after: fix file ${r.before.file} → ${r.after.file}, failing test ${r.before.test} → ${r.after.test}, failure ${r.before.failure} → ${r.after.failure}, constraint ${r.before.constraint} → ${r.after.constraint}.`,
  );
  return lines.join("\n");
}
