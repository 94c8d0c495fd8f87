// Units from a session's events: edits with full paths and the request they served, commits, errors, rules.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

import { describe, expect, it } from "vitest";

import type { Turn } from "../../src/conversation/schema.js";
import { distill, draftUnits } from "../../src/memory/distill.js";
import { errorLine, eventDrafts, lineSentences, requestText, ruleSentences } from "../../src/memory/events.js";
import { recall, searchMemory } from "../../src/memory/service.js";
import { openDatabase } from "../../src/storage/db.js";
import { listMemories } from "../../src/storage/memories.js";
import { upsertProject } from "../../src/storage/projects.js";
import { countTokens } from "../../src/text/tokens.js";
import { extractSections } from "../../src/transcript/extraction/extract.js";
import { parseText, parseTranscriptFile } from "../../src/transcript/formats/parse.js";
import { tmpDir } from "../helpers/tmp.js";

const AIDER = join(import.meta.dirname, "../fixtures/transcripts/aider.chat.history.md");

let n = 0;
const turn = (role: Turn["role"], text: string, over: Partial<Turn> = {}): Turn => ({
  id: `t${n}`,
  index: n++,
  role,
  kind: "message",
  text,
  tool_calls: [],
  tool_results: [],
  ...over,
});

describe("event units from an aider history", () => {
  const t = parseTranscriptFile(AIDER);
  const drafts = eventDrafts("s", t.turns, extractSections(t.turns, { cwd: t.cwd }));

  it("turns a request that led to an edit into a change unit naming the file and the request, whole", () => {
    const change = drafts.find(
      (d) => d.category === "change" && d.record.kind === "edit" && d.files.includes(".gitignore"),
    );
    expect(change).toBeDefined();
    expect(change!.text).toContain("can you fix .gitignore to remove .aider files and directories");
    expect(change!.text).toContain("282e9cb");
    expect(change!.text).not.toContain("…");
  });

  it("folds a commit that carried one request's edits into that request's change unit", () => {
    const change = drafts.find((d) => d.record.commit === "282e9cb");
    expect(change?.text).toContain("chore: Update .gitignore to remove .aider files and add common Python ignores");
    expect(change?.files).toEqual([".gitignore"]);
    expect(drafts.some((d) => d.record.kind === "commit" && d.record.sha === "282e9cb")).toBe(false);
  });

  it("stores no request as a rule", () => {
    const rules = drafts.filter((d) => d.category === "commitment");
    for (const r of rules) expect(r.text).not.toMatch(/^can you fix \.gitignore/);
  });
});

describe("event units from tool calls (Claude Code shape)", () => {
  const span: Turn[] = [
    turn("user", "Add a retry to the upload client. Never change the public API of src/net/client.ts."),
    turn("assistant", "I'll add the retry.", {
      tool_calls: [
        {
          id: "c1",
          name: "Edit",
          input: { file_path: "/home/me/app/src/net/retry.ts", old_string: "a", new_string: "b" },
        },
      ],
    }),
    turn("user", "", { tool_results: [{ call_id: "c1", output: "The file has been updated.", is_error: false }] }),
    turn("assistant", "", {
      tool_calls: [{ id: "c2", name: "Bash", input: { command: "npx tsc --noEmit" } }],
    }),
    turn("user", "", {
      tool_results: [
        {
          call_id: "c2",
          output: "src/net/retry.ts(4,7): error TS2322: Type 'string' is not assignable to type 'number'.",
          is_error: true,
        },
      ],
    }),
    turn("user", "Please list the unused functions in src/net."),
  ];
  const drafts = eventDrafts("s", span, extractSections(span, { cwd: "/home/me/app" }));

  it("names the project-relative path and the request it served", () => {
    const change = drafts.find((d) => d.category === "change");
    expect(change?.files).toEqual(["src/net/retry.ts"]);
    expect(change?.text).toContain('for the request "Add a retry to the upload client.');
  });

  it("keeps the standing rule in the user's words and not the one-off requests", () => {
    const rules = drafts.filter((d) => d.category === "commitment").map((d) => d.text);
    expect(rules).toEqual(["Never change the public API of src/net/client.ts."]);
  });

  it("records an error with where it was hit", () => {
    const failure = drafts.find((d) => d.category === "failure");
    expect(failure?.text).toContain("TS2322");
    expect(failure?.record.where).toContain("Add a retry to the upload client.");
  });
});

describe("a commit carrying the edits of two requests", () => {
  const edit = (id: string, path: string): Partial<Turn> => ({
    tool_calls: [{ id, name: "Write", input: { file_path: path, content: "x" } }],
    tool_results: [{ call_id: id, output: "File created successfully", is_error: false }],
  });
  const span: Turn[] = [
    turn("user", "Add a health endpoint to the server."),
    turn("assistant", "", edit("w1", "/r/src/health.ts")),
    turn("user", "Also add a readiness probe next to it."),
    turn("assistant", "", edit("w2", "/r/src/ready.ts")),
    turn("assistant", "", {
      tool_calls: [{ id: "g", name: "Bash", input: { command: 'git commit -am "feat: health and readiness probes"' } }],
      tool_results: [{ call_id: "g", output: "[main 4f2a9c1] feat: health and readiness probes", is_error: false }],
    }),
  ];
  it("is its own unit with its hash, message and both files", () => {
    const drafts = eventDrafts("s", span, extractSections(span, { cwd: "/r" }));
    const commit = drafts.find((d) => d.record.kind === "commit");
    expect(commit?.text).toContain("4f2a9c1");
    expect(commit?.text).toContain("feat: health and readiness probes");
    expect(commit?.files).toEqual(["src/health.ts", "src/ready.ts"]);
  });
});

describe("requests and rules in the user's words", () => {
  it("keeps whole sentences of a request and leaves pasted code out", () => {
    const r = requestText("Fix the login redirect. It loops forever.\n```ts\nconst a = 1;\n```\nThanks");
    expect(r).toBe("Fix the login redirect. It loops forever. Thanks");
  });
  it("takes only firm sentences as rules, never questions", () => {
    expect(ruleSentences("Always run the linter before committing. Can you never do that?")).toEqual([
      "Always run the linter before committing.",
    ]);
    expect(ruleSentences("List the unused functions in the repo.")).toEqual([]);
    expect(ruleSentences("I'm not sure if I should reformat that object or only the input.")).toEqual([]);
    expect(ruleSentences('assert lo != hi, "endpoints must straddle the boundary"')).toEqual([]);
    expect(ruleSentences("Use trace_ray from geodesic_bridge.py (read-only, do not modify).")).toHaveLength(1);
    // A rule joined to a request keeps the whole sentence; a request joined to another request is none.
    expect(ruleSentences("Fix the area bug, but do not change the public API of the shapes package.")).toEqual([
      "Fix the area bug, but do not change the public API of the shapes package.",
    ]);
    expect(ruleSentences("Fix the area bug, and then rerun the tests.")).toEqual([]);
  });
});

describe("distilled events in search", () => {
  it("answers which file was changed for a request with its full path", () => {
    const dir = tmpDir();
    const db = openDatabase(join(dir, "m.db"));
    const projectId = upsertProject(db, "ev", dir).id;
    const t = parseTranscriptFile(AIDER);
    distill(db, projectId, "s1", t.turns, extractSections(t.turns, { cwd: t.cwd }));
    const units = listMemories(db, projectId, { category: "change", limit: 100 });
    expect(units.length).toBeGreaterThan(0);
    const hits = searchMemory({ db, projectId, root: dir }, { query: "fix gitignore aider files" }).hits;
    expect(hits.some((h) => h.category === "change" && h.text.includes(".gitignore"))).toBe(true);
    db.close();
  });
});

describe("what a person typed, not what they pasted", () => {
  it("keeps prose that starts like code and drops code", () => {
    expect(ruleSentences("From now on, never push to main without a review.")).toHaveLength(1);
    expect(ruleSentences("if x > 0: never_called()")).toEqual([]);
    expect(ruleSentences("If the tests fail, never push.")).toHaveLength(1);
  });
});

