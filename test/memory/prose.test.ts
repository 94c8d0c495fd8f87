// Units from the agent's prose: only whole, grounded statements with a claim, or a choice an edit carried out;
// failure units as whole error lines; a later finding supersedes an earlier one about the same subject.
import { join } from "node:path";

import { describe, expect, it } from "vitest";

import type { Turn } from "../../src/conversation/schema.js";
import { distill, draftUnits } from "../../src/memory/distill.js";
import { eventDrafts } from "../../src/memory/events.js";
import { grounded, wholeClaim } from "../../src/memory/prose.js";
import { searchMemory } from "../../src/memory/service.js";
import { openDatabase } from "../../src/storage/db.js";
import { upsertProject } from "../../src/storage/projects.js";
import { extractSections } from "../../src/transcript/extraction/extract.js";
import { tmpDir } from "../helpers/tmp.js";

let n = 0;
const turn = (role: Turn["role"], text: string, over: Partial<Turn> = {}): Turn => ({
  id: `p${n}`,
  index: n++,
  role,
  kind: "message",
  text,
  tool_calls: [],
  tool_results: [],
  ...over,
});

const proseUnits = (span: Turn[]) =>
  draftUnits("s", span, extractSections(span)).filter((d) => d.category === "learning" || d.category === "reasoning");

describe("prose that is not a whole statement of fact", () => {
  it.each([
    "The `TEMP-` prefix was introduced because:",
    "## ✅ **Problem Solved - Clean Architecture Approach**",
    "Let me fix the undo/redo logic with a much simpler approach.",
    "The issue is likely that you haven't imported the `NLog.Web` namespace because of the build.",
    "**Better Country Mapping**: Separate customer/vendor counts instead of combined statistics",
    "Identification fields and values: Entry No.='16'\"` should no longer occur because each entry is unique.",
    "The error in the conversion is caused by `MinLength` objects being passed where the dict was…",
    "Why does `takeSnapshot()` fail because of the buffer?",
    "I see the issue - there are conflicts because the old tables still exist.",
    // A list item led by its label, and a sentence cut after an abbreviation.
    "Status: Uses `barred` field instead of `blocked` because the API has no blocked flag.",
    "Currency Field: Fixed to treat `currency` as a direct string instead of a nested object.",
    'The posting fails because the journal is read from the Record "Gen.',
    "The lookup returns nothing because the key must be a plain value, e.g.",
    "Likewise, switch to the `ecommerce_db_path` fixture instead of the temporary file.",
  ])("%s is no claim", (s) => {
    expect(wholeClaim(s)).toBe(false);
  });

  it("a cause stated whole after its label is a claim", () => {
    for (const s of [
      "Root cause: the session cookie was dropped on redirect because it was set without SameSite.",
      "Why it failed: the worker read the old env file because the deploy rotated the keys.",
      "The fix: The parser takes the timezone explicitly because the server locale differs per host.",
    ])
      expect(wholeClaim(s)).toBe(true);
  });

  it("a cause stated whole is a claim", () => {
    expect(
      wholeClaim("This error occurs when you call `useMutation` on a query procedure instead of a mutation procedure."),
    ).toBe(true);
    expect(wholeClaim("This will make the `useMutation` call work instead of the query.")).toBe(false);
    expect(
      wholeClaim(
        "The error occurs because `imgs[current]` is undefined when `redo()` runs past the last stored image.",
      ),
    ).toBe(true);
  });

  it("is grounded only by a name the tools or the person showed, not by the agent's own words", () => {
    const s = "The error occurs because `imgs[current]` is undefined when `redo()` runs past the last stored image.";
    expect(grounded(s, "src/undo.js: const img = imgs[current];".toLowerCase())).toBe(true);
    expect(grounded(s, "nothing here names it")).toBe(false);
  });
});

