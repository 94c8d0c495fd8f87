// Compaction and recall inside the real Claude Code, with only the model scripted: `/compact` runs PreCompact
// (memcards stores the anchored summary), and the next request the model receives carries the SessionStart(compact)
// injection; SessionEnd distils the session, and the next session's first request carries the recall brief.
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, readdirSync, readFileSync, realpathSync } from "node:fs";
import { join } from "node:path";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { parseTranscriptFile } from "../../src/transcript/formats/parse.js";
import {
  announceSkip,
  approveProjectServers,
  claudeConversation,
  claudeEnv,
  distilled,
  endedSessions,
  PRINT_FLAGS,
  probeClaudeCode,
  runClaude,
  waitUntil,
} from "../helpers/claude-code.js";
import { runCli } from "../helpers/cli.js";
import { type ScriptBlock, type ScriptedModel, startScriptedModel, textIn } from "../helpers/scripted-model.js";
import { tmpDir } from "../helpers/tmp.js";
import { POLYGLOT } from "../repo/fixture.js";

const probe = probeClaudeCode();
announceSkip("Claude Code end-to-end (compaction, recall)", probe);

const CONSTRAINT = "do not change the public API of the shapes package";
const LATER_RULE = "never run scripts/deploy.sh from a session";
const INJECTION = "# memcards: this session before compaction";
const BRIEF = "# memcards: what this project's memory says the work needs";

/** A session long enough that compaction has turns to summarize: reads, shell runs (one failing), an edit. */
function workSteps(root: string): ScriptBlock[][] {
  const read = (p: string): ScriptBlock[] => [{ type: "tool_use", name: "Read", input: { file_path: join(root, p) } }];
  const bash = (command: string): ScriptBlock[] => [
    { type: "tool_use", name: "Bash", input: { command, description: "scripted step" } },
  ];
  return [
    read("pyproj/shapes/geometry.py"),
    read("pyproj/shapes/util.py"),
    read("pyproj/tests/test_geometry.py"),
    bash("ls pyproj/shapes"),
    bash("grep -n radius pyproj/shapes/geometry.py"),
    bash("echo 'FAILED tests/test_geometry.py::test_area - AssertionError' && exit 1"),
    read("pyproj/shapes/__init__.py"),
    read("pyproj/AGENTS.md"),
    bash("wc -l pyproj/shapes/geometry.py"),
    [
      {
        type: "tool_use",
        name: "Edit",
        input: {
          file_path: join(root, "pyproj/shapes/geometry.py"),
          old_string: "        return math.pi * self.radius**2",
          new_string: "        return math.pi * self.radius * self.radius",
        },
      },
    ],
    bash("grep -n 'self.radius \\* self.radius' pyproj/shapes/geometry.py"),
    read("pyproj/shapes/sub/poly.py"),
    bash("echo '3 passed'"),
    read("pyproj/tests/test_util.py"),
    bash("git status --short | head -5"),
    read("README.md"),
    bash("echo done"),
    [{ type: "text", text: "Circle.area now multiplies the radius by itself; the tests pass." }],
  ];
}

