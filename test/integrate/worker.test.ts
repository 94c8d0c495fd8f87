// The resident hook worker, as Claude Code meets it: hooks run as separate processes with their JSON on stdin; a
// worker answers them over its private socket with what the direct path prints, and any trouble with the worker
// (killed, a stale socket file, a wrong token, no answer, a folder others can enter) sends the hook down the direct
// path instead of failing or hanging the agent.
import { type ChildProcess, spawn } from "node:child_process";
import { chmodSync, cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Socket } from "node:net";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

import { afterEach, describe, expect, it } from "vitest";

import { readToken, workerListening, workerPlace } from "../../src/integrate/worker-client.js";
import { cliPath, runCli } from "../helpers/cli.js";
import { tmpDir } from "../helpers/tmp.js";
import { pollUntil } from "../helpers/wait.js";
import { POLYGLOT } from "../repo/fixture.js";

const started: ChildProcess[] = [];
afterEach(() => {
  for (const c of started.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
});

interface Run {
  code: number | null;
  stdout: string;
  /** memcards modules this hook process loaded (the worker's answer needs none beyond the entry). */
  loaded: string[];
}

/** An indexed copy of the polyglot fixture with its own HOME. */
function project() {
  const root = join(tmpDir(), "repo");
  cpSync(POLYGLOT, root, { recursive: true });
  const home = tmpDir();
  const env = { HOME: home, MEMCARDS_HOME: join(home, ".memcards") };
  expect(runCli(["index", root, "--lexical-only"], { env }).code).toBe(0);
  const trace = tmpDir();
  writeFileSync(
    join(trace, "hooks.mjs"),
    `import { appendFileSync } from "node:fs";\nexport async function resolve(s, c, next) {\n  const r = await next(s, c);\n  if (process.env.TRACE_FILE) appendFileSync(process.env.TRACE_FILE, r.url + "\\n");\n  return r;\n}\n`,
  );
  writeFileSync(
    join(trace, "register.mjs"),
    `import { register } from "node:module";\nregister(${JSON.stringify(pathToFileURL(join(trace, "hooks.mjs")).href)});\n`,
  );
  let n = 0;
  /** Runs one hook as Claude Code does (a new process, JSON on stdin), without blocking this process. */
  const hook = (event: string, input: Record<string, unknown>, extra: Record<string, string> = {}): Promise<Run> => {
    const file = join(trace, `run-${n++}.txt`);
    writeFileSync(file, "");
    const child = spawn(
      process.execPath,
      ["--import", pathToFileURL(join(trace, "register.mjs")).href, cliPath, "hook", event],
      { cwd: root, env: { ...process.env, ...env, TRACE_FILE: file, ...extra }, stdio: ["pipe", "pipe", "ignore"] },
    );
    let stdout = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString("utf8")));
    child.stdin.end(JSON.stringify({ cwd: root, session_id: "s1", hook_event_name: event, ...input }));
    return new Promise((done) =>
      child.on("close", (code) =>
        done({
          code,
          stdout,
          loaded: readFileSync(file, "utf8")
            .split("\n")
            .filter((u) => u.includes("/dist/src/")),
        }),
      ),
    );
  };
  const place = workerPlace({ ...process.env, ...env }, cliPath);
  /** Starts a worker the way a hook does, and waits until it listens. */
  const startWorker = async (extra: Record<string, string> = {}) => {
    const child = spawn(process.execPath, [cliPath, "hook-worker"], {
      env: { ...process.env, ...env, ...extra },
      stdio: "ignore",
    });
    started.push(child);
    await pollUntil(
      () => (readToken(place.token) ? workerListening(place.socket) : false),
      (v) => v,
    );
    return child;
  };
  const log = () =>
    readFileSync(join(root, ".memcards", "hooks.log"), "utf8")
      .trim()
      .split("\n");
  return { root, env, hook, place, startWorker, log };
}

const PROMPT = { prompt: "Circle.area in pyproj/shapes/geometry.py returns a negative value" };
const DIRECT = { MEMCARDS_HOOK_WORKER: "0" };
const answeredByWorker = (r: Run) => !r.loaded.some((u) => u.endsWith("/integrate/hook-command.js"));

