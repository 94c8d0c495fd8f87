// A failure that names a test only by its function still leads to the test file: the one indexed file that
// defines that name is cited by the failure.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import type { App } from "../../src/app.js";
import { failureIdentifiers } from "../../src/cards/candidates.js";
import { getMemoryCards } from "../../src/cards/service.js";
import { buildGraph } from "../../src/graph/build-graph.js";
import { compressContext } from "../../src/session/compress.js";
import { openTestApp } from "../graph/helpers.js";
import { tmpDir } from "../helpers/tmp.js";

const FILES: Record<string, string> = {
  "go.mod": "module example.com/bank\n\ngo 1.22\n",
  "ledger/ledger.go":
    "package ledger\n\ntype Ledger struct{ total int }\n\nfunc (l *Ledger) Deposit(n int) { l.total += n }\n\nfunc (l *Ledger) Balance() int { return l.total }\n",
  "ledger/ledger_test.go":
    'package ledger\n\nimport "testing"\n\nfunc TestLedgerBalance(t *testing.T) {\n\tl := &Ledger{}\n\tl.Deposit(2)\n\tif l.Balance() != 2 {\n\t\tt.Fatal("wrong balance")\n\t}\n}\n',
  "report/report.go": 'package report\n\nfunc Summary(total int) string { return "total" }\n',
};

describe("failures naming a test by its function", () => {
  let app: App;
  let root: string;
  beforeAll(async () => {
    root = tmpDir();
    for (const [p, text] of Object.entries(FILES)) {
      mkdirSync(join(root, p, ".."), { recursive: true });
      writeFileSync(join(root, p), text);
    }
    app = openTestApp(root);
    await buildGraph(app.scope, app, { lexicalOnly: true });
  });
  afterAll(async () => {
    await app.close();
  });

  it("serves the test file defining the named function, and the failure card says where it lives", async () => {
    const call = (id: string, name: string, args: Record<string, unknown>) => ({
      id,
      type: "function",
      function: { name, arguments: JSON.stringify(args) },
    });
    // The transcript as a chat client writes it: a test run through a tool call, and its failing output.
    const transcript = join(tmpDir(), "session.json");
    writeFileSync(
      transcript,
      JSON.stringify([
        { role: "user", content: "The balance is wrong after a deposit." },
        {
          role: "assistant",
          content: "Running the tests.",
          tool_calls: [call("c1", "shell", { command: "go test ./..." })],
        },
        {
          role: "tool",
          tool_call_id: "c1",
          content:
            "$ go test ./...\n--- FAIL: TestLedgerBalance (0.00s)\nFAIL\texample.com/bank/ledger\t0.002s\nexit code 1",
        },
      ]),
    );
    compressContext(
      { db: app.db, projectId: app.project.id, root },
      { sessionId: "s-ledger", keepRecent: 0, transcriptPath: transcript },
    );
    const r = await getMemoryCards(
      { ...app.scope, ranker: app.ranker },
      { task: "the balance is wrong after a deposit", sessionId: "s-ledger", budgetTokens: 2000 },
    );
    const failure = r.cards.find((c) => c.kind === "failure");
    expect(failure?.evidence).toContain("TestLedgerBalance");
    expect(failure?.evidence).toContain("names TestLedgerBalance in ledger/ledger_test.go");
    const test = r.cards.find(
      (c) => c.kind === "test" && c.scope.length > 0 && c.evidence.startsWith("ledger/ledger_test.go"),
    );
    expect(test?.evidence).toContain("cited by a failure in this session");
  });

  it("reads code-shaped names and qualified members, not prose or file names", () => {
    const names = failureIdentifiers(
      "--- FAIL: TestPutGet (0.00s)\nFAILED tests/test_store.py::test_put_get - expected value\n" +
        "test tests::put_get ... FAILED\nat FooTest.testBar(FooTest.java:12) in store.go",
    ).map((n) => n.name);
    expect(names).toEqual(expect.arrayContaining(["TestPutGet", "test_put_get", "put_get", "testBar"]));
    expect(names).not.toContain("expected");
    expect(names).not.toContain("go");
    expect(names).not.toContain("FAILED");
    const many = failureIdentifiers(Array.from({ length: 50 }, (_, i) => `fn_${i}`).join(" "));
    expect(many.length).toBeLessThanOrEqual(12);
  });
});
