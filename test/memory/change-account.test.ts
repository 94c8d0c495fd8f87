// What a change unit says when the request does not, and the kinds of units that are not stored as they were: a log
// of the work, a trivial edit, a bare commit title, an error that restates the task's title, a fragment of a log line
// and an error line a terminal wrapped mid-word. Shapes as the clients write them (aider's history, tool calls).
import { join } from "node:path";

import { describe, expect, it } from "vitest";

import type { Turn } from "../../src/conversation/schema.js";
import { distill } from "../../src/memory/distill.js";
import { errorLine, eventDrafts } from "../../src/memory/events.js";
import { searchMemory } from "../../src/memory/service.js";
import { openDatabase } from "../../src/storage/db.js";
import { upsertProject } from "../../src/storage/projects.js";
import { extractSections } from "../../src/transcript/extraction/extract.js";
import { parseText } from "../../src/transcript/formats/parse.js";
import { tmpDir } from "../helpers/tmp.js";

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
const edit = (id: string, path: string, before: string, after: string): Partial<Turn> => ({
  tool_calls: [{ id, name: "Edit", input: { file_path: path, old_string: before, new_string: after } }],
  tool_results: [{ call_id: id, output: "The file has been updated.", is_error: false }],
});
const changes = (span: Turn[], cwd = "/r") =>
  eventDrafts("s", span, extractSections(span, { cwd })).filter((d) => d.category === "change");

/** An aider history: the agent proposes a fix, the person says "go ahead", aider applies a SEARCH/REPLACE edit. */
const GO_AHEAD_HISTORY = `# aider chat started at 2025-05-24 16:40:00

> Aider v0.83.1
> Main model: gemini with diff edit format
> Git repo: .git with 40 files

#### the error still persists, what should we do to fix it?

The table is created on every reload. We could stop calling \`create_tables()\` on startup and use migrations instead.

> Tokens: 60k sent, 1.1k received.

#### go ahead

Okay, I will apply the temporary workaround by commenting out the \`await create_tables()\` call in \`backend/main.py\`.

backend/main.py
\`\`\`python
<<<<<<< SEARCH
@asynccontextmanager
async def lifespan(app: FastAPI):
    await create_tables()
    yield
=======
@asynccontextmanager
async def lifespan(app: FastAPI):
    # await create_tables()
    yield


def health_payload() -> dict:
    return {"status": "ok"}
>>>>>>> REPLACE
\`\`\`

> Tokens: 61k sent, 1.6k received.
> Applied edit to backend/main.py

#### /run cd backend && uv run main.py
`;

describe("a change made for a request that says nothing of the work", () => {
  const t = parseText(GO_AHEAD_HISTORY, "aider-md");
  const sections = extractSections(t.turns, { cwd: t.cwd });
  const unit = eventDrafts("s", t.turns, sections).find((d) => d.category === "change");

  it("says what was done from the edit and the agent's own statement, not the bare go-ahead", () => {
    expect(unit).toBeDefined();
    expect(unit!.text).toContain("backend/main.py");
    expect(unit!.text).toContain("function `health_payload`");
    expect(unit!.text).toContain("commenting out the `await create_tables()` call");
    expect(unit!.text).not.toContain('"go ahead"');
    // The task the go-ahead followed up says what the work was for.
    expect(unit!.text).toContain("the error still persists, what should we do to fix it?");
  });

  it("is still found by the words of the request it left out", () => {
    const dir = tmpDir();
    const db = openDatabase(join(dir, "m.db"));
    const projectId = upsertProject(db, "ga", dir).id;
    distill(db, projectId, "s1", t.turns, sections);
    const hits = searchMemory({ db, projectId, root: dir }, { query: "go ahead" }).hits;
    expect(hits.some((h) => h.category === "change" && h.text.includes("backend/main.py"))).toBe(true);
    db.close();
  });
});