describe("prose units of a session", () => {
  const read = (output: string) =>
    turn("assistant", "", {
      tool_calls: [{ id: `r${n}`, name: "Read", input: { file_path: "src/undo.js" } }],
      tool_results: [{ call_id: `r${n}`, output, is_error: false }],
    });

  it("keeps a grounded cause, drops narration, headings and an ungrounded guess", () => {
    const span = [
      turn("user", "Redo fails after an undo, please fix it."),
      read("function redo() { return imgs[current].width; }"),
      turn(
        "assistant",
        [
          "Let me look at the undo logic:",
          "## Why this approach is better:",
          "The error occurs because `imgs[current]` is undefined when `redo()` runs past the last stored image.",
          "The problem is that `frameCache` is never cleared because nobody resets it.",
        ].join("\n"),
      ),
    ];
    const texts = proseUnits(span).map((d) => d.text);
    expect(texts).toEqual([
      "The error occurs because `imgs[current]` is undefined when `redo()` runs past the last stored image.",
    ]);
  });

  it("keeps a choice that an edit carried out, said as done, and not one left unmade", () => {
    const chosen = "Let's run the script with the system Python instead of the virtual environment.";
    const unmade = "We could use a queue rather than a thread for the recorder, if you prefer.";
    const span = [
      turn("user", "The dictation script fails to start on the server."),
      turn("assistant", `${chosen}\n${unmade}`, {
        tool_calls: [
          {
            id: "e1",
            name: "Edit",
            input: { file_path: "run.sh", old_string: "venv/bin/python", new_string: "python3" },
          },
        ],
        tool_results: [{ call_id: "e1", output: "The file run.sh has been updated.", is_error: false }],
      }),
    ];
    const units = draftUnits("s", span, extractSections(span));
    // The choice is the change the edit made: the change unit says it in the agent's words, no decision repeats it.
    expect(units.filter((d) => d.category === "change").map((d) => d.text)).toEqual([
      expect.stringContaining(`The agent said: "${chosen}"`),
    ]);
    expect(units.filter((d) => d.category === "reasoning")).toEqual([]);
    expect(units.map((d) => d.text).join("\n")).not.toContain(unmade);
  });

  it("keeps one unit when the same finding is said while looking and again when fixed: the later wording", () => {
    const span = [
      turn("user", "Customers are not created, please fix it."),
      read('table 51001 "Economic Customer Mapping" { key(PK; "Customer No.") }'),
      turn(
        "assistant",
        "The problem is that the `Customer No.` field is empty but it is the primary key of the mapping table.",
      ),
      turn(
        "assistant",
        "The problem was that `Customer No.` stayed empty during staging, while the mapping table uses it as its primary key.",
      ),
    ];
    const texts = proseUnits(span).map((d) => d.text);
    expect(texts).toHaveLength(1);
    expect(texts[0]).toMatch(/stayed empty during staging/);
  });
});

describe("failure units", () => {
  const tool = (output: string, command = "npm run build") =>
    turn("assistant", "", {
      tool_calls: [{ id: `b${n}`, name: "Bash", input: { command } }],
      tool_results: [{ call_id: `b${n}`, output, is_error: true }],
    });
  const failures = (span: Turn[]) =>
    eventDrafts("s", span, extractSections(span)).filter((d) => d.category === "failure");

  it("are the error line without the log's clock, one per kind of error, and never the harness's own", () => {
    const span = [
      turn("user", "Build the mapping pages and make them compile."),
      tool(
        [
          "src/Pages/Pag51003.al(71,33): error AL0132: 'Codeunit \"Economic Management\"' does not contain a definition for 'SuggestCountryMappings'",
          "src/Pages/Pag51003.al(87,33): error AL0132: 'Codeunit \"Economic Management\"' does not contain a definition for 'ApplyCountryMappings'",
        ].join("\n"),
      ),
      tool("6:15:26 PM [vite] (client) [console.error] TypeError: allThreads is not iterable", "npm run dev"),
      tool("litellm.RateLimitError: RateLimitError: OpenrouterException - rate-limited upstream", "aider"),
    ];
    const f = failures(span);
    const lines = f.map((d) => d.record.error as string);
    expect(lines.filter((l) => l.includes("AL0132"))).toHaveLength(1);
    expect(f.find((d) => (d.record.error as string).includes("AL0132"))!.record.also).toHaveLength(1);
    expect(lines).toContain("TypeError: allThreads is not iterable");
    expect(lines.some((l) => /RateLimit/.test(l))).toBe(false);
  });

  it("name the task a follow-up served, not only the follow-up", () => {
    const span = [
      turn("user", "Add CSV export to the reports page."),
      turn("user", "please continue"),
      tool("TypeError: exportRows is not a function"),
    ];
    const f = failures(span);
    expect(f[0]!.text).toContain('a follow-up to the request "Add CSV export to the reports page."');
  });
});

describe("a later finding about the same subject", () => {
  it("supersedes the earlier one, which search still shows, marked and ranked below it", () => {
    const dir = tmpDir();
    const db = openDatabase(join(dir, "s.db"));
    const projectId = upsertProject(db, "superseded", dir).id;
    const session = (id: string, finding: string): Turn[] => [
      turn("user", "The upload keeps failing for large files, please fix it."),
      turn("assistant", "", {
        tool_calls: [{ id: `r${id}`, name: "Read", input: { file_path: "src/upload.ts" } }],
        tool_results: [{ call_id: `r${id}`, output: "const limit = MAX_UPLOAD_BYTES;", is_error: false }],
      }),
      turn("assistant", finding),
    ];
    const first = session(
      "1",
      "The upload fails because `MAX_UPLOAD_BYTES` is set to one megabyte in the server config.",
    );
    const later = session(
      "2",
      "The upload fails because `MAX_UPLOAD_BYTES` is read before the server config is loaded.",
    );
    distill(db, projectId, "s1", first, extractSections(first));
    distill(db, projectId, "s2", later, extractSections(later));
    const hits = searchMemory(
      { db, projectId, root: dir },
      { query: "why does the upload fail MAX_UPLOAD_BYTES" },
    ).hits;
    const learned = hits.filter((h) => h.category === "learning");
    expect(learned.map((h) => h.status)).toEqual(["active", "superseded"]);
    expect(learned[0]!.text).toMatch(/read before the server config/);
    expect(learned[0]!.history.supersedes.map((x) => x.text)).toEqual([learned[1]!.text]);
    db.close();
  });
});

