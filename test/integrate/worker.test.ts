// The resident hook worker, as Claude Code meets it: hooks run as separate processes with their JSON on stdin; a
// worker answers them over its private socket with what the direct path prints, and any trouble with the worker
// (killed, a stale socket file, a wrong token, no answer, a folder others can enter) sends the hook down the direct
// path instead of failing or hanging the agent.
import { type ChildProcess, spawn } from "node:child_process";
import {
  chmodSync,
  cpSync,
  existsSync,
  linkSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  writeFileSync,
} from "node:fs";
import { connect, createServer, type Socket } from "node:net";
import { join, relative } from "node:path";
import { pathToFileURL } from "node:url";

import { afterEach, describe, expect, it } from "vitest";

import {
  askWorker,
  readToken,
  WORKER_EVENTS,
  workerListening,
  workerPlace,
} from "../../src/integrate/worker-client.js";
import { cliPath, repoRoot, runCli } from "../helpers/cli.js";
import { loadedSources } from "../helpers/loaded.js";
import { tmpDir } from "../helpers/tmp.js";
import { pollUntil } from "../helpers/wait.js";
import { POLYGLOT } from "../repo/fixture.js";

/** The hook entry `memcards init --hooks` registers. */
const hookPath = join(repoRoot, "dist", "hook.js");

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
  /**
   * Runs one hook as Claude Code does (a new process, JSON on stdin), without blocking this process: through
   * dist/hook.js, what `memcards init --hooks` registers, or through `dist/cli.js hook`, what older settings name.
   * `stdin` replaces the JSON.
   */
  const hook = (
    event: string,
    input: Record<string, unknown>,
    extra: Record<string, string> = {},
    via: { entry?: "hook" | "cli"; stdin?: string } = {},
  ): Promise<Run> => {
    const file = join(trace, `run-${n++}.txt`);
    writeFileSync(file, "");
    const args = via.entry === "cli" ? [cliPath, "hook", event] : [hookPath, event];
    const child = spawn(process.execPath, ["--import", pathToFileURL(join(trace, "register.mjs")).href, ...args], {
      cwd: root,
      env: { ...process.env, ...env, TRACE_FILE: file, ...extra },
      stdio: ["pipe", "pipe", "ignore"],
    });
    let stdout = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString("utf8")));
    child.stdin.end(via.stdin ?? JSON.stringify({ cwd: root, session_id: "s1", hook_event_name: event, ...input }));
    return new Promise((done) =>
      child.on("close", (code) =>
        done({
          code,
          stdout,
          loaded: loadedSources(readFileSync(file, "utf8").split("\n")).filter((u) => u.startsWith("src/")),
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
  const log = () => {
    const file = join(root, ".memcards", "hooks.log");
    return existsSync(file) ? readFileSync(file, "utf8").trim().split("\n") : [];
  };
  return { root, env, hook, place, startWorker, log };
}

const PROMPT = { prompt: "Circle.area in pyproj/shapes/geometry.py returns a negative value" };
const DIRECT = { MEMCARDS_HOOK_WORKER: "0" };
const answeredByWorker = (r: Run) => !r.loaded.includes("src/integrate/hook-command.ts");

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

  it("the registered entry loads only itself and the worker's client; older settings' `cli.js hook` gets the same", async () => {
    const p = project();
    const direct = await p.hook("UserPromptSubmit", PROMPT, DIRECT);
    await p.startWorker();
    const viaHook = await p.hook("UserPromptSubmit", PROMPT);
    const viaCli = await p.hook("UserPromptSubmit", PROMPT, {}, { entry: "cli" });
    for (const r of [viaHook, viaCli]) {
      expect(r.code).toBe(0);
      expect(answeredByWorker(r)).toBe(true);
      expect(r.stdout).toBe(direct.stdout);
    }
    // Of memcards, the hook entry's process loads the entry, the worker's client and the event names.
    const client = ["src/cli/hook-entry.ts", "src/integrate/worker-client.ts", "src/integrate/hooks/registry.ts"];
    expect(viaHook.loaded.filter((f) => !client.includes(f))).toEqual([]);
    expect(viaHook.loaded).toContain("src/cli/hook-entry.ts");
    // Once a session: SessionEnd is answered by the worker too (its distillation runs detached).
    const end = await p.hook("SessionEnd", {});
    expect(answeredByWorker(end)).toBe(true);
    expect(p.log().filter((l) => / SessionEnd s1 no transcript_path$/.test(l))).toHaveLength(1);
    writeFileSync(p.place.token, "0".repeat(64), { mode: 0o600 });
  });

  it("a malformed event: exit 0, nothing printed, the problem logged, whether the worker or the hook reads it", async () => {
    const p = project();
    await p.startWorker();
    const before = p.log().length;
    const notJson = await p.hook("UserPromptSubmit", {}, {}, { stdin: "{not json" });
    const notObject = await p.hook("SessionStart", {}, {}, { stdin: "[1,2]" });
    const unknown = await p.hook("userpromptsubmit", PROMPT);
    for (const r of [notJson, notObject, unknown]) {
      expect(r.code).toBe(0);
      expect(r.stdout).toBe("");
    }
    expect(answeredByWorker(notJson)).toBe(true);
    // An event the worker does not serve runs directly.
    expect(answeredByWorker(unknown)).toBe(false);
    // Logged where each call's folder leads: the project's log, or the per-user one for JSON without a `cwd`.
    const userLog = join(p.env.MEMCARDS_HOME, "hooks.log");
    const logged = [
      ...p.log().slice(before),
      ...(existsSync(userLog) ? readFileSync(userLog, "utf8").split("\n") : []),
    ];
    expect(logged.filter((l) => / UserPromptSubmit - error: stdin is .*JSON/.test(l))).toHaveLength(1);
    expect(logged.filter((l) => / SessionStart - error: stdin is not a hook's JSON object/.test(l))).toHaveLength(1);
    expect(logged.filter((l) => /event names are case-sensitive, use UserPromptSubmit/.test(l))).toHaveLength(1);
    expect(await workerListening(p.place.socket)).toBe(true);
    writeFileSync(p.place.token, "0".repeat(64), { mode: 0o600 });
  });

  it.runIf(process.platform === "linux")(
    "a worker killed (-9) while a hook waits for its answer: the hook runs the call itself, once",
    async () => {
      const p = project();
      const direct = await p.hook("UserPromptSubmit", PROMPT, DIRECT);
      const w = await p.startWorker();
      // Stopped, the worker's socket still accepts (the kernel queues the connection) and nothing answers.
      w.kill("SIGSTOP");
      const before = p.log().length;
      const waiting = p.hook("UserPromptSubmit", PROMPT, { MEMCARDS_HOOK_WORKER_TIMEOUT_MS: "120000" });
      // Killed once the hook's connection waits in its queue (/proc/net/unix lists it under the socket's path).
      const queued = () =>
        readFileSync("/proc/net/unix", "utf8")
          .split("\n")
          .filter((l) => l.endsWith(` ${p.place.socket}`)).length;
      await pollUntil(queued, (v) => v >= 2);
      w.kill("SIGKILL");
      const r = await waiting;
      expect(r.code).toBe(0);
      expect(answeredByWorker(r)).toBe(false);
      expect(r.stdout).toBe(direct.stdout);
      expect(
        p
          .log()
          .slice(before)
          .filter((l) => / UserPromptSubmit s1 injected/.test(l)),
      ).toHaveLength(1);
    },
  );

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

  it.runIf(process.platform === "linux")(
    "the worker a hook starts opens that hook's store before the next hook comes",
    async () => {
      const p = project();
      const first = await p.hook("UserPromptSubmit", PROMPT);
      expect(answeredByWorker(first)).toBe(false);
      const store = realpathSync(join(p.root, ".memcards", "memcards.db"));
      // The worker of this test's user folder, found by its command line and environment.
      const workerPid = () =>
        readdirSync("/proc")
          .filter((d) => /^\d+$/.test(d))
          .find((d) => {
            try {
              const cmd = readFileSync(`/proc/${d}/cmdline`, "utf8");
              const env = readFileSync(`/proc/${d}/environ`, "utf8").split("\0");
              return cmd.includes("hook-worker") && env.includes(`MEMCARDS_HOME=${p.env.MEMCARDS_HOME}`);
            } catch {
              return false;
            }
          });
      const opened = (pid: string) =>
        readdirSync(`/proc/${pid}/fd`).some((fd) => {
          try {
            return readlinkSync(`/proc/${pid}/fd/${fd}`) === store;
          } catch {
            return false;
          }
        });
      // No hook has reached the worker yet, and it holds the store open.
      const pid = await pollUntil(workerPid, (v) => v !== undefined);
      await pollUntil(
        () => opened(pid!),
        (v) => v,
      );
      expect(p.log().filter((l) => / UserPromptSubmit /.test(l))).toHaveLength(1);
      const next = await p.hook("UserPromptSubmit", PROMPT);
      expect(answeredByWorker(next)).toBe(true);
      expect(next.stdout).toBe(first.stdout);
      writeFileSync(p.place.token, "0".repeat(64), { mode: 0o600 });
    },
  );

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

  it("loads the handler of every event it answers before it listens", async () => {
    // A handler first loaded by a call would stay unloadable in this process if that load failed once (Node keeps a
    // module that failed to link), and the worker would answer that event with nothing while the direct path works.
    const home = tmpDir();
    const env = { HOME: home, MEMCARDS_HOME: join(home, ".memcards") };
    const trace = tmpDir();
    const file = join(trace, "worker.txt");
    writeFileSync(file, "");
    writeFileSync(
      join(trace, "hooks.mjs"),
      `import { appendFileSync } from "node:fs";\nexport async function resolve(s, c, next) {\n  const r = await next(s, c);\n  appendFileSync(${JSON.stringify(file)}, r.url + "\\n");\n  return r;\n}\n`,
    );
    writeFileSync(
      join(trace, "register.mjs"),
      `import { register } from "node:module";\nregister(${JSON.stringify(pathToFileURL(join(trace, "hooks.mjs")).href)});\n`,
    );
    const place = workerPlace({ ...process.env, ...env }, cliPath);
    const child = spawn(
      process.execPath,
      ["--import", pathToFileURL(join(trace, "register.mjs")).href, cliPath, "hook-worker"],
      { env: { ...process.env, ...env }, stdio: "ignore" },
    );
    started.push(child);
    await pollUntil(
      () => (readToken(place.token) ? workerListening(place.socket) : false),
      (v) => v,
    );
    const loaded = loadedSources(readFileSync(file, "utf8").split("\n"));
    const handlers = [...WORKER_EVENTS].map((e) => e.replace(/(?<=.)([A-Z])/g, "-$1").toLowerCase());
    expect(handlers).toHaveLength(5);
    for (const h of handlers) expect(loaded, `${h}.ts`).toContain(`src/integrate/hooks/${h}.ts`);
    writeFileSync(place.token, "0".repeat(64), { mode: 0o600 });
  });

  it("exits by itself when idle, removing its socket and token", async () => {
    const p = project();
    const w = await p.startWorker({ MEMCARDS_HOOK_WORKER_IDLE_MS: "2000" });
    const code = w.exitCode ?? (await new Promise((r) => w.on("exit", r)));
    expect(code).toBe(0);
    expect(existsSync(p.place.socket)).toBe(false);
    expect(existsSync(p.place.token)).toBe(false);
  });
  it("a malformed request is refused and the worker keeps answering", async () => {
    const p = project();
    await p.startWorker();
    /** Sends one raw line on the worker's socket; resolves with what came back before it closed. */
    const raw = (line: string) =>
      new Promise<string>((done) => {
        const s = connect(p.place.socket);
        let got = "";
        s.on("data", (c: Buffer) => (got += c.toString("utf8")));
        s.on("error", () => undefined);
        s.on("close", () => done(got));
        s.write(`${line}\n`);
      });
    const real = readToken(p.place.token)!;
    const base = { v: 1, event: "SessionStart", stdin: "{}", cwd: p.root, env: {} };
    for (const line of [
      "null",
      "[]",
      '"text"',
      // As many characters as the token, more bytes.
      JSON.stringify({ ...base, token: "\u00e9".repeat(real.length) }),
      JSON.stringify({ ...base, token: real, flags: null, env: "HOME=/" }),
    ])
      expect(JSON.parse(await raw(line))).toMatchObject({ ok: false });
    expect(await workerListening(p.place.socket)).toBe(true);
    const after = await p.hook("UserPromptSubmit", PROMPT);
    expect(answeredByWorker(after)).toBe(true);
    expect(after.stdout).toMatch(/^# memcards: cards for this prompt/);
    writeFileSync(p.place.token, "0".repeat(64), { mode: 0o600 });
  });

  it("a call whose hook gave up waiting is not run by the worker later: each hook acts once", async () => {
    const p = project();
    const w = await p.startWorker();
    const token = readToken(p.place.token)!;
    const kept = join(p.place.dir, "kept.sock");
    linkSync(p.place.socket, kept);
    const before = p.log().length;
    // The worker is stuck: hooks connect, wait their time, give its socket up and run directly.
    w.kill("SIGSTOP");
    // (Hooks here start no other worker: one is being started.)
    writeFileSync(p.place.starting, String(process.pid));
    const gaveUp = await Promise.all(
      [1, 2, 3].map((i) =>
        p.hook("SessionStart", { source: "startup", session_id: `g${i}` }, { MEMCARDS_HOOK_WORKER_TIMEOUT_MS: "300" }),
      ),
    );
    for (const r of gaveUp) expect(answeredByWorker(r)).toBe(false);
    expect(p.log().length - before).toBe(3);
    // It comes back with its place restored and reads the requests those hooks left behind, then a fresh one.
    linkSync(kept, p.place.socket);
    writeFileSync(p.place.token, token, { mode: 0o600 });
    w.kill("SIGCONT");
    const fresh = await p.hook(
      "SessionStart",
      { source: "startup", session_id: "f1" },
      { MEMCARDS_HOOK_WORKER_TIMEOUT_MS: "120000" },
    );
    expect(answeredByWorker(fresh)).toBe(true);
    const lines = p.log().slice(before);
    expect(lines).toHaveLength(4);
    for (const s of ["g1", "g2", "g3", "f1"])
      expect(lines.filter((l) => l.includes(` SessionStart ${s} `))).toHaveLength(1);
    writeFileSync(p.place.token, "0".repeat(64), { mode: 0o600 });
  });

  it("a hook that gave up on a stuck worker leaves alone a newer worker's socket and token", async () => {
    const home = tmpDir();
    const place = workerPlace({ HOME: home }, cliPath);
    mkdirSync(place.dir, { recursive: true, mode: 0o700 });
    writeFileSync(place.token, "a".repeat(64), { mode: 0o600 });
    const held: Socket[] = [];
    // Stuck; while the hook waits, a newer worker takes the place (its token replaces the old one).
    const stuck = createServer((c) => {
      held.push(c);
      writeFileSync(place.token, "b".repeat(64), { mode: 0o600 });
    });
    await new Promise<void>((r) => stuck.listen(place.socket, r));
    try {
      const a = await askWorker(
        place,
        { event: "SessionStart", stdin: "{}", flags: {}, cwd: home, env: {} },
        { connectMs: 30_000, replyMs: 2000 },
      );
      expect(a.ok).toBe(false);
      expect(readToken(place.token)).toBe("b".repeat(64));
      expect(existsSync(place.socket)).toBe(true);
    } finally {
      for (const c of held) c.destroy();
      await new Promise((r) => stuck.close(r));
    }
  });

  it("relative paths in the hook's settings mean the hook's folder, also when the worker answers", async () => {
    const p = project();
    const rel = { MEMCARDS_DB: join(".memcards", "memcards.db") };
    const direct = await p.hook("UserPromptSubmit", PROMPT, { ...DIRECT, ...rel });
    expect(direct.stdout).toMatch(/^# memcards: cards for this prompt/);
    await p.startWorker();
    const viaWorker = await p.hook("UserPromptSubmit", PROMPT, rel);
    expect(answeredByWorker(viaWorker)).toBe(true);
    expect(viaWorker.stdout).toBe(direct.stdout);
    writeFileSync(p.place.token, "0".repeat(64), { mode: 0o600 });
  });
  it("a hook whose MEMCARDS_HOME is relative starts its worker where later hooks look for it", async () => {
    const p = project();
    const rel = { MEMCARDS_HOME: relative(p.root, p.env.MEMCARDS_HOME) };
    const first = await p.hook(
      "PostToolUse",
      { tool_name: "Edit", tool_input: { file_path: join(p.root, "x.py") } },
      rel,
    );
    expect(answeredByWorker(first)).toBe(false);
    await pollUntil(
      () => (readToken(p.place.token) ? workerListening(p.place.socket) : false),
      (v) => v,
    );
    const next = await p.hook("UserPromptSubmit", PROMPT, rel);
    expect(answeredByWorker(next)).toBe(true);
    expect(next.stdout).toMatch(/^# memcards: cards for this prompt/);
    writeFileSync(p.place.token, "0".repeat(64), { mode: 0o600 });
  });
});
