// eval cards-session on the polyglot fixture: a scripted session (a constraint, an edit, a failing test) before
// the cards call changes what is served.
import { describe, expect, it } from "vitest";

import { FIXTURE_SCENARIOS, renderSessionEval, runSessionEval } from "../../bench/cards-session.js";
import { resolveConfig } from "../../src/config.js";
import { silentLogger } from "../../src/log.js";
import { tmpDir } from "../helpers/tmp.js";
import { POLYGLOT } from "../repo/fixture.js";

describe("eval cards-session", () => {
  it("serves the edited file first, the failing test and the user's constraint after the session", async () => {
    const config = resolveConfig({ embedder: "offline" }, { MEMCARDS_HOME: tmpDir() });
    const python = FIXTURE_SCENARIOS.find((s) => s.name === "python")!;
    const r = await runSessionEval({ repo: POLYGLOT, config, logger: silentLogger, scenarios: [python] });
    const [s] = r.scenarios;
    expect(s!.before).toMatchObject({ constraint: false, failure: false, test: false });
    // Code in languages the session does not work in no longer outranks its failure: both fit the budget.
    expect(s!.after).toMatchObject({ file: true, file_at: 1, test: true, failure: true, constraint: true });
    // Only the edited file's own cards, the constraint and the failing test come before the failure.
    expect(s!.after.failure_at).toBeLessThanOrEqual(5);
    expect(s!.after.tokens).toBeLessThanOrEqual(r.budget);
    expect(r.after.constraint).toBe(1);
    // Before the session the fix file may rank anywhere or not be served; after it, it comes first.
    expect(renderSessionEval(r)).toMatch(/\| python \| (—|#\d+) → #1 \| no → yes \| no → yes \| no → yes \|/);
  }, 120_000);

  it("cites the test a Go failure names only by its function", async () => {
    const config = resolveConfig({ embedder: "offline" }, { MEMCARDS_HOME: tmpDir() });
    const go = FIXTURE_SCENARIOS.find((s) => s.name === "go")!;
    const r = await runSessionEval({ repo: POLYGLOT, config, logger: silentLogger, scenarios: [go] });
    const [s] = r.scenarios;
    expect(s!.before.failure).toBe(false);
    // `--- FAIL: TestGet` names the function; the one file defining it is the failing test, and the failure
    // card names it too.
    expect(s!.after).toMatchObject({ file: true, file_at: 1, test: true, failure: true, constraint: true });
    expect(s!.after.tokens).toBeLessThanOrEqual(r.budget);
  }, 120_000);
});