describe("search returns the fact with its evidence, within a budget", () => {
  const dir = tmpDir();
  const db = openDatabase(join(dir, "w.db"));
  const projectId = upsertProject(db, "win", dir).id;
  const deps = { db, projectId, root: dir };
  const long = `${"Unrelated output line.\n".repeat(80)}The flaky spec is tests/e2e/login.spec.ts, it times out on the OAuth redirect.\n${"More output.\n".repeat(80)}`;
  const span: Turn[] = [
    turn("user", "Never merge with a red login suite."),
    turn("assistant", "Checked the e2e runs.", {
      tool_calls: [{ id: "r", name: "Bash", input: { command: "npm run e2e" } }],
      tool_results: [{ call_id: "r", output: long, is_error: false }],
    }),
  ];
  distill(db, projectId, "s1", span, extractSections(span));
  it("archives tool output, so the raw archive finds what only a tool printed", () => {
    const r = searchMemory(deps, { query: "which spec times out on the OAuth redirect", includeRaw: true });
    expect(r.raw.some((x) => x.text.includes("tests/e2e/login.spec.ts"))).toBe(true);
    expect(r.raw.every((x) => x.text.length <= 600)).toBe(true);
  });
  it("fills in, without the archive asked for, a short window of a turn no unit covers", () => {
    const r = searchMemory(deps, { query: "which spec times out on the OAuth redirect", limit: 4 });
    const fill = r.raw.find((x) => x.text.includes("tests/e2e/login.spec.ts"));
    expect(fill?.text).toMatch(
      /^(?:Unrelated output line\. )*The flaky spec is tests\/e2e\/login\.spec\.ts, it times out on the OAuth redirect\./,
    );
    expect(fill!.text.length).toBeLessThanOrEqual(360);
    expect(r.hits.length + r.raw.length).toBeLessThanOrEqual(4);
  });
  it("adds no window that only repeats a unit shown", () => {
    const r = searchMemory(deps, { query: "never merge red login suite" });
    expect(r.hits.some((h) => h.text === "Never merge with a red login suite.")).toBe(true);
    expect(r.raw.some((x) => x.text.includes("Never merge with a red login suite"))).toBe(false);
  });
  it("keeps what it returns within the caller's budget", () => {
    const all = searchMemory(deps, { query: "login suite OAuth redirect spec", includeRaw: true });
    const small = searchMemory(deps, {
      query: "login suite OAuth redirect spec",
      includeRaw: true,
      budgetTokens: 100,
    });
    const size = (r: typeof all) =>
      r.hits.reduce((n, h) => n + countTokens(h.text) + (h.window ? countTokens(h.window) : 0), 0) +
      r.raw.reduce((n, x) => n + countTokens(x.text), 0);
    expect(size(all)).toBeGreaterThan(100);
    expect(size(small)).toBeLessThanOrEqual(100);
    expect(small.hits.length + small.raw.length).toBeGreaterThan(0);
  });
});

describe("a unit whose cited file changed", () => {
  it("is marked stale on the next search and recall after a real edit", () => {
    const dir = tmpDir();
    mkdirSync(join(dir, "src"), { recursive: true });
    writeFileSync(join(dir, "src", "limits.ts"), "export const MAX = 10;\n");
    const db = openDatabase(join(dir, "s.db"));
    const projectId = upsertProject(db, "stale", dir).id;
    const deps = { db, projectId, root: dir };
    const span: Turn[] = [
      turn("user", "Raise the upload limit to ten files."),
      turn("assistant", "", {
        tool_calls: [{ id: "e", name: "Edit", input: { file_path: join(dir, "src/limits.ts"), old_string: "5" } }],
        tool_results: [{ call_id: "e", output: "The file has been updated.", is_error: false }],
      }),
    ];
    distill(db, projectId, "s1", span, extractSections(span, { cwd: dir }));
    const query = { query: "upload limit ten files" };
    const before = searchMemory(deps, query).hits.find((h) => h.category === "change");
    expect(before?.files).toEqual(["src/limits.ts"]);
    expect(before?.stale).toBeUndefined();
    writeFileSync(join(dir, "src", "limits.ts"), "export const MAX = 20;\n");
    const after = searchMemory(deps, query).hits.find((h) => h.category === "change");
    expect(after?.stale).toEqual(["src/limits.ts"]);
    expect(recall(deps).markdown).toContain("stale: src/limits.ts changed since");
    db.close();
  });
});

describe("a revert", () => {
  it("is a dead end with the command and the request, and recall does not list it as a fact", () => {
    const span: Turn[] = [
      turn("user", "Try caching the session lookups in memory."),
      turn("assistant", "", {
        tool_calls: [{ id: "g", name: "Bash", input: { command: "git checkout -- src/session/cache.ts" } }],
        tool_results: [{ call_id: "g", output: "", is_error: false }],
      }),
    ];
    const drafts = eventDrafts("s", span, extractSections(span));
    const dead = drafts.find((d) => d.category === "dead_end");
    expect(dead?.text).toBe(
      'Reverted with `git checkout -- src/session/cache.ts` while working on the request "Try caching the session lookups in memory.".',
    );
    const dir = tmpDir();
    const db = openDatabase(join(dir, "d.db"));
    const projectId = upsertProject(db, "dead", dir).id;
    distill(db, projectId, "s1", span, extractSections(span));
    expect(recall({ db, projectId, root: dir }).markdown).not.toContain("Reverted with");
    db.close();
  });
});

describe("a command that only mentions a revert", () => {
  const bash = (id: string, command: string, output = "", is_error = false): Partial<Turn> => ({
    tool_calls: [{ id, name: "Bash", input: { command } }],
    tool_results: [{ call_id: id, output, is_error }],
  });
  const deadEnds = (span: Turn[]) =>
    eventDrafts("s", span, extractSections(span)).filter((d) => d.category === "dead_end");

  it("is no dead end when the words are in an echo, a grep or a heredoc", () => {
    const span: Turn[] = [
      turn("user", "Document how to discard local changes."),
      turn("assistant", "", bash("e", 'echo "use git restore src/a.ts to discard"')),
      turn("assistant", "", bash("g", "grep -rn 'git checkout -- ' docs/")),
      turn("assistant", "", bash("h", "cat > docs/undo.md <<'EOF'\nRun git reset --hard to start over.\nEOF")),
    ];
    expect(deadEnds(span)).toEqual([]);
  });

  it("is no dead end when it only unstages or when the revert failed", () => {
    const span: Turn[] = [
      turn("user", "Split the change into two commits."),
      turn("assistant", "", bash("s", "git restore --staged src/a.ts")),
      turn("assistant", "", bash("f", "git checkout -- src/b.ts", "error: pathspec 'src/b.ts' did not match", true)),
    ];
    expect(deadEnds(span)).toEqual([]);
  });

  it("a real revert after other commands is still a dead end, named by its own command", () => {
    const span: Turn[] = [
      turn("user", "Try caching the session lookups in memory."),
      turn("assistant", "", bash("r", "cd /repo && git restore src/session/cache.ts && npm test")),
    ];
    expect(deadEnds(span).map((d) => d.record.command)).toEqual(["git restore src/session/cache.ts"]);
  });
});

describe("what a unit says", () => {
  it("stores no rule from a 'don't mind', a 'must' used as a noun, or a heading whose list follows", () => {
    expect(ruleSentences("Don't mind, your last change of the package.json fixed it.")).toEqual([]);
    expect(ruleSentences("Never mind, the build passes now after the restart.")).toEqual([]);
    expect(ruleSentences("@critic s5 implementation and fix if any must fixes")).toEqual([]);
    expect(ruleSentences("Ensure README.md includes in SPANISH:")).toEqual([]);
    expect(ruleSentences("Conditional documents must NOT appear in the dropdown.")).toEqual([
      "Conditional documents must NOT appear in the dropdown.",
    ]);
    expect(ruleSentences("Don't modify the generated files under src/gen.")).toEqual([
      "Don't modify the generated files under src/gen.",
    ]);
  });

  it("stores no failure that is only the header line an error follows", () => {
    const span: Turn[] = [
      turn("user", "Run the tests."),
      turn("assistant", "", {
        tool_calls: [{ id: "p", name: "Bash", input: { command: "python -m app" } }],
        tool_results: [
          {
            call_id: "p",
            output:
              "Traceback (most recent call last):\n  File \"app/__main__.py\", line 2, in <module>\nKeyError: 'id'",
            is_error: true,
          },
        ],
      }),
    ];
    const failures = eventDrafts("s", span, extractSections(span)).filter((d) => d.category === "failure");
    expect(failures.map((f) => f.record.error)).toContain("KeyError: 'id'");
    for (const f of failures) expect(f.record.error).not.toMatch(/:$/);
  });
});

describe("one finding, one unit", () => {
  it("a sentence read both as a learning and as a decision is stored once", () => {
    const span: Turn[] = [
      turn("user", "Why does the register command crash on Python 3.9?"),
      turn("assistant", "", {
        tool_calls: [{ id: "r", name: "Read", input: { file_path: "cogs/registration.py" } }],
        tool_results: [{ call_id: "r", output: "from __future__ import annotations\nimport discord", is_error: false }],
      }),
      turn(
        "assistant",
        "The root cause is that discord.py evaluates slash command parameter annotations at runtime via `eval()`, which bypasses `from __future__ import annotations`. The fix is to use `Optional[str]` in the command signatures.",
      ),
    ];
    const drafts = draftUnits("s", span, extractSections(span));
    const texts = drafts.filter((d) => d.category === "learning" || d.category === "reasoning").map((d) => d.text);
    expect(texts.length).toBeGreaterThan(0);
    expect(new Set(texts).size).toBe(texts.length);
  });
});