describe.skipIf(!probe.ok)("memcards in Claude Code: compaction and recall", () => {
  let model: ScriptedModel;
  let home: string;
  let root: string;
  let env: Record<string, string>;
  const hookLog = () => {
    const f = join(root, ".memcards", "hooks.log");
    return existsSync(f) ? readFileSync(f, "utf8") : "";
  };

  beforeAll(async () => {
    model = await startScriptedModel();
    home = realpathSync(tmpDir("memcards-cc-home-"));
    root = join(realpathSync(tmpDir("memcards-cc-proj-")), "repo");
    cpSync(POLYGLOT, root, { recursive: true });
    execFileSync("git", ["init", "-q", root]);
    env = claudeEnv(home, model.url);
    approveProjectServers(home);
    const init = runCli(["init", "--hooks", "--yes"], { cwd: root, env });
    expect(init.code, init.stderr).toBe(0);
  });
  afterAll(async () => {
    await model?.close();
  });

  it("/compact stores the summary; the next request carries the SessionStart(compact) injection", async () => {
    model.push(...workSteps(root), [{ type: "text", text: "Continuing with the tests." }]);
    const convo = await claudeConversation(
      [
        `Circle.area in pyproj/shapes/geometry.py is wrong. Fix it, but ${CONSTRAINT}.`,
        "/compact",
        `Go on with the tests. Also: ${LATER_RULE}.`,
      ],
      { cwd: root, env, timeoutMs: 150_000 },
    );
    expect(convo.code, convo.stderr).toBe(0);
    expect(convo.results).toHaveLength(3);
    expect(model.pending()).toBe(0);
    expect(hookLog()).toMatch(/PreCompact \S+ compressed [1-9]\d* turns/);
    expect(hookLog()).toMatch(/SessionStart \S+ injected the session summary, \d+ chars/);

    // The compaction request, then the first main request after it: the injection reached the model.
    const compactAt = model.requests.findIndex((r) => r.kind === "compact");
    expect(compactAt).toBeGreaterThan(0);
    const next = model.requests.slice(compactAt + 1).find((r) => r.kind === "main");
    expect(next, "a request after the compaction").toBeDefined();
    const sent = textIn(next!.body.messages);
    expect(sent).toContain(INJECTION);
    expect(sent).toContain(CONSTRAINT);
    expect(sent).toContain(LATER_RULE); // the same request: the message typed after /compact

    // The injection as the hook printed it (Claude Code records it in the transcript) is what the model got,
    // whole, and under Claude Code's limit for hook output.
    const dir = join(home, ".claude", "projects");
    const transcript = readdirSync(dir, { recursive: true, encoding: "utf8" }).find((f) => f.endsWith(".jsonl"));
    expect(transcript).toBeDefined();
    const injected = readFileSync(join(dir, transcript!), "utf8")
      .split("\n")
      .filter((l) => l.includes('"hookName":"SessionStart:compact"'))
      .map((l) => (JSON.parse(l) as { attachment: { content: string } }).attachment.content);
    expect(injected).toHaveLength(1);
    expect(injected[0]!.length).toBeLessThan(9500);
    expect(injected[0]).toMatch(/^# memcards: this session before compaction \(compression #\d+\)/);
    expect(injected[0]).toContain("## User Constraints");
    expect(injected[0]).toContain(CONSTRAINT);
    expect(sent).toContain(injected[0]!.trim());
    // The reader follows this version's transcript across the compaction: the boundary's summary, then the rest.
    const parsed = parseTranscriptFile(join(dir, transcript!));
    expect(parsed.turns.filter((t) => t.kind === "compact_summary")).toHaveLength(1);
    expect(parsed.turns.flatMap((t) => t.tool_calls.map((c) => c.name))).toContain("Edit");
    // Before the compaction the model had not seen it.
    expect(textIn(model.requests[compactAt]!.body.messages)).not.toContain(INJECTION);
  }, 180_000);

  it("SessionEnd distils the session; the next session's first request carries the recall brief", async () => {
    expect(await waitUntil(() => /SessionEnd \S+ queued distillation/.test(hookLog()), 20_000)).toBe(true);
    // The distillation runs detached; what it adds from after the compaction shows in `memcards recall`.
    const recalled = await waitUntil(() => runCli(["recall"], { cwd: root, env }).stdout.includes(LATER_RULE), 60_000);
    expect(recalled, runCli(["recall"], { cwd: root, env }).stdout).toBe(true);

    const seen = model.requests.length;
    model.push([{ type: "text", text: "Next: the perimeter helper." }]);
    const run = await runClaude(["-p", "What is next?", ...PRINT_FLAGS], { cwd: root, env, timeoutMs: 90_000 });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain("Next: the perimeter helper.");
    const first = model.requests.slice(seen).find((r) => r.kind === "main");
    expect(first).toBeDefined();
    const sent = textIn(first!.body.messages);
    expect(sent).toContain(BRIEF);
    expect(sent).toContain(LATER_RULE);
    expect(sent).toContain(CONSTRAINT);
    expect(hookLog()).toMatch(/SessionStart \S+ injected the project brief \(\d+ units\)/);
    expect(hookLog()).not.toMatch(/ error: /);
    // This session's distillation too finishes before the project goes away.
    expect(await waitUntil(() => endedSessions(hookLog()).length === 2, 20_000)).toBe(true);
    expect(await distilled(root, env, endedSessions(hookLog())[1]!)).toBe(true);
  }, 180_000);
});