describe("a request whose log is pasted after a colon", () => {
  it("is named by the error it pasted, not by the log", () => {
    const span = [
      turn(
        "user",
        'Build error: """ bff 18/18] RUN npm run build:\n0.180 1.243 error TS2688: Cannot find type definition file for \'chai\'.\n"""',
      ),
      turn("assistant", "", {
        tool_calls: [{ id: "w", name: "Write", input: { file_path: "bff/tsconfig.json", content: "{}" } }],
        tool_results: [{ call_id: "w", output: "File written", is_error: false }],
      }),
    ];
    const change = eventDrafts("s", span, extractSections(span)).find((d) => d.category === "change")!;
    expect(change.record.request).toBe("Build error: error TS2688: Cannot find type definition file for 'chai'.");
  });
});

describe("choices and causes the agent stated", () => {
  const edit = (id: string, path: string): Partial<Turn> => ({
    tool_calls: [{ id, name: "Edit", input: { file_path: path, old_string: "a", new_string: "b" } }],
    tool_results: [{ call_id: id, output: "The file has been updated.", is_error: false }],
  });

  it("stores a recommendation and the plan that carried it out, said alike, as one decision", () => {
    const span = [
      turn("user", "What does the rule about secrets in configuration mean for the MongoDB settings?"),
      turn(
        "assistant",
        'Use .NET Configuration instead of direct environment variable access:\n```csharp\nvar cs = builder.Configuration.GetConnectionString("MongoDB");\n```',
      ),
      turn("user", "please refactor"),
      turn(
        "assistant",
        "I'll refactor the code to use .NET Configuration instead of direct environment variable access, and drop the hardcoded settings.",
        edit("e1", "Program.cs"),
      ),
    ];
    const units = draftUnits("s", span, extractSections(span));
    // Said nearly the same way twice and carried out by the edit: one change, in the words it was carried out with,
    // its evidence reaching back to where it was advised; no decision repeats it.
    expect(units.filter((d) => d.category === "reasoning")).toEqual([]);
    const changes = units.filter((d) => d.category === "change");
    expect(changes.map((d) => d.text)).toEqual([
      expect.stringContaining(
        'The agent said: "I\'ll refactor the code to use .NET Configuration instead of direct environment variable access, and drop the hardcoded settings."',
      ),
    ]);
    expect(changes[0]!.evidence.map((e) => e.turn)).toEqual(expect.arrayContaining([span[1]!.id, span[3]!.id]));
  });

  it("takes a recommendation that leads into its example as a decision, in the agent's words", () => {
    const span = [
      turn("user", "Should the MongoDB settings come from the environment?"),
      turn(
        "assistant",
        'Use .NET Configuration instead of direct environment variable access:\n```csharp\nvar cs = builder.Configuration.GetConnectionString("MongoDB");\n```',
      ),
      turn("user", "please refactor"),
      turn("assistant", "", edit("e1", "Program.cs")),
    ];
    const units = draftUnits("s", span, extractSections(span));
    expect(units.filter((d) => d.category === "reasoning")).toEqual([]);
    expect(units.filter((d) => d.category === "change").map((d) => d.text)).toEqual([
      expect.stringContaining(
        'The agent said: "Use .NET Configuration instead of direct environment variable access:"',
      ),
    ]);
  });

  it("stores no choice of the agent's own tools", () => {
    const span = [
      turn("user", "Test the GUI yourself with playwright."),
      turn(
        "assistant",
        "Let me use MCP playwright tools instead of the CLI, since the shell wrappers interfere.",
        edit("e1", "web/src/App.tsx"),
      ),
    ];
    expect(proseUnits(span).filter((d) => d.category === "reasoning")).toEqual([]);
  });

  it("stores no cause the person cut short before any edit, and keeps one the agent acted on", () => {
    const read = turn("assistant", "", {
      tool_calls: [{ id: "r1", name: "Read", input: { file_path: "src/wise.ts" } }],
      tool_results: [
        {
          call_id: "r1",
          output: "export const WISE_BUSINESS_CATEGORIES = [] as const; function parent() {}",
          is_error: false,
        },
      ],
    });
    const guess = "The problem is that the schema uses `WISE_BUSINESS_CATEGORIES` before it is defined in the router.";
    const cause = "The error occurs because `parent` is not a property of the refinement context in the router.";
    const span = [
      turn("user", "The categories enum fails to compile."),
      read,
      turn("assistant", guess),
      turn("user", "No, the error says the array is readonly."),
      turn("assistant", cause, edit("e1", "src/wise.ts")),
    ];
    const texts = proseUnits(span).map((d) => d.text);
    expect(texts).not.toContain(guess);
    expect(texts).toContain(cause);
  });
});