describe("an aider /undo", () => {
  const history = [
    "# aider chat started at 2025-05-01 10:00:00",
    "",
    "#### add the mongo settings to the development config",
    "",
    "appsettings.Development.json",
    "```json",
    "<<<<<<< SEARCH",
    "{",
    "=======",
    '{ "Mongo": { "Db": "CatalogDB" },',
    ">>>>>>> REPLACE",
    "```",
    "",
    "> Applied edit to appsettings.Development.json  ",
    "> Commit 609f42e feat: add MongoDB configuration to development settings  ",
    "",
    "#### /undo  ",
    "> Removed: 609f42e feat: add MongoDB configuration to development settings  ",
    "> Now at:  e8033b5 refactor: update IProductRepository  ",
    "",
  ].join("\n");

  it("is a dead end naming the undone commit, its files and the request", () => {
    const t = parseText(history, "aider-md");
    const dead = eventDrafts("s", t.turns, extractSections(t.turns)).filter((d) => d.category === "dead_end");
    expect(dead).toHaveLength(1);
    expect(dead[0]!.text).toContain("609f42e");
    expect(dead[0]!.text).toContain("feat: add MongoDB configuration to development settings");
    expect(dead[0]!.files).toEqual(["appsettings.Development.json"]);
    expect(dead[0]!.text).toContain('"add the mongo settings to the development config"');
  });
});

describe("what is not worth a unit", () => {
  const edit = (id: string, path: string): Partial<Turn> => ({
    tool_calls: [{ id, name: "Edit", input: { file_path: path, old_string: "a", new_string: "b" } }],
    tool_results: [{ call_id: id, output: "The file has been updated.", is_error: false }],
  });
  const bash = (id: string, command: string, output: string, isError: boolean): Partial<Turn> => ({
    tool_calls: [{ id, name: "Bash", input: { command } }],
    tool_results: [{ call_id: id, output, is_error: isError }],
  });

  it("a type error the agent's own edit caused and its next edit fixed", () => {
    const span: Turn[] = [
      turn("user", "Make the token parser return a typed grant."),
      turn("assistant", "", edit("e1", "/r/src/auth.ts")),
      turn(
        "assistant",
        "",
        bash(
          "b1",
          "npx tsc --noEmit",
          "src/auth.ts(20,8): error TS2315: Type 'AuthenticatedRequest' is not generic.",
          true,
        ),
      ),
      turn("assistant", "", edit("e2", "/r/src/auth.ts")),
      turn("assistant", "", bash("b2", "npx tsc --noEmit", "", false)),
    ];
    const sections = extractSections(span, { cwd: "/r" });
    expect(sections.failures.some((f) => f.text.includes("TS2315") && f.remediation)).toBe(true);
    const failures = eventDrafts("s", span, sections).filter((d) => d.category === "failure");
    expect(failures).toEqual([]);
  });

  it("an editor's diagnostic after the agent's write, fixed by its next write", () => {
    const span: Turn[] = [
      turn("user", "Reread the express.d.ts and adapt auth.ts to it."),
      turn("assistant", "", {
        tool_calls: [{ id: "w1", name: "Write", input: { file_path: "/r/src/config/keycloak.ts", content: "x" } }],
        tool_results: [
          {
            call_id: "w1",
            output:
              "The content was successfully saved to src/config/keycloak.ts.\n\nNew problems detected after saving the file:\nsrc/config/keycloak.ts\n- [ts Error] Line 52: Property 'startsWith' does not exist on type 'string[]'.",
            is_error: false,
          },
        ],
      }),
      turn("assistant", "", {
        tool_calls: [{ id: "w2", name: "Write", input: { file_path: "/r/src/config/keycloak.ts", content: "y" } }],
        tool_results: [
          { call_id: "w2", output: "The content was successfully saved to src/config/keycloak.ts.", is_error: false },
        ],
      }),
    ];
    const sections = extractSections(span, { cwd: "/r" });
    expect(sections.failures.some((f) => f.text.includes("startsWith") && f.remediation)).toBe(true);
    const drafts = eventDrafts("s", span, sections);
    expect(drafts.filter((d) => d.category === "failure" && String(d.record.error).includes("startsWith"))).toEqual([]);
  });

  it("the same type error is kept when no edit of the agent's came before it", () => {
    const span: Turn[] = [
      turn("user", "Check why the build fails."),
      turn(
        "assistant",
        "",
        bash(
          "b1",
          "npx tsc --noEmit",
          "src/auth.ts(20,8): error TS2315: Type 'AuthenticatedRequest' is not generic.",
          true,
        ),
      ),
      turn("assistant", "", edit("e2", "/r/src/auth.ts")),
      turn("assistant", "", bash("b2", "npx tsc --noEmit", "", false)),
    ];
    const failures = eventDrafts("s", span, extractSections(span, { cwd: "/r" })).filter(
      (d) => d.category === "failure",
    );
    expect(failures.map((f) => f.record.error)).toContain(
      "src/auth.ts(20,8): error TS2315: Type 'AuthenticatedRequest' is not generic.",
    );
  });

  it("a docstring's Raises: entry printed by a tool is no error that was hit", () => {
    const span: Turn[] = [
      turn("user", "Show me the converter."),
      turn("assistant", "", {
        tool_calls: [{ id: "r", name: "Bash", input: { command: "sed -n 1,40p politipo/convert.py" } }],
        tool_results: [
          {
            call_id: "r",
            output:
              'def to_models(df):\n    """Convert rows to models.\n\n    Raises:\n        ConversionError: If the object is not a supported Pandera type.\n    """',
            is_error: false,
          },
        ],
      }),
    ];
    expect(errorLine("ConversionError: If the object is not a supported Pandera type.", span[1]!)).toBeUndefined();
    expect(errorLine("ValueError: When the frame is empty", span[1]!)).toBeUndefined();
    expect(errorLine("ConversionError: object of type 'Series' is not a supported Pandera type", span[1]!)).toBe(
      "ConversionError: object of type 'Series' is not a supported Pandera type",
    );
  });

  it("a test run's tally or duration", () => {
    const span: Turn[] = [
      turn("user", "Run the unit tests."),
      turn(
        "assistant",
        "",
        bash(
          "t",
          "npx vitest run",
          " Test Files  5 passed (5)\n      Tests  77 passed (77)\n   Duration  536 ms",
          false,
        ),
      ),
    ];
    const sections = extractSections(span);
    expect(sections.metrics.tests?.value).toContain("77 passed");
    expect(draftUnits("s", span, sections).filter((d) => d.category === "performance")).toEqual([]);
  });

  it("a pasted compiler line is no request, even where it reads as a sentence", () => {
    const pasted = [
      "c:\\src\\Codeunits\\Cod51000.Economic.al(40,42): error AL0856: Statements cannot start with a parenthesis in runtime version '11.0'. The supported runtime versions are: '14.0' or greater.",
      "src/app.ts:12:3 - error TS2304: Cannot find name 'foo'. Did you mean 'for'?",
    ].join("\n");
    expect(requestText(pasted)).toBe("");
    expect(requestText(`Fix these please.\n${pasted}`)).toBe("Fix these please.");
  });
});

describe("aider commits", () => {
  const history = (tail: string[]) =>
    [
      "# aider chat started at 2025-05-01 10:00:00",
      "",
      "#### get the connection string from env MONGODB_CONNECTION_STRING",
      "",
      "Program.cs",
      "```csharp",
      "<<<<<<< SEARCH",
      'var c = "x";',
      "=======",
      'var c = Environment.GetEnvironmentVariable("MONGODB_CONNECTION_STRING");',
      ">>>>>>> REPLACE",
      "```",
      "",
      "> Commit 098a698 feat: add interface import for catalog service  ",
      "> Applied edit to Program.cs  ",
      "> Commit 1101109 feat: use MONGODB_CONNECTION_STRING env var  ",
      "",
      ...tail,
    ].join("\n");

  it("a commit named by the request's change unit is not stored again on its own", () => {
    const t = parseText(history([]), "aider-md");
    const drafts = eventDrafts("s", t.turns, extractSections(t.turns));
    const naming = drafts.filter((d) => d.category === "change" && d.text.includes("1101109"));
    expect(naming).toHaveLength(1);
    expect(naming[0]!.record.kind).toBe("edit");
  });

  it("a commit later undone with /undo is no change, only the dead end", () => {
    const t = parseText(
      history([
        "#### /undo  ",
        "> Removed: 1101109 feat: use MONGODB_CONNECTION_STRING env var  ",
        "> Now at:  098a698 feat: add interface import for catalog service  ",
        "",
      ]),
      "aider-md",
    );
    const drafts = eventDrafts("s", t.turns, extractSections(t.turns));
    expect(drafts.filter((d) => d.category === "change" && d.text.includes("1101109"))).toEqual([]);
    expect(drafts.filter((d) => d.category === "dead_end").map((d) => d.record.sha)).toEqual(["1101109"]);
  });
});

