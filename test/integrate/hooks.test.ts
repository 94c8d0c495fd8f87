// Claude Code hook commands run as Claude Code runs them: JSON on stdin, exit 0 always, stdout only where it counts.
import { cpSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

import { describe, expect, it } from "vitest";

import { MAX_HOOK_OUTPUT } from "../../src/integrate/hooks/input.js";
import { planHooks } from "../../src/integrate/init.js";
import { openDatabase } from "../../src/storage/db.js";
import { runCli } from "../helpers/cli.js";
import { claudeCodeSession, longSession } from "../helpers/session.js";
import { tmpDir } from "../helpers/tmp.js";
import { pollUntil } from "../helpers/wait.js";
import { POLYGLOT } from "../repo/fixture.js";

function project() {
  const root = tmpDir();
  const transcript = join(root, "session.jsonl");
  writeFileSync(transcript, claudeCodeSession(longSession(3)));
  // Set up: hooks act only in a project that has a store.
  openDatabase(join(root, ".memcards", "memcards.db")).close();
  const home = tmpDir();
  const hook = (event: string, input: Record<string, unknown>) =>
    runCli(["hook", event], {
      cwd: root,
      env: { HOME: home, MEMCARDS_HOME: join(home, ".memcards") },
      input: JSON.stringify({ cwd: root, hook_event_name: event, ...input }),
    });
  return { root, transcript, hook, home };
}

describe("hook commands", () => {
  it("PreCompact stores a summary silently; SessionStart after compact injects it, within the size limit", () => {
    const { root, transcript, hook } = project();
    const pre = hook("PreCompact", { session_id: "s1", transcript_path: transcript, trigger: "auto" });
    expect(pre.code).toBe(0);
    expect(pre.stdout).toBe("");
    const start = hook("SessionStart", { session_id: "s1", transcript_path: transcript, source: "compact" });
    expect(start.code).toBe(0);
    expect(start.stdout).toMatch(/^# memcards: this session before compaction \(compression #1\)/);
    expect(start.stdout.indexOf("## Next Steps")).toBeLessThan(start.stdout.indexOf("## Files Modified"));
    expect(start.stdout.length).toBeLessThanOrEqual(MAX_HOOK_OUTPUT + 1);
    // A new session starts with the brief of the last one.
    const fresh = hook("SessionStart", { session_id: "s2", source: "startup" });
    expect(fresh.stdout).toMatch(/^# memcards: what this project's memory says the work needs/);
    expect(fresh.stdout).toContain("## User constraints and rules");
    const log = readFileSync(join(root, ".memcards", "hooks.log"), "utf8");
    expect(log).toMatch(/PreCompact s1 compressed \d+ turns/);
    expect(log).toMatch(/SessionStart s2 injected the project brief \(\d+ units\)/);
    const shown = runCli(["log", "--root", root], { env: { MEMCARDS_HOME: tmpDir() } });
    expect(shown.stdout).toContain("injected the session summary");
  });

  it("never fails the agent: corrupt transcript, missing file, bad JSON, unknown event", () => {
    const { root, hook } = project();
    const corrupt = join(root, "corrupt.jsonl");
    writeFileSync(corrupt, Buffer.from([0, 1, 2, 3, 0, 255]));
    for (const r of [
      hook("PreCompact", { session_id: "s1", transcript_path: corrupt }),
      hook("PreCompact", { session_id: "s1", transcript_path: join(root, "missing.jsonl") }),
      hook("SessionStart", { session_id: "s9", source: "compact" }),
      hook("Nonsense", {}),
    ]) {
      expect(r.code).toBe(0);
      expect(r.stdout).toBe("");
    }
    const bad = runCli(["hook", "SessionStart"], { cwd: root, env: { MEMCARDS_HOME: tmpDir() }, input: "{ not json" });
    expect(bad.code).toBe(0);
    expect(bad.stdout).toBe("");
    const log = readFileSync(join(root, ".memcards", "hooks.log"), "utf8");
    expect(log).toMatch(/PreCompact s1 error: UNKNOWN_FORMAT|binary/);
    expect(log).toMatch(/transcript not found/);
  });

  it("PostToolUse re-indexes in the background, one run at a time; SessionEnd queues distillation", async () => {
    const { root, transcript, hook, home } = project();
    writeFileSync(join(root, "a.py"), "def alpha_beta():\n    return 1\n");
    const first = hook("PostToolUse", {
      session_id: "s1",
      tool_name: "Write",
      tool_input: { file_path: join(root, "a.py") },
    });
    expect(first.code).toBe(0);
    const lock = join(root, ".memcards", "reindex.lock");
    expect(
      await pollUntil(
        () => existsSync(lock),
        (held) => !held,
      ),
    ).toBe(false);
    const env = { HOME: home, MEMCARDS_HOME: join(home, ".memcards") };
    expect(runCli(["graph", "neighbors", "alpha_beta", "--root", root], { env }).stdout).toContain("a.py");
    writeFileSync(lock, String(Date.now())); // a run in progress
    const second = hook("PostToolUse", {
      session_id: "s1",
      tool_name: "Edit",
      tool_input: { file_path: join(root, "a.py") },
    });
    expect(second.code).toBe(0);
    const end = hook("SessionEnd", { session_id: "s1", transcript_path: transcript, reason: "exit" });
    expect(end.code).toBe(0);
    const log = readFileSync(join(root, ".memcards", "hooks.log"), "utf8");
    expect(log).toMatch(/PostToolUse s1 queued re-index/);
    expect(log).toMatch(/PostToolUse s1 re-index already queued/);
    expect(log).toMatch(/SessionEnd s1 queued distillation/);
    expect(existsSync(join(root, ".memcards", "memcards.db"))).toBe(true);
  });
});

describe("optional card hooks", () => {
  it("inject cards before a prompt and before an edit once the project is indexed, and stay quiet before", () => {
    const root = join(tmpDir(), "repo");
    cpSync(POLYGLOT, root, { recursive: true });
    const home = tmpDir();
    const env = { HOME: home, MEMCARDS_HOME: join(home, ".memcards") };
    const hook = (event: string, input: Record<string, unknown>) =>
      runCli(["hook", event], {
        cwd: root,
        env,
        input: JSON.stringify({ cwd: root, session_id: "s1", hook_event_name: event, ...input }),
      });
    expect(hook("UserPromptSubmit", { prompt: "Circle.area is wrong" }).stdout).toBe("");
    expect(runCli(["index", root, "--lexical-only"], { env }).code).toBe(0);
    const prompt = hook("UserPromptSubmit", {
      prompt: "Circle.area in pyproj/shapes/geometry.py returns a negative value",
    });
    expect(prompt.code).toBe(0);
    expect(prompt.stdout).toMatch(/^# memcards: cards for this prompt/);
    expect(prompt.stdout).toContain("pyproj/shapes/geometry.py");
    const edit = hook("PreToolUse", {
      tool_name: "Edit",
      tool_input: { file_path: join(root, "pyproj/shapes/geometry.py") },
    });
    expect(edit.stdout).toMatch(/^# memcards: cards for pyproj\/shapes\/geometry\.py/);
    expect(edit.stdout.length).toBeLessThan(4100);
  });

  it("are added to the settings only when asked for", () => {
    const root = tmpDir();
    const without = JSON.parse(planHooks({ root, cli: "/x/cli.js" }).after) as { hooks: Record<string, unknown> };
    expect(Object.keys(without.hooks)).not.toContain("UserPromptSubmit");
    const withCards = JSON.parse(planHooks({ root, cli: "/x/cli.js", cards: true }).after) as {
      hooks: Record<string, { matcher?: string }[]>;
    };
    expect(withCards.hooks.PreToolUse![0]!.matcher).toBe("Edit|MultiEdit|Write");
    expect(Object.keys(withCards.hooks)).toContain("UserPromptSubmit");
  });
});