describe("what an edit call did to the code", () => {
  it("names the functions and classes an edit added, changed and removed, file by file", () => {
    const span = [
      turn("user", "yes do it"),
      turn(
        "assistant",
        "",
        edit(
          "e1",
          "/r/src/upload.py",
          "class Uploader:\n    pass\n\ndef old_send(x):\n    return x\n",
          "class Uploader:\n    retries = 3\n\ndef send_with_retry(x):\n    return x\n",
        ),
      ),
    ];
    const [unit] = changes(span);
    expect(unit!.text).toContain("src/upload.py (added function `send_with_retry`; changed class `Uploader`;");
    expect(unit!.text).toContain("removed function `old_send`");
    expect(unit!.text).not.toContain("yes do it");
  });

  it("claims nothing of an edit its tool refused", () => {
    const span = [
      turn("user", "continue"),
      turn("assistant", "", {
        tool_calls: [
          {
            id: "r1",
            name: "Edit",
            input: {
              file_path: "/r/src/api.py",
              old_string: "def get():\n    pass\n",
              new_string: "def get():\n    pass\n\ndef purge_cache():\n    pass\n",
            },
          },
        ],
        tool_results: [
          {
            call_id: "r1",
            output: "<tool_use_error>String to replace not found in file.</tool_use_error>",
            is_error: true,
          },
        ],
      }),
      turn("assistant", "", edit("r2", "/r/src/api.py", "def get():\n    return 1\n", "def get():\n    return 2\n")),
    ];
    const [unit] = changes(span);
    expect(unit!.text).toContain("src/api.py (changed function `get`)");
    expect(unit!.text).not.toContain("purge_cache");
  });

  it("reads an edit saved with problems its tool found after saving it", () => {
    const saved = "The content was successfully saved to src/page.js.\n\nNew problems detected after saving the file:";
    const span = [
      turn("user", "continue"),
      turn("assistant", "", {
        tool_calls: [
          {
            id: "s1",
            name: "replace_in_file",
            input: { path: "src/page.js", old_str: "", new_str: "function About() {}" },
          },
        ],
        tool_results: [{ call_id: "s1", output: `${saved}\n- [eslint Error] Line 10: Parsing error`, is_error: true }],
      }),
    ];
    const sections = extractSections(span, { cwd: "/r" });
    sections.files["src/page.js"] = [{ op: "edited", turn: span[1]!.id }];
    const units = eventDrafts("s", span, sections).filter((d) => d.category === "change");
    expect(units[0]!.text).toContain("added function `About`");
  });

  it("claims nothing added of a file written whole over text the session does not show", () => {
    const span = [
      turn("user", "continue"),
      turn("assistant", "", {
        tool_calls: [
          { id: "w1", name: "Write", input: { file_path: "/r/src/auth.ts", content: "export function a() {}\n" } },
        ],
        tool_results: [{ call_id: "w1", output: "ok", is_error: false }],
      }),
    ];
    const sections = extractSections(span, { cwd: "/r" });
    sections.files["src/auth.ts"] = [{ op: "written", turn: span[1]!.id }];
    const units = eventDrafts("s", span, sections).filter((d) => d.category === "change");
    for (const u of units) expect(u.text).not.toContain("added function `a`");
  });

  it("takes the agent's report of the change it made, naming the change's own file", () => {
    const span = [
      turn("user", "please understand where you were and continue"),
      turn("assistant", "Next I will look at `other.py` as well.", edit("e1", "/r/pkg/types.py", "a = 1", "a = 2")),
      turn("assistant", "I've added the missing `Union` import from the `typing` module in types.py."),
    ];
    const [unit] = changes(span);
    expect(unit!.text).toContain("The agent said: \"I've added the missing `Union` import");
    expect(unit!.text).not.toContain("where you were");
  });
});

describe("a statement that names another file", () => {
  it("is not taken for a change of a file whose name only ends like it", () => {
    const span = [
      turn("user", "continue"),
      turn(
        "assistant",
        "I've updated `utils.py` so that parse_date accepts ISO strings with offsets.",
        edit("u1", "/r/tests/test_utils.py", "def test_a():\n    pass\n", "def test_a():\n    assert 1\n"),
      ),
    ];
    const [unit] = changes(span);
    expect(unit!.text).toContain("tests/test_utils.py");
    expect(unit!.text).not.toContain("The agent said");
  });
});