describe("preferences", () => {
  it("come only from a turn the human-turn classifier took for a standing instruction, never from a remark", () => {
    const span = [
      turn(
        "user",
        "Hey I love the changes you've made but I'm confused on how ctx is being used for countryRequiresState",
      ),
      turn("assistant", "ctx carries the request's locale; countryRequiresState reads it to pick the rule set."),
    ];
    const sections = extractSections(span);
    const drafts = draftUnits("s", span, sections);
    expect(sections.constraints).toEqual([]);
    expect(drafts.filter((d) => d.category === "preference")).toEqual([]);
  });
});

describe("rules only where the person set one, each sentence whole", () => {
  it("does not cut a sentence after an abbreviation or where it goes on in lower case", () => {
    expect(
      lineSentences('I want you to study the Record "Gen. Journal Line" in the base application. Then stop.'),
    ).toEqual(['I want you to study the Record "Gen. Journal Line" in the base application.', "Then stop."]);
    expect(lineSentences("Customers keep the same customer no. as they had before. Done.")).toHaveLength(2);
    expect(lineSentences("Use a plain key, e.g. the id. It works.")).toEqual([
      "Use a plain key, e.g. the id.",
      "It works.",
    ]);
  });

  it("takes no request, remark or role said in an instruction turn as a rule", () => {
    for (const s of [
      "I only want 1 object for this.",
      "Reread the express.d.ts and adapt auth.ts to it",
      "I will test it.",
      "I have updated runtime to version 16.",
      "You are acting as a developer to help build an extension for data migration.",
      "Put the webservice project inside backend folder.",
      "Before you start programming anything I want you to study the API closely.",
    ])
      expect(ruleSentences(s)).toEqual([]);
  });

  it("keeps a directive that holds on: kept updated, every time, a reminder, a recurring condition", () => {
    for (const s of [
      "Keep this spec updated as decisions are made.",
      "I think we should bump the version number of the extension each time we make changes.",
      "Meanwhile remember to keep the specification.md updated.",
      "When you edit customers remember to edit vendors too.",
      "In the health endpoint, do NOT return sqlite://// ever.",
      "- Do not assert Tailwind classes in tests.",
      "No SQL queries, only AL code!",
    ])
      expect(ruleSentences(s)).toHaveLength(1);
  });

  it("makes rule units of the instruction turn's rule sentences only, whole", () => {
    const span: Turn[] = [
      turn(
        "user",
        'Keep the specification updated as decisions are made. I only want 1 object for this. From now on, never post a journal without checking the Record "Gen. Journal Line" first.',
      ),
      turn("assistant", "Understood."),
    ];
    const rules = eventDrafts("s", span, extractSections(span)).filter((d) => d.category === "commitment");
    // The summary's constraint cut the sentence at "Gen."; the unit takes it whole from the turn.
    expect(rules.map((r) => r.text)).toEqual([
      'From now on, never post a journal without checking the Record "Gen. Journal Line" first.',
    ]);
  });
});

describe("errors and edits that are no facts of the project", () => {
  it("stores no bare error class and no command's exit code reported by what ran it", () => {
    const t = turn("assistant", "");
    expect(errorLine("NotImplementedError.", t)).toBeUndefined();
    expect(
      errorLine('failed to solve: process "/bin/sh -c npm run build" did not complete successfully: exit code: 2', t),
    ).toBeUndefined();
    expect(errorLine("error TS2688: Cannot find type definition file for 'chai'.", t)).toBeDefined();
  });

  it("makes no change unit of a helper written in a scratch or temp folder", () => {
    const span: Turn[] = [
      turn("user", "Add the Vercel environment variables for the deploy."),
      turn("assistant", "", {
        tool_calls: [
          {
            id: "w1",
            name: "Write",
            input: { file_path: "/home/me/.agent/brain/42/scratch/add-envs.js", content: "x" },
          },
          { id: "w2", name: "Write", input: { file_path: "/r/vercel.json", content: "{}" } },
        ],
        tool_results: [
          { call_id: "w1", output: "ok", is_error: false },
          { call_id: "w2", output: "ok", is_error: false },
        ],
      }),
    ];
    const changes = eventDrafts("s", span, extractSections(span, { cwd: "/r" })).filter((d) => d.category === "change");
    expect(changes.flatMap((c) => c.files)).toEqual(["vercel.json"]);
  });
});

describe("which request an edit served", () => {
  it("files an edit under a report that opened a pasted payload on its first line, not the request before", () => {
    const span: Turn[] = [
      turn("user", "The health endpoint returns the wrong scheme for the database URL."),
      turn("assistant", "Fixed the scheme.", {
        tool_calls: [
          { id: "e1", name: "Edit", input: { file_path: "/r/backend/app.py", old_string: "a", new_string: "b" } },
        ],
        tool_results: [{ call_id: "e1", output: "ok", is_error: false }],
      }),
      turn(
        "user",
        'When I use an absolute Windows path for fetching the schema I get {\n  "status": 500,\n  "detail": "unable to open database file"\n}',
      ),
      turn("assistant", "Accepting both URL forms now.", {
        tool_calls: [
          { id: "e2", name: "Edit", input: { file_path: "/r/backend/db.py", old_string: "a", new_string: "b" } },
        ],
        tool_results: [{ call_id: "e2", output: "ok", is_error: false }],
      }),
    ];
    const changes = eventDrafts("s", span, extractSections(span, { cwd: "/r" })).filter((d) => d.category === "change");
    const db = changes.find((c) => c.files.includes("backend/db.py"))!;
    expect(db.record.request).toBe("When I use an absolute Windows path for fetching the schema I get:");
    expect(db.files).toEqual(["backend/db.py"]);
  });
});

describe("errors of the project, not of a throwaway script", () => {
  it("stores no error raised inside a debug script the agent ran, and keeps one raised in the project's code", () => {
    const run = (id: string, output: string): Partial<Turn> => ({
      tool_calls: [{ id, name: "Bash", input: { command: "python debug_constraints.py" } }],
      tool_results: [{ call_id: id, output, is_error: true }],
    });
    const span: Turn[] = [
      turn("user", "Find out why the constraints are lost in the conversion."),
      turn(
        "assistant",
        "",
        run(
          "d1",
          "Traceback (most recent call last):\n  File \"/w/debug_constraints.py\", line 19, in <module>\n    from politipo.core.constraints import MinLength\nModuleNotFoundError: No module named 'politipo.core.constraints'",
        ),
      ),
      turn(
        "assistant",
        "",
        run(
          "d2",
          'Traceback (most recent call last):\n  File "/w/debug_constraints.py", line 3, in <module>\n    convert(df)\n  File "/w/politipo/convert.py", line 40, in convert\n    key = {field: meta}\nTypeError: unhashable type: \'dict\'',
        ),
      ),
    ];
    const errors = eventDrafts("s", span, extractSections(span)).filter((d) => d.category === "failure");
    expect(errors.map((e) => e.record.error)).toEqual(["TypeError: unhashable type: 'dict'"]);
  });
});

describe("errors and edits of a project whose files are named or placed like scratch", () => {
  const run = (id: string, output: string): Partial<Turn> => ({
    tool_calls: [{ id, name: "Bash", input: { command: "python manage.py check" } }],
    tool_results: [{ call_id: id, output, is_error: true }],
  });
  const raisedIn = (file: string) => {
    const span: Turn[] = [
      turn("user", "Find out why the page crashes on render."),
      turn(
        "assistant",
        "",
        run(
          `r${n}`,
          `Traceback (most recent call last):\n  File "/w/manage.py", line 3, in <module>\n    main()\n  File "${file}", line 40, in render\n    key = {field: meta}\nTypeError: unhashable type: 'dict'`,
        ),
      ),
    ];
    return eventDrafts("s", span, extractSections(span)).filter((d) => d.category === "failure");
  };

  it("keeps an error raised in a module whose name only starts like a scratch word, or in a project under /tmp", () => {
    for (const file of [
      "/w/app/templates.py",
      "/w/app/temperature.py",
      "/w/src/debugger.py",
      "/tmp/shop/app/models.py",
      "/w/venv/lib/python3.12/site-packages/lib/tmp.py",
    ])
      expect(raisedIn(file).map((e) => e.record.error)).toEqual(["TypeError: unhashable type: 'dict'"]);
    for (const file of ["/w/debug_render.py", "/tmp/check.py", "/w/tmp-probe.py"]) expect(raisedIn(file)).toEqual([]);
  });

  it("keeps the edits of a project that lives under /tmp or has its own tmp/ or temp/ folder", () => {
    const edited = (cwd: string | undefined, path: string) => {
      const span: Turn[] = [
        turn("user", "Add a retry to the loader."),
        turn("assistant", "", {
          tool_calls: [{ id: `e${n}`, name: "Edit", input: { file_path: path, old_string: "a", new_string: "b" } }],
          tool_results: [{ call_id: `e${n}`, output: "ok", is_error: false }],
        }),
      ];
      span[1]!.tool_results[0]!.call_id = span[1]!.tool_calls[0]!.id;
      return eventDrafts("s", span, extractSections(span, { cwd }))
        .filter((d) => d.category === "change")
        .flatMap((c) => c.files);
    };
    expect(edited(undefined, "/tmp/shop/src/loader.py")).toHaveLength(1);
    expect(edited("/r", "/r/src/sensors/temp/reader.py")).toEqual(["src/sensors/temp/reader.py"]);
    expect(edited("/r", "/r/tmp/loader.py")).toEqual(["tmp/loader.py"]);
    expect(edited("/r", "/tmp/retry_check.py")).toEqual([]);
  });
});