describe("statements that restate a change of the session", () => {
  const edit = (id: string, path: string): Partial<Turn> => ({
    tool_calls: [{ id, name: "Edit", input: { file_path: path, old_string: "a", new_string: "b" } }],
    tool_results: [{ call_id: id, output: "The file has been updated.", is_error: false }],
  });

  it("stores no finding that only restates the error the change's request quoted", () => {
    const span = [
      turn(
        "user",
        "my main issue: this error occurs when you're trying to access a property called parent on an object of type RefinementCtx, but the RefinementCtx type doesn't have a parent property defined.",
      ),
      turn(
        "assistant",
        "The error is occurring because we're trying to access `ctx.parent` in the `.superRefine()` method, but the `RefinementCtx` type doesn't have a `parent` property.",
        edit("e1", "src/server/api/routers/wise.ts"),
      ),
    ];
    const units = draftUnits("s", span, extractSections(span));
    expect(units.filter((d) => d.category === "change")).toHaveLength(1);
    expect(units.filter((d) => d.category === "learning")).toEqual([]);
  });

  it("stores no decision naming only the files the change edited, and keeps a cause with a lesson of its own", () => {
    const span = [
      turn("user", "I'm getting this error when I try to use the register command: KeyError: 'id'"),
      turn("assistant", "", {
        tool_calls: [{ id: "r1", name: "Read", input: { file_path: "/home/me/bot/cogs/admin.py" } }],
        tool_results: [
          { call_id: "r1", output: "from __future__ import annotations\nimport discord", is_error: false },
        ],
      }),
      turn("assistant", "", edit("e1", "/home/me/bot/riot_client.py")),
      turn("assistant", "", edit("e2", "/home/me/bot/cogs/admin.py")),
      turn(
        "assistant",
        [
          "The root cause is that discord.py evaluates slash command annotations at runtime via `eval()`, which bypasses `from __future__ import annotations`.",
          "All callers (riot_client.py, cogs/admin.py) updated to pass `puuid` to `refresh_rank` instead of `summoner_id`.",
        ].join("\n"),
        edit("e3", "/home/me/bot/cogs/admin.py"),
      ),
    ];
    const units = draftUnits("s", span, extractSections(span));
    expect(units.filter((d) => d.category === "reasoning")).toEqual([]);
    expect(units.filter((d) => d.category === "learning").map((d) => d.text)).toEqual([
      expect.stringContaining("evaluates slash command annotations at runtime"),
    ]);
  });

  it("keeps a finding that quotes the change's error but says why it happened", () => {
    const span = [
      turn(
        "user",
        "npm run build fails: src/server/index.ts(3,20): error TS2307: Cannot find module '@app/config' or its corresponding type declarations.",
      ),
      turn(
        "assistant",
        "The build fails with TS2307 on `@app/config` in src/server/index.ts because tsconfig.json has no `paths` entry.",
        edit("e1", "tsconfig.json"),
      ),
    ];
    const units = draftUnits("s", span, extractSections(span));
    expect(units.filter((d) => d.category === "change")).toHaveLength(1);
    expect(units.filter((d) => d.category === "learning").map((d) => d.text)).toEqual([
      expect.stringContaining("because tsconfig.json has no `paths` entry"),
    ]);
  });

  it("keeps a decision on a file that an earlier change, made for another request, edited", () => {
    const span = [
      turn("user", "Fix the typo in the log message in src/db.ts."),
      turn("assistant", "", edit("e1", "src/db.ts")),
      turn("user", "Readers block while the importer writes. What should we do about it?"),
      turn(
        "assistant",
        "We chose `journal_mode=WAL` for `src/db.ts` over the rollback journal so that readers never wait for the importer.",
      ),
    ];
    const units = draftUnits("s", span, extractSections(span));
    expect(units.filter((d) => d.category === "change")).toHaveLength(1);
    expect(units.filter((d) => d.category === "reasoning").map((d) => d.text)).toEqual([
      expect.stringContaining("journal_mode=WAL"),
    ]);
  });
});