// Each test indexes a copy of the fixture and starts real processes: minutes on a loaded machine.
describe("the resident hook worker", { timeout: 240_000 }, () => {
  it("answers hooks with what the direct path prints, loading nothing of memcards in the hook process", async () => {
    const p = project();
    const direct = await p.hook("UserPromptSubmit", PROMPT, DIRECT);
    expect(direct.stdout).toMatch(/^# memcards: cards for this prompt/);
    expect(answeredByWorker(direct)).toBe(false);
    const directStart = await p.hook("SessionStart", { source: "startup" }, DIRECT);

    await p.startWorker();
    const viaWorker = await p.hook("UserPromptSubmit", PROMPT);
    expect(viaWorker.code).toBe(0);
    expect(answeredByWorker(viaWorker)).toBe(true);
    expect(viaWorker.stdout).toBe(direct.stdout);
    const start = await p.hook("SessionStart", { source: "startup" });
    expect(answeredByWorker(start)).toBe(true);
    expect(start.stdout).toBe(directStart.stdout);
    // Logged like a direct call.
    expect(p.log().filter((l) => / UserPromptSubmit s1 injected \d+ cards?/.test(l))).toHaveLength(2);
    // The socket lives in a folder only this user can enter; the token is readable only by this user.
    expect(readToken(p.place.token)).toMatch(/^[0-9a-f]{64}$/);
  });

  it("a first hook with no worker runs directly and starts one; later hooks reach it", async () => {
    const p = project();
    const first = await p.hook("PostToolUse", { tool_name: "Edit", tool_input: { file_path: join(p.root, "x.py") } });
    expect(first.code).toBe(0);
    expect(answeredByWorker(first)).toBe(false);
    await pollUntil(
      () => (readToken(p.place.token) ? workerListening(p.place.socket) : false),
      (v) => v,
    );
    const next = await p.hook("UserPromptSubmit", PROMPT);
    expect(answeredByWorker(next)).toBe(true);
    expect(next.stdout).toMatch(/^# memcards: cards for this prompt/);
    // Stop the worker this test started (it would idle out).
    writeFileSync(p.place.token, "0".repeat(64), { mode: 0o600 });
    await pollUntil(
      () => workerListening(p.place.socket),
      (v) => !v,
    );
  });

  it("a killed worker loses nothing: its stale socket is skipped, the hook runs directly, a new worker takes over", async () => {
    const p = project();
    const direct = await p.hook("UserPromptSubmit", PROMPT, DIRECT);
    const w = await p.startWorker();
    expect((await p.hook("UserPromptSubmit", PROMPT)).stdout).toBe(direct.stdout);
    const oldToken = readToken(p.place.token);
    w.kill("SIGKILL");
    await pollUntil(
      () => w.exitCode !== null || w.signalCode !== null,
      (v) => v,
    );
    expect(existsSync(p.place.socket)).toBe(true); // left behind by the killed worker
    const after = await p.hook("UserPromptSubmit", PROMPT);
    expect(after.code).toBe(0);
    expect(answeredByWorker(after)).toBe(false);
    expect(after.stdout).toBe(direct.stdout);
    // Every call was logged, the ones the killed worker answered included.
    expect(p.log().filter((l) => / UserPromptSubmit s1 injected/.test(l))).toHaveLength(3);
    // The hook started a new worker, which cleared the stale socket and answers.
    await pollUntil(
      async () => readToken(p.place.token) !== oldToken && (await workerListening(p.place.socket)),
      (v) => v,
    );
    const again = await p.hook("UserPromptSubmit", PROMPT);
    expect(answeredByWorker(again)).toBe(true);
    expect(again.stdout).toBe(direct.stdout);
    writeFileSync(p.place.token, "0".repeat(64), { mode: 0o600 });
  });

  it("a wrong token: the worker refuses, the hook runs directly, and the worker whose token is gone leaves", async () => {
    const p = project();
    const direct = await p.hook("UserPromptSubmit", PROMPT, DIRECT);
    await p.startWorker();
    const real = readToken(p.place.token)!;
    writeFileSync(p.place.token, "f".repeat(64), { mode: 0o600 });
    expect(real).not.toBe("f".repeat(64));
    const wrong = await p.hook("UserPromptSubmit", PROMPT);
    expect(wrong.code).toBe(0);
    expect(answeredByWorker(wrong)).toBe(false);
    expect(wrong.stdout).toBe(direct.stdout);
    await pollUntil(
      () => workerListening(p.place.socket),
      (v) => !v,
    );
  });

  it("something that accepts the connection and never answers: a bounded wait, then the direct path", async () => {
    const p = project();
    const direct = await p.hook("UserPromptSubmit", PROMPT, DIRECT);
    mkdirSync(p.place.dir, { recursive: true, mode: 0o700 });
    const held: Socket[] = [];
    const hung = createServer((c) => void held.push(c));
    await new Promise<void>((r) => hung.listen(p.place.socket, r));
    writeFileSync(p.place.token, "a".repeat(64), { mode: 0o600 });
    try {
      const slow = await p.hook("UserPromptSubmit", PROMPT, { MEMCARDS_HOOK_WORKER_TIMEOUT_MS: "300" });
      expect(slow.code).toBe(0);
      expect(answeredByWorker(slow)).toBe(false);
      expect(slow.stdout).toBe(direct.stdout);
      // The unanswering socket is given up, so the next hook does not wait for it again.
      expect(existsSync(p.place.socket)).toBe(false);
    } finally {
      for (const c of held) c.destroy();
      await new Promise((r) => hung.close(r));
    }
  });

  it("a socket folder another user could enter is not trusted: the hook runs directly", async () => {
    const p = project();
    const direct = await p.hook("UserPromptSubmit", PROMPT, DIRECT);
    await p.startWorker();
    chmodSync(p.place.dir, 0o755);
    const open = await p.hook("UserPromptSubmit", PROMPT);
    expect(answeredByWorker(open)).toBe(false);
    expect(open.stdout).toBe(direct.stdout);
  });

  it("answers many concurrent hooks, each once, with the direct path's output", async () => {
    const p = project();
    const direct = await p.hook("UserPromptSubmit", PROMPT, DIRECT);
    await p.startWorker();
    const before = p.log().length;
    const runs = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        i % 2 === 0
          ? p.hook("UserPromptSubmit", PROMPT)
          : p.hook("SessionStart", { source: "startup", session_id: `c${i}` }),
      ),
    );
    for (const r of runs) expect(r.code).toBe(0);
    for (const [i, r] of runs.entries()) if (i % 2 === 0) expect(r.stdout).toBe(direct.stdout);
    expect(runs.filter(answeredByWorker).length).toBeGreaterThan(0);
    expect(p.log().length - before).toBe(8);
    writeFileSync(p.place.token, "0".repeat(64), { mode: 0o600 });
  });

  it("exits by itself when idle, removing its socket and token", async () => {
    const p = project();
    const w = await p.startWorker({ MEMCARDS_HOOK_WORKER_IDLE_MS: "2000" });
    const code = w.exitCode ?? (await new Promise((r) => w.on("exit", r)));
    expect(code).toBe(0);
    expect(existsSync(p.place.socket)).toBe(false);
    expect(existsSync(p.place.token)).toBe(false);
  });
});