describe("a rule cut early by the summary is stored whole", () => {
  it("takes the whole sentence from the turn when the cut after an abbreviation came in its first words", () => {
    const span: Turn[] = [
      turn("user", "Always use absolute imports (e.g. from app.models import User) rather than relative ones."),
      turn("assistant", "Understood."),
    ];
    const rules = eventDrafts("s", span, extractSections(span)).filter((d) => d.category === "commitment");
    expect(rules.map((r) => r.text)).toEqual([
      "Always use absolute imports (e.g. from app.models import User) rather than relative ones.",
    ]);
  });
});

describe("sentences of a line typed in lower case, and of a very long line", () => {
  it("splits a line whose writer starts no sentence with a capital at each sentence's end", () => {
    expect(lineSentences("always run the tests before committing. never push to main directly.")).toEqual([
      "always run the tests before committing.",
      "never push to main directly.",
    ]);
    expect(ruleSentences("always run the tests before committing. never push to main directly.")).toHaveLength(2);
    // A writer who capitalises still has a sentence go on in lower case after a full stop.
    expect(lineSentences("Customers keep the same customer no. as they had before. Done.")).toHaveLength(2);
  });

  // No clock here: a reading quadratic in the line's length takes minutes on 1.6 MB (10 s on 400 KB), past the
  // suite's test timeout, where a linear one takes well under a second.
  it("reads a 1.6 MB line of abbreviations in time linear in its length", () => {
    const line = "See e.g. ".repeat(180_000);
    expect(lineSentences(line)).toHaveLength(1);
  });
});

describe("a firm request bound to the task at hand is no rule", () => {
  it("stores no rule of a sentence that says it holds this time, not yet, or for this commit", () => {
    for (const s of [
      "Only change the test file this time.",
      "Don't commit yet.",
      "Do not run the linter for this commit.",
      "Never mind the failing e2e tests right now, just fix the unit tests.",
      "Don't change anything else in that file.",
      "Only fix the typo, nothing else.",
      "Don't worry about the tests for now.",
      "Do not use pandas in this script; use the csv module.",
      "Please don't use the old API in this function, use fetchV2 instead.",
    ])
      expect(ruleSentences(s)).toEqual([]);
    for (const s of [
      "Never commit directly to main.",
      "Only change test files when a test is wrong.",
      "Never use pandas in this project; use the csv module.",
    ])
      expect(ruleSentences(s)).toHaveLength(1);
  });

  it("makes no rule unit of an instruction turn's one-off", () => {
    const span: Turn[] = [turn("user", "Only change the test file this time."), turn("assistant", "Understood.")];
    expect(eventDrafts("s", span, extractSections(span)).filter((d) => d.category === "commitment")).toEqual([]);
  });
});

describe("an exit report that says why the command failed", () => {
  it("keeps an exit line that names a system error, a signal or the message after the code", () => {
    const t = turn("assistant", "");
    for (const l of [
      "Error: The process '/usr/bin/git' failed with exit code 128: fatal: not a git repository",
      "Error: spawn npx ENOENT, exited with code -2",
      "Error: Command failed with exit code 1: SIGKILL received",
    ])
      expect(errorLine(l, t)).toBe(l);
    for (const l of [
      "Error: Process completed with exit code 1.",
      "npm ERR! code ELIFECYCLE, exited with code 1",
      "ERROR: failed to solve: process did not complete successfully: exit code: 2",
    ])
      expect(errorLine(l, t)).toBeUndefined();
  });
});

describe("a rule said to hold from now on", () => {
  it("stores a rule that holds from now on or going forward, with no other firm word", () => {
    for (const said of [
      "From now on use pnpm, not npm.",
      "Going forward, please write all commit messages in English.",
    ]) {
      const span: Turn[] = [turn("user", said), turn("assistant", "Understood.")];
      const rules = eventDrafts("s", span, extractSections(span)).filter((d) => d.category === "commitment");
      expect(rules.map((r) => r.text)).toEqual([said]);
    }
  });
});

describe("a rule under a condition that opens with when", () => {
  it("reads a when-clause as a condition, and as a question only with an auxiliary after it", () => {
    for (const s of [
      "When running the tests, always pass -x.",
      "When I say deploy, always run the smoke tests first.",
      "When it fails, never retry more than twice.",
    ]) {
      expect(ruleSentences(s)).toEqual([s]);
      const span: Turn[] = [turn("user", s), turn("assistant", "Understood.")];
      const rules = eventDrafts("s", span, extractSections(span)).filter((d) => d.category === "commitment");
      expect(rules.map((r) => r.text)).toEqual([s]);
    }
    expect(ruleSentences("When will you always run the tests.")).toEqual([]);
  });
});

describe("a report that opens a payload after a long run of spaces", () => {
  it("reads the report's first line in time linear in its length", () => {
    // No clock here: quadratic reading takes minutes on 400,000 spaces (11 s on 100,000), past the suite's test
    // timeout, where a linear one takes well under a second.
    const report = (gap: string) => `When I use an absolute path${gap}for the schema I get {\n  "status": 500\n}`;
    const drafts = (said: string) => {
      const span: Turn[] = [turn("user", said), turn("assistant", "ok")];
      return eventDrafts("s", span, extractSections(span)).map((d) => [d.category, d.record.error ?? d.files]);
    };
    // The long run of spaces changes nothing the report yields.
    expect(drafts(report(" ".repeat(400_000)))).toEqual(drafts(report(" ")));
  });
});

describe("a constraint of one task in a list is no standing rule", () => {
  it("stores no rule from the sub-items of a numbered fix, and keeps one that says it holds on", () => {
    const text = [
      "Fix:",
      "",
      "1. In updateSnapshotAction, reject invalid persona ids as well as missing ones.",
      "   - Do not write to DB.",
      "   - Do not redirect.",
      "   - Never log the persona cookie, in any handler.",
      "2. Replace the table layout with a stacked layout.",
      "   - Do not assert Tailwind classes in tests.",
    ].join("\n");
    const rules = ruleSentences(text);
    expect(rules).not.toContain("- Do not write to DB.");
    expect(rules.some((r) => r.includes("Do not redirect"))).toBe(false);
    expect(rules.some((r) => r.includes("Tailwind"))).toBe(false);
    expect(rules.some((r) => r.includes("Never log the persona cookie"))).toBe(true);
  });

  it("keeps the items of a list of rules that is no task", () => {
    const rules = ruleSentences("Some house rules:\n- Never commit the .env file.\n- Do not add new dependencies.");
    expect(rules.some((r) => r.includes("Never commit the .env file"))).toBe(true);
    expect(rules.some((r) => r.includes("Do not add new dependencies"))).toBe(true);
  });

  it("reads 'Ensure …' with nothing that makes it hold on as a task handed over, not a rule", () => {
    expect(ruleSentences("Ensure the test cases in backend are up to date with the database adapters.")).toEqual([]);
    expect(ruleSentences("Ensure that all backend tests run with the db_path 'sqlite://./ecommerce.db'.")).toEqual([]);
    expect(ruleSentences("Always ensure the migrations run before the tests.")).toHaveLength(1);
    expect(ruleSentences("When editing a file, make sure to keep the indentation of each line.")).toHaveLength(1);
    expect(ruleSentences("Make sure that you dont actually build this project.")).toHaveLength(1);
    expect(
      ruleSentences(
        "Please make sure that for any blocking command like netcat, you limit its run time with a timeout.",
      ),
    ).toHaveLength(1);
  });
});