describe("a recap of the session's work after a change", () => {
  it("takes the recap's item that names the change's own file, not its first item", () => {
    const span = [
      turn("user", "now this understand profoundly + apply fixes@main.py"),
      turn("assistant", "", edit("e1", "/r/schema_tools.py", "a = 1", "a = 2")),
      turn(
        "assistant",
        "Summary:\n1. Fixed the `Union` import in the pandas plugin.\n2. Made `schema_tools.py` fall back to the Pydantic v1 field API when v2 is missing.",
      ),
    ];
    const [unit] = changes(span);
    expect(unit!.text).toContain("Made `schema_tools.py` fall back");
    expect(unit!.text).not.toContain("Union");
  });
});

describe("a plan's step as the account of a change", () => {
  it("takes the agent's imperative step when it says nothing more, never a step for the person", () => {
    const span = [
      turn("user", "What's wrong? Fix the error that you see in the terminal"),
      turn(
        "assistant",
        "To fix this, we need to:\n1. Update your `.env` file by hand before the next run.\n2. Add the `BACKEND_CORS_ORIGINS` field to the `Settings` class in `backend/app/utils/config.py`.",
        edit("e1", "/r/backend/app/utils/config.py", "x = 1", "x = 2"),
      ),
    ];
    const [unit] = changes(span);
    expect(unit!.text).toContain('The agent said: "Add the `BACKEND_CORS_ORIGINS` field');
  });
});

describe("changes not worth a unit", () => {
  it("an entry added to a log of the work after a request that says nothing of it", () => {
    const span = [
      turn("user", "S016 IS COMPLETED"),
      turn("assistant", "", edit("e1", "/r/docs/PROMPT_HISTORY.md", "## S015\n", "## S015\n\n## S016\n")),
    ];
    expect(changes(span)).toEqual([]);
  });

  it("a whitespace-only edit or a version bump for a request that says nothing of it", () => {
    const space = [turn("user", "ok"), turn("assistant", "", edit("e1", "/r/src/a.ts", "f( x )", "f(x)"))];
    expect(changes(space)).toEqual([]);
    const bump = [
      turn("user", "go ahead"),
      turn("assistant", "", edit("e2", "/r/package.json", '"version": "1.2.3"', '"version": "1.2.4"')),
    ];
    expect(changes(bump)).toEqual([]);
    // The same bump asked for is the request's change.
    const asked = [
      turn("user", "Bump the package version to 1.2.4 for the release."),
      turn("assistant", "", edit("e3", "/r/package.json", '"version": "1.2.3"', '"version": "1.2.4"')),
    ];
    expect(changes(asked)).toHaveLength(1);
  });

  it("keeps the change of a request that names the work in two words or in a script written without spaces", () => {
    const bump = (ask: string, id: string) => [
      turn("user", ask),
      turn("assistant", "", edit(id, "/r/package.json", '"version": "1.2.3"', '"version": "1.2.4"')),
    ];
    for (const [ask, id] of [
      ["bump version", "b1"],
      ["把版本号改成1.2.4", "b2"],
    ] as const) {
      const units = changes(bump(ask, id));
      expect(units).toHaveLength(1);
      expect(units[0]!.text).toContain(ask);
    }
    const fix = [
      turn("user", "修复登录页面的错误处理"),
      turn(
        "assistant",
        "",
        edit("b3", "/r/src/login.ts", "function a() {\n  return 1;\n}", "function a() {\n  return 2;\n}"),
      ),
    ];
    expect(changes(fix)[0]!.text).toContain("修复登录页面的错误处理");
    // A pointing follow-up still says nothing of the work.
    expect(changes(bump("try that", "b4"))).toEqual([]);
  });

  it("keeps a change whose other files' edits the events do not show beside a version bump", () => {
    const span = [
      turn("user", "continue"),
      turn("assistant", "", edit("v1", "/r/pyproject.toml", 'version = "0.3.1"', 'version = "0.3.2"')),
      turn("assistant", "", {
        tool_calls: [{ id: "v2", name: "Bash", input: { command: "sed -i 's/load_csv/load_parquet/' src/main.py" } }],
        tool_results: [{ call_id: "v2", output: "", is_error: false }],
      }),
    ];
    const units = changes(span);
    expect(units).toHaveLength(1);
    expect(units[0]!.text).toContain("src/main.py");
  });

  it("a bare file list with no request, no commit and nothing the events say of it", () => {
    const span = [turn("assistant", "", { tool_calls: [{ id: "e", name: "Edit", input: { file_path: "/r/a.ts" } }] })];
    expect(changes(span)).toEqual([]);
  });

  it("a commit title with neither a hash nor a file", () => {
    const span = [
      turn("user", "/resolve-reviews on the pull request"),
      turn("assistant", "", {
        tool_calls: [{ id: "g", name: "Bash", input: { command: 'git commit -m "fix: address PR review findings"' } }],
        tool_results: [{ call_id: "g", output: "", is_error: false }],
      }),
    ];
    const sections = extractSections(span, { cwd: "/r" });
    sections.completed.push({ text: "commit: fix: address PR review findings", turn: span[1]!.id });
    const commits = eventDrafts("s", span, sections).filter((d) => d.record.kind === "commit");
    expect(commits).toEqual([]);
  });
});

