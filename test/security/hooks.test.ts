// Hook calls gone wrong: each still exits 0 with nothing on stdout, and each writes one line to the hook log
// without quoting what stdin or a transcript holds.
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";

import { describe, expect, it } from "vitest";

import { parseHookCall } from "../../src/integrate/hook-command.js";
import { openDatabase } from "../../src/storage/db.js";
import { runCli } from "../helpers/cli.js";
import { tmpDir } from "../helpers/tmp.js";

const SECRET = "TOPSECRET-51c9";

function setup() {
  const base = realpathSync(tmpDir("memcards-hook-"));
  const root = join(base, "project");
  const outside = join(base, "outside");
  mkdirSync(root);
  mkdirSync(outside);
  writeFileSync(join(outside, "secret.md"), `# aider chat started at 2024-01-01 10:00:00\n\n#### ${SECRET}\n\nok\n`);
  symlinkSync(join(outside, "secret.md"), join(root, "link.md"));
  // Set up: hooks act only in a project that has a store.
  openDatabase(join(root, ".memcards", "memcards.db")).close();
  const home = tmpDir();
  const env = { HOME: home, MEMCARDS_HOME: join(home, ".memcards") };
  const hook = (event: string, stdin: string) => {
    const r = runCli(["hook", event], { cwd: root, env, input: stdin });
    expect(r.code, `${event}: ${r.stderr}`).toBe(0);
    expect(r.stdout, event).toBe("");
    return r;
  };
  const projectLog = () => readFileSync(join(root, ".memcards", "hooks.log"), "utf8");
  const userLog = () => readFileSync(join(env.MEMCARDS_HOME, "hooks.log"), "utf8");
  return { root, outside, hook, projectLog, userLog };
}

describe("hook calls that cannot run", () => {
  it("log empty stdin, invalid JSON and a non-object in the per-user log when no project is named", () => {
    const { hook, userLog } = setup();
    hook("SessionStart", "");
    hook("PreCompact", `{"session_id": "s1", "prompt": "${SECRET}" oops`);
    hook("SessionEnd", "[1, 2]");
    const lines = userLog().trimEnd().split("\n");
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/ SessionStart - error: empty stdin: expected the hook's JSON object$/);
    expect(lines[1]).toMatch(/ PreCompact - error: stdin is not valid JSON at line 1, column \d+$/);
    expect(lines[2]).toMatch(/ SessionEnd - error: stdin is not a hook's JSON object \(input: /);
    expect(userLog()).not.toContain(SECRET);
  });

  it("log an unknown and a wrongly cased event in the project's log", () => {
    const { root, hook, projectLog } = setup();
    const input = JSON.stringify({ cwd: root, session_id: "s1" });
    hook("Nonsense", input);
    hook("precompact", input);
    hook("SESSIONSTART", input);
    const lines = projectLog().trimEnd().split("\n");
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/ Nonsense s1 error: unknown event "Nonsense"; expected one of PreCompact, SessionStart,/);
    expect(lines[1]).toMatch(
      / precompact s1 error: unknown event "precompact": event names are case-sensitive, use PreCompact$/,
    );
    expect(lines[2]).toMatch(/use SessionStart$/);
  });

  it("refuse and log a transcript outside the project, directly or through a symlink, and store nothing from it", () => {
    const { root, outside, hook, projectLog } = setup();
    const call = (event: string, transcript: string, extra: Record<string, unknown> = {}) =>
      hook(event, JSON.stringify({ cwd: root, session_id: "s1", transcript_path: transcript, ...extra }));
    call("PreCompact", join(outside, "secret.md"));
    call("PreCompact", join(root, "link.md"));
    call("SessionEnd", "../outside/secret.md");
    call("SessionStart", join(outside, "secret.md"), { source: "compact" });
    const lines = projectLog().trimEnd().split("\n");
    expect(lines).toHaveLength(4);
    for (const l of lines.slice(0, 3))
      expect(l).toMatch(/ s1 error: OUTSIDE_ROOTS: .*secret\.md.* lies outside what memcards may read/);
    expect(lines[1]).toContain("resolves to");
    expect(lines[3]).toMatch(/SessionStart s1 no summary for this session$/);
    expect(projectLog()).not.toContain(SECRET);
    expect(readFileSync(join(root, ".memcards", "memcards.db")).toString("latin1")).not.toContain(SECRET);
  });

  it("never creates a store in a system folder named by the hook's cwd: the per-user log says why", () => {
    const { hook, userLog } = setup();
    const before = existsSync("/etc/.memcards");
    hook("SessionStart", JSON.stringify({ cwd: "/etc", session_id: "s2", source: "startup" }));
    expect(existsSync("/etc/.memcards")).toBe(before);
    expect(userLog()).toMatch(/ SessionStart s2 error: SYSTEM_FOLDER: .*\/etc cannot be a project root/);
  });
});

describe("a hook's cwd", () => {
  it("names a folder memcards was never set up in: the hook does nothing there and says so in the per-user log", () => {
    const { hook, userLog } = setup();
    const stranger = realpathSync(tmpDir("memcards-stranger-"));
    writeFileSync(join(stranger, "session.jsonl"), "{}\n");
    for (const [event, extra] of [
      ["SessionStart", { source: "startup" }],
      ["PreCompact", { transcript_path: join(stranger, "session.jsonl") }],
      ["PostToolUse", { tool_name: "Write", tool_input: { file_path: join(stranger, "a.py") } }],
      ["SessionEnd", { transcript_path: join(stranger, "session.jsonl") }],
    ] as const)
      hook(event, JSON.stringify({ cwd: stranger, session_id: "s3", ...extra }));
    expect(readdirSync(stranger)).toEqual(["session.jsonl"]);
    const lines = userLog().trimEnd().split("\n");
    expect(lines).toHaveLength(4);
    for (const l of lines)
      expect(l).toMatch(/ s3 error: no memcards store at .*: .* is not a project memcards was set up in/);
  });
});

describe("parseHookCall", () => {
  it("names every problem at once and keeps stdin out of the message", () => {
    const c = parseHookCall("preCompact", `{"prompt": "${SECRET}"`);
    expect(c.event).toBeUndefined();
    expect(c.problem).toBe(
      'unknown event "preCompact": event names are case-sensitive, use PreCompact; stdin is not valid JSON: it ends early (line 1)',
    );
    const fine = parseHookCall("PreCompact", '{"session_id": "s", "trigger": "auto"}');
    expect(fine).toEqual({ event: "PreCompact", input: { session_id: "s", trigger: "auto" } });
  });
});