describe("a request that is output the person pasted", () => {
  const edit = (id: string, path: string): Partial<Turn> => ({
    tool_calls: [{ id, name: "Edit", input: { file_path: path, old_string: "a", new_string: "b" } }],
    tool_results: [{ call_id: id, output: "ok", is_error: false }],
  });

  it("is named by the error it shows, as a follow-up of the request before", () => {
    const span: Turn[] = [
      turn("user", "Please convert the user table to pydantic models."),
      turn("assistant", "Done.", edit("e1", "/r/app/models.py")),
      turn(
        "user",
        "Converting DataFrame to User models...\n\nInput DataFrame:\n   name  age\n0  Alice  30\n\nTest 1: Converting schema...\nUnexpected error: unhashable type: 'dict'",
      ),
      turn("assistant", "Fixed the hashing.", edit("e2", "/r/app/types.py")),
    ];
    const changes = eventDrafts("s", span, extractSections(span, { cwd: "/r" })).filter((d) => d.category === "change");
    const types = changes.find((c) => c.files.includes("app/types.py"))!;
    expect(types.text).toContain(`the error "Unexpected error: unhashable type: 'dict'" the person pasted`);
    expect(types.text).toContain(`a follow-up to the request "Please convert the user table to pydantic models."`);
    expect(types.text).not.toContain("Alice");
  });

  it("takes terse notes with nothing a program printed for the person's own request", () => {
    const span: Turn[] = [
      turn("user", "Please add the login page."),
      turn("assistant", "Done.", edit("e1", "/r/src/login.tsx")),
      turn("user", "Dark mode toggle in the header\nColours as CSS variables\nChoice kept in localStorage"),
      turn("assistant", "Added the toggle.", edit("e2", "/r/src/theme.ts")),
    ];
    const changes = eventDrafts("s", span, extractSections(span, { cwd: "/r" })).filter((d) => d.category === "change");
    expect(changes.find((c) => c.files.includes("src/theme.ts"))!.record.request).toMatch(/^Dark mode toggle/);
  });

  it("keeps the person's words before a log they pasted on the same line, and the error the log ends on", () => {
    const span: Turn[] = [
      turn(
        "user",
        "I'm getting this error message now: 2026-03-30 22:31:27 [INFO] __main__: Loaded extension: cogs.registration\nTraceback (most recent call last):\n  File \"/app/cogs/leaderboard.py\", line 263, in Leaderboard\n    async def rank(\nTypeError: unsupported operand type(s) for |: 'type' and 'NoneType'",
      ),
      turn("assistant", "Added the future import.", edit("e1", "/r/cogs/leaderboard.py")),
    ];
    const change = eventDrafts("s", span, extractSections(span, { cwd: "/r" })).find((d) => d.category === "change")!;
    expect(change.record.request).toBe(
      "I'm getting this error message now: TypeError: unsupported operand type(s) for |: 'type' and 'NoneType'",
    );
  });
});

describe("errors of the agent's own steps", () => {
  const edit = (id: string, path: string): Partial<Turn> => ({
    tool_calls: [{ id, name: "Edit", input: { file_path: path, old_string: "a", new_string: "b" } }],
    tool_results: [{ call_id: id, output: "The file has been updated.", is_error: false }],
  });
  const bash = (id: string, command: string, output: string, isError: boolean): Partial<Turn> => ({
    tool_calls: [{ id, name: "Bash", input: { command } }],
    tool_results: [{ call_id: id, output, is_error: isError }],
  });
  const failures = (span: Turn[]) =>
    eventDrafts("s", span, extractSections(span, { cwd: "/r" })).filter((d) => d.category === "failure");

  it("stores no failure of a test the agent just wrote, and keeps one of a test it did not touch", () => {
    const run = (file: string) =>
      bash(
        "b1",
        "npx vitest run",
        `FAIL ${file} > labels > falls back to the code for unknown codes\nTests 1 failed`,
        true,
      );
    const own: Turn[] = [
      turn("user", "Show friendly labels for document errors."),
      turn("assistant", "", edit("e1", "/r/tests/labels.test.ts")),
      turn("assistant", "", run("tests/labels.test.ts")),
      turn("assistant", "", edit("e2", "/r/tests/labels.test.ts")),
      turn("assistant", "", bash("b2", "npx vitest run", "Tests 4 passed", false)),
    ];
    expect(failures(own).filter((f) => f.text.includes("labels.test.ts"))).toEqual([]);
    const theirs: Turn[] = [
      turn("user", "Show friendly labels for document errors."),
      turn("assistant", "", edit("e1", "/r/src/labels.ts")),
      turn("assistant", "", run("tests/labels.test.ts")),
      turn("assistant", "", edit("e2", "/r/src/labels.ts")),
      turn("assistant", "", bash("b2", "npx vitest run", "Tests 4 passed", false)),
    ];
    expect(failures(theirs).some((f) => f.text.includes("tests/labels.test.ts"))).toBe(true);
  });

  it("stores no port clash of the agent's own earlier run that a later run got past", () => {
    const span: Turn[] = [
      turn("user", "Add some log output to the node app."),
      turn("assistant", "", edit("e1", "/r/src/index.js")),
      turn(
        "assistant",
        "",
        bash("b1", "node src/index.js", "Error: listen EADDRINUSE: address already in use 127.0.0.1:48123", true),
      ),
      turn("assistant", "", bash("b2", "node src/index.js", "listening on 48123", false)),
    ];
    expect(failures(span).filter((f) => f.text.includes("EADDRINUSE"))).toEqual([]);
  });

  it("takes an error line out of the code marks it was wrapped in, and stores one error told two ways once", () => {
    const span: Turn[] = [
      turn("user", "I get this error in the router:\n```Property 'parent' does not exist on type 'RefinementCtx'.```"),
      turn("assistant", "", bash("b1", "python main.py", "Unexpected error: unhashable type: 'dict'", true)),
      turn("assistant", "", bash("b2", "python main.py --all", "TypeError: unhashable type: 'dict'", true)),
    ];
    const texts = failures(span).map((f) => f.text);
    expect(texts.some((t) => t.startsWith("Property 'parent' does not exist on type 'RefinementCtx'."))).toBe(true);
    expect(texts.some((t) => t.includes("```"))).toBe(false);
    expect(texts.filter((t) => t.includes("unhashable type"))).toHaveLength(1);
  });
});

describe("a log pasted before the person's words", () => {
  it("reads the request from the words after the log and its indented lines", () => {
    const log = [
      "fail: Microsoft.AspNetCore.Diagnostics.DeveloperExceptionPageMiddleware[1]",
      "      An unhandled exception has occurred while executing the request.",
      "      System.TimeoutException: A timeout occurred after 30000ms selecting a server.",
      "       ---> System.Net.Sockets.SocketException (0x00002AF9): No such host is known.",
      "         at System.Net.Dns.GetHostAddresses(String hostNameOrAddress)",
      " I get this error now when I try to run a get. Is something wrong in program.cs?",
    ].join("\n");
    expect(requestText(log)).toBe("I get this error now when I try to run a get. Is something wrong in program.cs?");
  });

  it("makes no change unit of the agent's own notes kept outside the project", () => {
    const span: Turn[] = [
      turn("user", "Ship the M0 milestone and note what is left."),
      turn("assistant", "", {
        tool_calls: [
          {
            id: "w1",
            name: "Write",
            input: { file_path: "/Users/a/.claude/projects/-Users-a-code-app/memory/m0_shipped.md", content: "x" },
          },
          { id: "w2", name: "Write", input: { file_path: "/Users/a/code/app/web/src/App.tsx", content: "y" } },
        ],
        tool_results: [
          { call_id: "w1", output: "ok", is_error: false },
          { call_id: "w2", output: "ok", is_error: false },
        ],
      }),
    ];
    const files = eventDrafts("s", span, extractSections(span, { cwd: "/Users/a/code/app" }))
      .filter((d) => d.category === "change")
      .flatMap((d) => d.files);
    expect(files).toEqual(["web/src/App.tsx"]);
  });
});

describe("one error reported with and without the person's words before it", () => {
  it("is one failure unit", () => {
    const span: Turn[] = [
      turn(
        "user",
        "Thanks. Getting The supplied field number '51000' cannot be found in the 'Economic Customer Mapping' table.",
      ),
      turn("assistant", "I will look at the mapping table."),
      turn("user", "The supplied field number '51000' cannot be found in the 'Economic Customer Mapping' table."),
    ];
    const failures = eventDrafts("s", span, extractSections(span)).filter((d) => d.category === "failure");
    expect(failures.filter((f) => f.text.includes("'51000' cannot be found"))).toHaveLength(1);
  });
});