/** A SWE-agent task statement: the issue's title is an error, quoted again in the issue's body. */
const ISSUE = `We're currently solving the following issue within our repository. Here's the issue text:
ISSUE:
SyntaxError: invalid syntax
I'm running \`missing_colon.py\` as follows:

but I get the following error:

\`\`\`
  File "/repo/tests/./missing_colon.py", line 4
    def division(a: float, b: float) -> float
SyntaxError: invalid syntax
\`\`\``;

describe("errors that are no finding", () => {
  it("an error that only restates the title of the task whose edits fixed it", () => {
    const span = [
      turn("user", ISSUE),
      turn(
        "assistant",
        "I will add the missing colon.",
        edit("e1", "/repo/tests/missing_colon.py", "-> float", "-> float:"),
      ),
    ];
    const sections = extractSections(span, { cwd: "/repo" });
    sections.failures.push({
      signature: "syntaxerror invalid syntax",
      text: "SyntaxError: invalid syntax",
      category: "user-reported",
      turn: span[0]!.id,
      last_turn: span[0]!.id,
      count: 1,
    });
    const failures = eventDrafts("s", span, sections).filter((d) => d.category === "failure");
    expect(failures).toEqual([]);
  });

  it("a fragment of a browser console line that starts inside its address", () => {
    const t = turn("user", "");
    expect(errorLine(":7270/Catalog/7125e019:1  Failed to load resource: net::ERR_FAILED", t)).toBeUndefined();
    expect(
      errorLine("Failed to load resource: the server responded with a status of 404 (Not Found)", t),
    ).toBeDefined();
  });

  it("an error line that is only the longest line of its output is not joined to the next", () => {
    const failed = "FAILED tests/test_api.py::test_create_user - AssertionError: assert 500 == 201";
    const out = ["$ pytest -q", failed, "Results: 1 failed, 12 passed"].join("\n");
    const t = turn("tool", "", { tool_results: [{ call_id: "p", output: out, is_error: true }] });
    expect(errorLine(failed, t)).toBe(failed);
  });

  it("an error line in an output of some hundred thousand lines is read", () => {
    const error = "TypeError: Cannot read properties of undefined (reading 'map') in the render loop";
    const out = [...Array.from({ length: 300_000 }, (_, i) => `frame ${i}`), error].join("\n");
    const t = turn("tool", "", { tool_results: [{ call_id: "h", output: out, is_error: true }] });
    expect(errorLine(error, t)).toBe(error);
  });

  it("an error line a terminal wrapped mid-word is joined whole again", () => {
    const out = [
      "Traceback (most recent call last):",
      '  File "/w/schema_tools.py", line 285, in pandera_to_pydantic_model',
      "    raise ConversionError(f\"Unexpected error during Pandera -> Pydantic schema conversion for schema '{schem",
      "a.name}': {e}\") from e",
      "politipo.core.errors.ConversionError: Unexpected error during Pandera -> Pydantic schema conversion for sche",
      "ma 'None': 'Column' object has no attribute 'schema'",
      "Tests completed.",
    ].join("\n");
    const t = turn("tool", "", { tool_results: [{ call_id: "b", output: out, is_error: true }] });
    const line = errorLine(
      "politipo.core.errors.ConversionError: Unexpected error during Pandera -> Pydantic schema conversion for sche",
      t,
    );
    expect(line).toBe(
      "politipo.core.errors.ConversionError: Unexpected error during Pandera -> Pydantic schema conversion for schema 'None': 'Column' object has no attribute 'schema'",
    );
  });
});