describe("a request in the person's words, in any language", () => {
  const edit = (id: string, path: string): Partial<Turn> => ({
    tool_calls: [{ id, name: "Edit", input: { file_path: path, old_string: "a", new_string: "b" } }],
    tool_results: [{ call_id: id, output: "ok", is_error: false }],
  });
  const requestOfSecondEdit = (typed: string) => {
    const span: Turn[] = [
      turn("user", "Please add the login page."),
      turn("assistant", "Done.", edit("e1", "/r/src/login.tsx")),
      turn("user", typed),
      turn("assistant", "Done.", edit("e2", "/r/src/theme.ts")),
    ];
    const changes = eventDrafts("s", span, extractSections(span, { cwd: "/r" })).filter((d) => d.category === "change");
    return changes.find((c) => c.files.includes("src/theme.ts"))?.record.request;
  };

  it("stays the request with a line of code in it, not a paste with no error to name", () => {
    expect(requestOfSecondEdit("Ändere die Farbe des Headers.\ncolor = red\nDanach die Tests anpassen.")).toMatch(
      /^Ändere die Farbe des Headers\./,
    );
    expect(
      requestOfSecondEdit("Cambia el color del encabezado.\nbackground = blue\nLuego actualiza las pruebas."),
    ).toMatch(/^Cambia el color/);
  });

  it("stays the request with one double space slipped into it: columns are a table's on two lines or more", () => {
    expect(
      requestOfSecondEdit(
        "Der Knopf zum Speichern funktioniert nicht.\nWenn ich klicke,  passiert nichts.\nDie Konsole ist leer.",
      ),
    ).toMatch(/^Der Knopf zum Speichern/);
    expect(requestOfSecondEdit("ダークモードを追加してください。\nヘッダーにトグル  を置く\n色はCSS変数で")).toMatch(
      /^ダークモード/,
    );
    expect(
      requestOfSecondEdit(
        "Dark mode toggle in the header  (top right)\nColours as CSS variables\nChoice kept in localStorage",
      ),
    ).toMatch(/^Dark mode toggle/);
  });
});

describe("a long list pasted into a request", () => {
  // Each item is looked up once: a list of tens of thousands of lines (a pasted diff, a dependency list) is read in
  // one pass, where looking back over the lines above each item, or through every item for each sentence, never ends.
  const N = 40_000;
  it("bounds each item of a long task list to its task", () => {
    const text = ["Fix:", ...Array.from({ length: N }, (_, i) => `- Do not write to table${i} in the handler.`)].join(
      "\n",
    );
    expect(ruleSentences(text)).toEqual([]);
  });

  it("reads a long list that is no task, and a rule after it", () => {
    const text = [
      ...Array.from({ length: N }, (_, i) => `- module${i} is loaded`),
      "",
      "Never import lodash in app code.",
    ];
    expect(ruleSentences(text.join("\n"))).toEqual(["Never import lodash in app code."]);
  });

  it("bounds a task's item however its spaces were typed", () => {
    expect(ruleSentences("Fix:\n1. Rework the table.\n   - Do not assert  Tailwind classes in tests.")).toEqual([]);
  });
});

describe("errors whose message is only a value", () => {
  it("are told apart by their class", () => {
    const bash = (id: string, output: string): Partial<Turn> => ({
      tool_calls: [{ id, name: "Bash", input: { command: "python import.py" } }],
      tool_results: [{ call_id: id, output, is_error: true }],
    });
    const span: Turn[] = [
      turn("user", "Run the importer on the March data."),
      turn(
        "assistant",
        "",
        bash("b1", "Traceback (most recent call last):\n  File \"import.py\", line 3\nKeyError: 'customer_id'"),
      ),
      turn(
        "assistant",
        "",
        bash("b2", "Traceback (most recent call last):\n  File \"import.py\", line 9\nValueError: 'N/A'"),
      ),
    ];
    const texts = eventDrafts("s", span, extractSections(span, { cwd: "/r" }))
      .filter((d) => d.category === "failure")
      .map((d) => d.text);
    expect(texts.some((t) => t.startsWith("KeyError: 'customer_id'"))).toBe(true);
    expect(texts.some((t) => t.startsWith("ValueError: 'N/A'"))).toBe(true);
  });
});

describe("a failing test in a file whose name only ends like one the agent wrote", () => {
  it("is a finding, not a step of writing the agent's test", () => {
    const call = (id: string, name: string, input: Record<string, unknown>, output: string, isError: boolean) => ({
      tool_calls: [{ id, name, input }],
      tool_results: [{ call_id: id, output, is_error: isError }],
    });
    const span: Turn[] = [
      turn("user", "Show friendly labels for document errors."),
      turn(
        "assistant",
        "",
        call("e1", "Edit", { file_path: "/r/webapp/labels.test.ts", old_string: "a", new_string: "b" }, "ok", false),
      ),
      turn(
        "assistant",
        "",
        call(
          "b1",
          "Bash",
          { command: "npx vitest run" },
          "FAIL app/labels.test.ts > labels > keeps codes\nTests 1 failed",
          true,
        ),
      ),
      turn(
        "assistant",
        "",
        call("e2", "Edit", { file_path: "/r/src/labels.ts", old_string: "a", new_string: "b" }, "ok", false),
      ),
      turn("assistant", "", call("b2", "Bash", { command: "npx vitest run" }, "Tests 4 passed", false)),
    ];
    const failures = eventDrafts("s", span, extractSections(span, { cwd: "/r" })).filter(
      (d) => d.category === "failure",
    );
    expect(failures.some((f) => f.text.includes("FAIL app/labels.test.ts"))).toBe(true);
  });
});

describe("an error whose message is only a value, under a wrapper", () => {
  it("is one unit with the same error reported alone", () => {
    const span: Turn[] = [
      turn(
        "user",
        "I get this when I use the register command:\ncommands.errors.CommandInvokeError: Command 'register' raised an exception: KeyError: 'id'",
      ),
      turn("assistant", "I will look at the handler."),
      turn("user", "Still getting KeyError: 'id'"),
    ];
    const failures = eventDrafts("s", span, extractSections(span)).filter((d) => d.category === "failure");
    expect(failures.filter((f) => f.text.includes("KeyError: 'id'"))).toHaveLength(1);
  });
});

describe("failure units worth recalling, with only the resolution the events prove", () => {
  const bash = (id: string, command: string, output: string, isError: boolean): Partial<Turn> => ({
    tool_calls: [{ id, name: "Bash", input: { command } }],
    tool_results: [{ call_id: id, output, is_error: isError }],
  });
  const write = (id: string, path: string): Partial<Turn> => ({
    tool_calls: [{ id, name: "Edit", input: { file_path: path, old_string: "a", new_string: "b" } }],
    tool_results: [{ call_id: id, output: "The file has been updated.", is_error: false }],
  });
  const failures = (span: Turn[]) =>
    eventDrafts("s", span, extractSections(span, { cwd: "/r" })).filter((d) => d.category === "failure");
  const boom = "Traceback (most recent call last):\n  File \"/r/app/main.py\", line 3\nKeyError: 'customer_id'";

  it("stores no error the agent hit in its own run and got past with its next edit", () => {
    const span: Turn[] = [
      turn("user", "Run the importer on the March data."),
      turn("assistant", "", bash("b1", "python -m app.main", boom, true)),
      turn("assistant", "", write("w1", "/r/app/main.py")),
      turn("assistant", "", bash("b2", "python -m app.main", "imported 40 rows", false)),
    ];
    expect(failures(span)).toEqual([]);
  });

  it("keeps an error that persisted through an edit, saying which run went clean and the one file edited before it", () => {
    const span: Turn[] = [
      turn("user", "Run the importer on the March data."),
      turn("assistant", "", bash("b1", "python -m app.main", boom, true)),
      turn("assistant", "", write("w1", "/r/app/readers.py")),
      turn("assistant", "", bash("b2", "python -m app.main", boom, true)),
      turn("assistant", "", write("w2", "/r/app/main.py")),
      turn("assistant", "", bash("b3", "python -m app.main", "imported 40 rows", false)),
    ];
    const [f] = failures(span);
    expect(f?.record.kept_for).toBe("persisted");
    expect(f?.text).toContain("Resolved: `python -m app.main` ran clean at turn");
    expect(f?.text).toContain("after app/main.py was edited");
    expect(f?.text).not.toContain("readers.py");
    // Cards and recall read the fix from the record's remediation.
    expect(f?.record.remediation).toMatch(
      /^`python -m app\.main` ran clean at turn \S+ after app\/main\.py was edited$/,
    );
  });

  it("names no fix when several files were edited between the failing and the clean run", () => {
    const span: Turn[] = [
      turn("user", "Run the importer on the March data."),
      turn("assistant", "", bash("b1", "python -m app.main", boom, true)),
      turn("assistant", "", write("w1", "/r/app/readers.py")),
      turn("assistant", "", bash("b2", "python -m app.main", boom, true)),
      turn("assistant", "", write("w2", "/r/app/main.py")),
      turn("assistant", "", write("w3", "/r/app/rows.py")),
      turn("assistant", "", bash("b3", "python -m app.main", "imported 40 rows", false)),
    ];
    const [f] = failures(span);
    expect(f?.text).toContain("ran clean at turn");
    expect(f?.text).not.toMatch(/after \S+ was edited/);
    expect(f?.record.fixed_in).toBeUndefined();
  });

  it("makes one unit of one error a run reports in several lines: the thrown message, git's own line, its stderr field", () => {
    const run = [
      "bun test v1.2.10 (db2e7d7f)",
      "",
      "src/domain/git.test.ts:",
      "error: Command failed: git -C /test/repo rev-parse --abbrev-ref HEAD",
      "fatal: cannot change to '/test/repo': No such file or directory",
      "",
      "   code: 128,",
      '    cmd: "git -C /test/repo rev-parse --abbrev-ref HEAD",',
      ' stdout: "",',
      " stderr: \"fatal: cannot change to '/test/repo': No such file or directory\\n\",",
      "",
      "      at genericNodeError (node:child_process:944:13)",
      "✗ GitService > pr > should only include commits since merge base [49.30ms]",
      "",
      " 0 pass",
      " 1 fail",
    ].join("\n");
    const span: Turn[] = [
      turn("user", "Add a test for the pr command."),
      turn("assistant", "", write("w1", "/r/src/domain/git.test.ts")),
      turn("assistant", "", bash("b1", "bun test src/domain/git.test.ts", run, true)),
    ];
    const units = failures(span);
    expect(units).toHaveLength(1);
    expect(units[0]?.record.error).toBe("error: Command failed: git -C /test/repo rev-parse --abbrev-ref HEAD");
    expect(units[0]?.record.also).toContain("fatal: cannot change to '/test/repo': No such file or directory");
  });

  it("keeps the error a person reported, with no fix the events do not prove", () => {
    const span: Turn[] = [
      turn(
        "user",
        "I get this error when I open the page: TypeError: Cannot read properties of undefined (reading 'id')",
      ),
      turn("assistant", "The list can be empty.", write("w1", "/r/src/list.ts")),
      turn("user", "Thanks, now add a footer."),
      turn("assistant", "", write("w2", "/r/src/footer.ts")),
    ];
    const [f] = failures(span);
    expect(f?.record.kept_for).toBe("reported");
    expect(f?.record.edited_after_report).toBe("src/list.ts");
    expect(f?.text).not.toMatch(/Resolved|fixed|list\.ts/);
    expect(f?.record.remediation).toBeUndefined();
  });
});

describe("rules and changes that are no facts of the person's project", () => {
  it("takes no rule from a harness's standing instructions to its agent", () => {
    const task = [
      "We're currently solving the following issue within our repository. Here's the issue text:",
      "ISSUE:",
      "Division by zero is not reported.",
      "",
      "INSTRUCTIONS:",
      "Now, you're going to solve this issue on your own. Your terminal session has started.",
      "Always start by trying to replicate the bug that the issues discusses.",
      "When editing a file, make sure to insert appropriate indentation before each line!",
      "You should always wait for feedback after every command.",
      "(Open file: n/a)",
      "(Current directory: /repo)",
      "bash-$",
    ].join("\n");
    const span: Turn[] = [turn("user", task), turn("assistant", "Let me reproduce it.")];
    expect(eventDrafts("s", span, extractSections(span)).filter((d) => d.category === "commitment")).toEqual([]);
  });

  it("takes a tentative idea for no rule, and keeps one that says it holds each time", () => {
    expect(
      ruleSentences(
        "I think maybe we should have a landing table for all the data, and then move it to the journal lines.",
      ),
    ).toEqual([]);
    expect(ruleSentences("Maybe we should bump the version number each time we make changes.")).toEqual([
      "Maybe we should bump the version number each time we make changes.",
    ]);
  });

  it("keeps a rule whose reason, not the rule, is put tentatively", () => {
    for (const rule of [
      "Do not commit the .env file because it might leak secrets.",
      "Don't use mocks in tests, they might hide real failures.",
      "You must not change the public API, users might depend on it.",
    ])
      expect(ruleSentences(rule)).toEqual([rule]);
    expect(ruleSentences("Perhaps we should use pnpm, it is faster.")).toEqual([]);
  });

  it("makes no change unit of aider's empty start-up file, and no commit unit of its commit of the person's changes", () => {
    const span = parseText(
      [
        "# aider chat started at 2025-01-01 10:00:00",
        "",
        "> Creating empty file /w/app/notes.cfg  ",
        "> Added notes.cfg to the chat.  ",
        "",
        "#### add a health endpoint to app.py  ",
        "",
        "I'll add it.",
        "",
        "> Tokens: 1k sent, 100 received.  ",
        "> Committing app.py before applying edits.  ",
        "> Commit 1111111 chore: update app settings  ",
        "> Applied edit to app.py  ",
        "> Commit 2222222 feat: add health endpoint  ",
        "",
      ].join("\n"),
      "aider-md",
    ).turns;
    const drafts = eventDrafts("s", span, extractSections(span, { cwd: "/w" }));
    const changes = drafts.filter((d) => d.category === "change").map((d) => d.text);
    expect(changes.some((t) => t.includes("notes.cfg"))).toBe(false);
    expect(changes.some((t) => t.includes("1111111"))).toBe(false);
    expect(changes.some((t) => t.includes("app.py") && t.includes("2222222"))).toBe(true);
  });
});

describe("a pasted traceback whose error line was not copied", () => {
  it("opens the work it led to, apart from the request before, named by its last frame", () => {
    const span: Turn[] = [
      turn("user", "Can you include the database url in the responses?"),
      turn("assistant", "Done.", {
        tool_calls: [
          { id: "w1", name: "Edit", input: { file_path: "/r/backend/app.py", old_string: "a", new_string: "b" } },
        ],
        tool_results: [{ call_id: "w1", output: "The file has been updated.", is_error: false }],
      }),
      turn(
        "user",
        '  File "/r/backend/app.py", line 5, in <module>\n    from .db import url\n  File "/r/backend/db.py", line 43\n    return f"sqlite:////{p}"',
      ),
      turn("assistant", "A backslash in an f-string.", {
        tool_calls: [
          { id: "w2", name: "Edit", input: { file_path: "/r/backend/db.py", old_string: "a", new_string: "b" } },
        ],
        tool_results: [{ call_id: "w2", output: "The file has been updated.", is_error: false }],
      }),
    ];
    const changes = eventDrafts("s", span, extractSections(span, { cwd: "/r" })).filter((d) => d.category === "change");
    const first = changes.find((c) => c.text.includes('the request "Can you include'));
    expect(first?.files).toEqual(["backend/app.py"]);
    const second = changes.find((c) => c.files.includes("backend/db.py"));
    expect(second?.text).toContain("/r/backend/db.py', line 43\" the person pasted");
  });
});

describe("a sentence that starts like a keyword of code", () => {
  it("is the person's own when the keyword is only the start of a word", () => {
    expect(requestText("lets keep going with the reflections")).toBe("lets keep going with the reflections");
    expect(requestText("Consider a queue for the uploads.")).toBe("Consider a queue for the uploads.");
    expect(requestText("Definitely keep the old endpoint.")).toBe("Definitely keep the old endpoint.");
    expect(requestText("const x = 1;")).toBe("");
  });
});

describe("a change made for a request that only accepts the agent's offer", () => {
  const edit = (id: string, path: string): Turn[] => [
    turn("assistant", "", {
      tool_calls: [{ id, name: "Edit", input: { file_path: path, old_string: "a", new_string: "b" } }],
    }),
    turn("user", "", { tool_results: [{ call_id: id, output: "The file has been updated.", is_error: false }] }),
  ];
  const changeText = (span: Turn[]) =>
    eventDrafts("s", span, extractSections(span, { cwd: "/home/me/app" })).find((d) => d.category === "change")?.text;

  it("names the offer it accepted, even past a question answered in between", () => {
    const span: Turn[] = [
      turn("user", "The inbox page is slow when the mailbox is large."),
      turn(
        "assistant",
        "The list re-renders every row on each poll. If you want, I can switch it to a virtualised list and poll only for new ids.",
      ),
      turn("user", "do you mean it only draws the rows on screen?"),
      turn("assistant", "Yes: only the visible rows are in the DOM."),
      turn("user", "that would be awesome"),
      ...edit("e1", "/home/me/app/src/inbox/list.tsx"),
    ];
    const text = changeText(span);
    expect(text).toContain('for the request "that would be awesome"');
    expect(text).toContain(
      `accepting the agent's offer "If you want, I can switch it to a virtualised list and poll only for new ids."`,
    );
  });

  it("keeps the request itself when it says the work, or when the agent offered nothing", () => {
    const said: Turn[] = [
      turn("assistant", "Should I also add a retry to the upload client?"),
      turn("user", "Yes, and log every retry with its attempt number."),
      ...edit("e2", "/home/me/app/src/net/retry.ts"),
    ];
    expect(changeText(said)).not.toContain("accepting the agent's offer");
    const none: Turn[] = [
      turn("user", "Add a retry to the upload client."),
      turn("assistant", "The client has no retry at all; the upload fails on the first timeout."),
      turn("user", "go ahead"),
      ...edit("e3", "/home/me/app/src/net/retry.ts"),
    ];
    const text = changeText(none);
    expect(text).not.toContain("accepting the agent's offer");
    expect(text).toContain('a follow-up to the request "Add a retry to the upload client."');
  });
});
