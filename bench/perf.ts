// `memcards eval perf`: every latency and cost an agent or a person feels, each beside a floor measured in the same
// run on the same repository (a private copy of its indexable files), printed as ratios. Child processes run under
// /usr/bin/time when it exists, so their CPU and peak RSS are theirs alone.
import { spawn, spawnSync } from "node:child_process";
import {
  appendFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  watch as fsWatch,
  writeFileSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import Database from "better-sqlite3";

import { createApp } from "../src/app.js";
import type { Config } from "../src/config.js";
import { readToken, workerListening, type WorkerPlace, workerPlace } from "../src/integrate/worker-client.js";
import type { Logger } from "../src/log.js";
import { recall } from "../src/memory/service.js";
import { resolveProjectRoot } from "../src/project/root.js";
import { scanRepo } from "../src/repo/scan.js";
import { compressContext } from "../src/session/compress.js";
import { recordMemory } from "../src/session/memory.js";
import { listMemories, memoryCounts } from "../src/storage/memories.js";
import { startUi } from "../src/ui/server.js";
import { CategoryName } from "../src/vocab.js";
import { siblingWorkerFile } from "../src/worker-file.js";
import { seededRandom } from "./localize/bootstrap.js";
import { percentile, round } from "./localize/metrics.js";

/** One figure: its samples' p50 and p95 (ms), CPU per sample (ms) and peak RSS (MB) where measured. */
export interface Figure {
  p50: number;
  p95: number;
  cpu: number | null;
  rss: number | null;
  n: number;
}

export interface PerfRow {
  measure: string;
  floor: string;
  floorFig: Figure | null;
  fig: Figure;
  /** memcards / floor: p50, p95 and CPU. */
  ratio: { p50: number | null; p95: number | null; cpu: number | null };
  note?: string;
}

export interface PerfReport {
  repo: string;
  files: number;
  symbols: number;
  storeMb: number;
  embedder: string;
  rows: PerfRow[];
}

/**
 * The groups of measures `--only` can pick; the full index always runs (every other group needs its store).
 * "memory" measures the memory rows on the repository's names (and, with `memoryTranscripts`, on the transcripts'
 * units too); "memory-transcripts" only on the transcripts' units.
 */
export const PERF_GROUPS = ["reindex", "serve", "cards", "hooks", "watcher", "memory", "memory-transcripts"] as const;
export type PerfGroup = (typeof PERF_GROUPS)[number];

export interface PerfOptions {
  /** Run only these groups (besides the full index); all when absent. */
  only?: readonly PerfGroup[];
  repo: string;
  workDir: string;
  /** The CLI entry (dist/cli.js). */
  cli: string;
  config: Config;
  logger: Logger;
  /** get_memory_cards calls over one session (and FTS5 floor queries). */
  tasks?: number;
  /** Runs of each hook and each start-up. */
  runs?: number;
  /** Another build's CLI entry (a before): its hook rows are timed beside this build's, samples alternating. */
  beforeCli?: string;
  /** Store sizes (memory units) at which writes and recall are measured. */
  units?: number[];
  /**
   * A folder of transcripts: the memory rows are measured a second time, on units drawn from what these transcripts
   * distil into, each written again with some of its words varied (a vocabulary as real sessions have it).
   */
  memoryTranscripts?: string;
  onStep?: (s: string) => void;
}

const TIME = existsSync("/usr/bin/time") ? "/usr/bin/time" : undefined;
const now = () => performance.now();

interface Sample {
  wall: number;
  cpu: number | null;
  rss: number | null;
  code: number;
  stdout: string;
}

/** Runs a command to its end: wall time, and its own CPU and peak RSS when /usr/bin/time is there. */
function timed(cmd: string, args: string[], o: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string; out: string }) {
  const argv = TIME ? ["-f", "%U %S %M", "-o", o.out, cmd, ...args] : args;
  const t = now();
  const r = spawnSync(TIME ?? cmd, argv, {
    cwd: o.cwd,
    env: o.env,
    input: o.input ?? "",
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
    timeout: 30 * 60_000,
  });
  const wall = now() - t;
  let cpu: number | null = null;
  let rss: number | null = null;
  if (TIME && existsSync(o.out)) {
    const last = readFileSync(o.out, "utf8").trim().split("\n").pop() ?? "";
    const [u, s, m] = last.split(/\s+/).map(Number);
    if (u !== undefined && s !== undefined && Number.isFinite(u + s)) cpu = (u + s) * 1000;
    if (m !== undefined && Number.isFinite(m)) rss = m / 1024;
  }
  return { wall, cpu, rss, code: r.status ?? -1, stdout: r.stdout ?? "" } satisfies Sample;
}

function figure(samples: readonly { wall: number; cpu?: number | null; rss?: number | null }[]): Figure {
  const walls = samples.map((s) => s.wall);
  const cpus = samples.map((s) => s.cpu).filter((c): c is number => typeof c === "number");
  const rsss = samples.map((s) => s.rss).filter((c): c is number => typeof c === "number");
  return {
    p50: round(percentile(walls, 0.5), 1),
    p95: round(percentile(walls, 0.95), 1),
    cpu: cpus.length ? round(percentile(cpus, 0.5), 1) : null,
    rss: rsss.length ? round(Math.max(...rsss), 0) : null,
    n: samples.length,
  };
}

const ratio = (a: number | null, b: number | null | undefined) =>
  a === null || b === null || b === undefined || b <= 0 ? null : round(a / b, 2);

function row(measure: string, floor: string, floorFig: Figure | null, fig: Figure, note?: string): PerfRow {
  return {
    measure,
    floor,
    floorFig,
    fig,
    ratio: {
      p50: ratio(fig.p50, floorFig?.p50),
      p95: ratio(fig.p95, floorFig?.p95),
      cpu: ratio(fig.cpu, floorFig?.cpu),
    },
    ...(note ? { note } : {}),
  };
}

/** CPU milliseconds a live process has used (Linux /proc), or null. */
function procCpuMs(pid: number | null | undefined): number | null {
  if (!pid) return null;
  try {
    const f = readFileSync(`/proc/${pid}/stat`, "utf8");
    const rest = f.slice(f.lastIndexOf(")") + 2).split(" ");
    // utime and stime are fields 14 and 15 (1-based); `rest` starts at field 3. Clock ticks are 100 Hz on Linux.
    return (Number(rest[11]) + Number(rest[12])) * 10;
  } catch {
    return null;
  }
}

/** A server with one tool on the same SDK: the floor of `serve`'s start-up. */
function oneToolServerScript(dir: string): string {
  const mcp = import.meta.resolve("@modelcontextprotocol/sdk/server/mcp.js");
  const stdio = import.meta.resolve("@modelcontextprotocol/sdk/server/stdio.js");
  const file = join(dir, "one-tool.mjs");
  writeFileSync(
    file,
    `import { McpServer } from ${JSON.stringify(mcp)};
import { StdioServerTransport } from ${JSON.stringify(stdio)};
const server = new McpServer({ name: "floor", version: "1.0.0" });
server.registerTool("ping", { description: "answers pong" }, async () => ({ content: [{ type: "text", text: "pong" }] }));
await server.connect(new StdioServerTransport());
`,
  );
  return file;
}

async function connect(command: string, args: string[], env: NodeJS.ProcessEnv, cwd: string) {
  const transport = new StdioClientTransport({
    command,
    args,
    env: env as Record<string, string>,
    cwd,
    stderr: "ignore",
  });
  const client = new Client({ name: "memcards-perf", version: "1.0.0" });
  const t = now();
  await client.connect(transport);
  await client.listTools();
  return { client, transport, readyMs: now() - t };
}

/** Starts the resident hook worker for `place` and waits until it answers; its process id. */
async function hookWorker(node: string, cli: string, env: NodeJS.ProcessEnv, place: WorkerPlace): Promise<number> {
  if (await workerListening(place.socket)) throw new Error(`a hook worker already listens at ${place.socket}`);
  const child = spawn(node, [cli, "hook-worker"], { env, stdio: "ignore", detached: true });
  child.unref();
  for (let k = 0; k < 1200; k++) {
    if (readToken(place.token) && (await workerListening(place.socket))) return child.pid!;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the hook worker did not start (${place.socket})`);
}

/** Waits until process `pid` has spent no CPU for a while (its warm-up done). */
async function settled(pid: number): Promise<void> {
  let last = procCpuMs(pid);
  for (let still = 0, k = 0; still < 3 && k < 600; k++) {
    await new Promise((r) => setTimeout(r, 300));
    const now = procCpuMs(pid);
    still = now === last ? still + 1 : 0;
    last = now;
  }
}

/** A build whose hooks are timed: its CLI entry, where its worker listens (by its own rule), and a row suffix. */
interface HookBuild {
  cli: string;
  place: WorkerPlace;
  tag: string;
}

/** The build at `cli` (a dist/cli.js): its worker's place as that build's own code names it. */
async function hookBuild(cli: string, env: NodeJS.ProcessEnv, tag: string): Promise<HookBuild> {
  const client = join(dirname(cli), "src", "integrate", "worker-client.js");
  const own = existsSync(client)
    ? ((await import(pathToFileURL(client).href)) as { workerPlace: typeof workerPlace }).workerPlace
    : workerPlace;
  return { cli, place: own(env, cli), tag };
}

/**
 * Each hook twice: as a new process that does the work itself (the first hook of a session, or no worker), and as a
 * new process that the resident worker answers (every later hook while a session runs). With a second build (a
 * before), its samples alternate with this build's, so both meet the same load.
 */
async function hookRows(
  node: string,
  env: NodeJS.ProcessEnv,
  copy: string,
  prompt: string,
  file: string,
  opts: PerfOptions,
): Promise<PerfRow[]> {
  const runs = opts.runs ?? 8;
  const out = join(opts.workDir, "time.txt");
  const builds = [
    await hookBuild(opts.cli, env, ""),
    ...(opts.beforeCli ? [await hookBuild(opts.beforeCli, env, " [before]")] : []),
  ];
  // The floor is sampled between the hooks too, so on a loaded machine it meets the same load they do.
  const zero: Sample[] = [];
  const floorNow = () => zero.push(timed(node, ["-e", "0"], { env, out }));
  const version = builds.map(() => [] as Sample[]);
  for (let i = 0; i < runs; i++) {
    floorNow();
    for (const [k, b] of builds.entries()) version[k]!.push(timed(node, [b.cli, "--version"], { env, out }));
  }
  const pending: [string, Sample[]][] = builds.map((b, k) => [`memcards --version${b.tag}`, version[k]!]);
  // A build's hooks as its `init --hooks` registers them: dist/hook.js beside the CLI entry, else `cli.js hook`.
  const hookArgs = (cli: string, event: string) => {
    const entry = join(dirname(cli), "hook.js");
    return existsSync(entry) ? [entry, event] : [cli, "hook", event];
  };
  const hook = (cli: string, event: string, input: Record<string, unknown>, direct: boolean) =>
    timed(node, hookArgs(cli, event), {
      env: direct ? { ...env, MEMCARDS_HOOK_WORKER: "0" } : env,
      cwd: copy,
      out,
      input: JSON.stringify({ cwd: copy, session_id: "perf", hook_event_name: event, ...input }),
    });
  const cases: [string, string, Record<string, unknown>][] = [
    ["UserPromptSubmit (card hooks)", "UserPromptSubmit", { prompt }],
    ["SessionStart (startup)", "SessionStart", { source: "startup" }],
    ["PostToolUse (Edit)", "PostToolUse", { tool_name: "Edit", tool_input: { file_path: file } }],
  ];
  const lock = join(copy, ".memcards", "reindex.lock");
  for (const direct of [true, false]) {
    const workers: (number | undefined)[] = [];
    // Started as a session's first hook starts it (naming its folder, so it opens that store), and left to settle:
    // in a session the next hook comes seconds later.
    const started = { ...env, MEMCARDS_HOOK_WORKER_WARM: JSON.stringify({ cwd: copy, flags: {} }) };
    for (const b of builds) workers.push(direct ? undefined : await hookWorker(node, b.cli, started, b.place));
    for (const pid of workers) if (pid !== undefined) await settled(pid);
    for (const [label, event, input] of cases) {
      const samples = builds.map(() => [] as Sample[]);
      for (let i = 0; i < runs; i++) {
        floorNow();
        for (const [k, b] of builds.entries()) {
          // Where the worker answers, a hook's CPU is its own process's plus what the worker spent on it.
          const w0 = procCpuMs(workers[k]);
          const sample = hook(b.cli, event, input, direct);
          const w1 = procCpuMs(workers[k]);
          if (sample.cpu !== null && w0 !== null && w1 !== null) sample.cpu += w1 - w0;
          samples[k]!.push(sample);
          // The re-index a PostToolUse queues runs detached; let it finish so it does not load the next sample.
          for (let n = 0; n < 600 && existsSync(lock); n++) await new Promise((r) => setTimeout(r, 100));
          rmSync(lock, { force: true });
        }
      }
      const how = direct ? "direct, no worker" : "worker answers (CPU: hook + worker)";
      for (const [k, b] of builds.entries()) pending.push([`hook ${label}, ${how}${b.tag}`, samples[k]!]);
    }
  }
  // Removing its token stops a worker within seconds.
  for (const b of builds) rmSync(b.place.token, { force: true });
  const floor = figure(zero);
  return pending.map(([measure, s]) => row(measure, "node -e 0, between these runs", floor, figure(s)));
}

/** Runs the whole measurement; see the module header. */
export async function benchPerf(opts: PerfOptions): Promise<PerfReport> {
  const step = (s: string) => opts.onStep?.(s);
  const on = (g: PerfGroup) => !opts.only || opts.only.length === 0 || opts.only.includes(g);
  const nTasks = opts.tasks ?? 30;
  const runs = opts.runs ?? 8;
  const sizes = opts.units ?? [1000, 10_000];
  const w = opts.workDir;
  const home = join(w, "home");
  mkdirSync(home, { recursive: true });
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOME: home,
    MEMCARDS_HOME: join(home, ".memcards"),
    MEMCARDS_EMBEDDER: opts.config.embedder,
  };
  delete env.MEMCARDS_DB;
  delete env.MEMCARDS_ROOT;
  const node = process.execPath;
  const out = join(w, "time.txt");
  const rows: PerfRow[] = [];

  step("copy");
  const copy = join(w, "tree");
  const scanned = scanRepo(opts.repo).files;
  for (const f of scanned) {
    mkdirSync(join(copy, f.path, ".."), { recursive: true });
    cpSync(f.absPath, join(copy, f.path));
  }
  spawnSync("git", ["init", "-q", copy]);
  const dbPath = join(copy, ".memcards", "memcards.db");

  step("parse floor");
  // The parse floor is an entry of its own beside this module (dist/bench, or dist/chunks in the bundle).
  const parse = timed(node, [siblingWorkerFile(import.meta.url, "parse-floor"), copy], { env, out });
  if (parse.code !== 0) throw new Error(`the parse floor failed (exit ${parse.code})`);
  const symbols = Number(parse.stdout);
  step("full index");
  const full = timed(node, [opts.cli, "index", copy, "--log-level", "error"], { env, cwd: copy, out });
  if (full.code !== 0) throw new Error(`memcards index failed (exit ${full.code})`);
  rows.push(row("full index", "tree-sitter parse of the same files", figure([parse]), figure([full])));
  const storeBytes = ["", "-wal"].reduce((n, s) => n + (existsSync(dbPath + s) ? statSync(dbPath + s).size : 0), 0);

  const nodeZero = Array.from({ length: runs }, () => timed(node, ["-e", "0"], { env, out }));
  const zeroFig = figure(nodeZero);
  if (on("reindex")) {
    step("no-change re-index");
    const again = [0, 1, 2].map(() =>
      timed(node, [opts.cli, "index", copy, "--log-level", "error"], { env, cwd: copy, out }),
    );
    rows.push(row("no-change re-index", "node -e 0", zeroFig, figure(again)));
  }

  step("tasks");
  const ro = new Database(dbPath, { readonly: true });
  const syms = ro
    .prepare("SELECT name, path FROM nodes WHERE type = 'symbol' AND length(name) > 3 ORDER BY id")
    .all() as { name: string; path: string }[];
  const pick = seededRandom(30);
  const tasks = Array.from({ length: nTasks }, (_, i) => {
    const s = syms[Math.floor(pick() * syms.length)] ?? { name: "main", path: "main" };
    return i % 2 ? `fix ${s.name} in ${s.path}` : `${s.name} gives the wrong result for empty input`;
  });
  step("FTS5 floor");
  const fts = ro.prepare(
    "SELECT rowid, bm25(nodes_fts) AS s FROM nodes_fts WHERE nodes_fts MATCH ? ORDER BY s LIMIT 20",
  );
  const ftsSamples = tasks.map((t) => {
    const q = (t.match(/[A-Za-z0-9_]{2,}/g) ?? ["x"]).map((x) => `"${x}"`).join(" OR ");
    const c = process.cpuUsage();
    const s = now();
    fts.all(q);
    const u = process.cpuUsage(c);
    return { wall: now() - s, cpu: (u.user + u.system) / 1000 };
  });
  ro.close();
  const ftsFig = figure(ftsSamples);

  const serveArgs = [opts.cli, "serve", "--root", copy];
  // A server for a project with a store starts the resident hook worker; here it would load the machine while the
  // server's own figures are taken, so the hook rows below start it themselves.
  const serveEnv = { ...env, MEMCARDS_HOOK_WORKER: "0" };
  if (on("serve")) {
    step("serve start-up");
    const floorScript = oneToolServerScript(w);
    const floorReady: Sample[] = [];
    const serveReady: Sample[] = [];
    for (let i = 0; i < Math.min(runs, 5); i++) {
      const f = await connect(node, [floorScript], serveEnv, copy);
      floorReady.push({ wall: f.readyMs, cpu: procCpuMs(f.transport.pid), rss: null, code: 0, stdout: "" });
      await f.client.close();
      const m = await connect(node, serveArgs, serveEnv, copy);
      serveReady.push({ wall: m.readyMs, cpu: procCpuMs(m.transport.pid), rss: null, code: 0, stdout: "" });
      await m.client.close();
    }
    rows.push(
      row("serve: initialize + tools/list", "one-tool server, same SDK", figure(floorReady), figure(serveReady)),
    );
  }

  if (on("cards")) {
    step("get_memory_cards over MCP");
    const m = await connect(node, serveArgs, serveEnv, copy);
    const callCards = async (task: string) => {
      const c0 = procCpuMs(m.transport.pid);
      const t = now();
      const r = await m.client.callTool({ name: "get_memory_cards", arguments: { task } }, undefined, {
        timeout: 120_000,
      });
      const wall = now() - t;
      const c1 = procCpuMs(m.transport.pid);
      if (r.isError) throw new Error(`get_memory_cards failed: ${JSON.stringify(r.content).slice(0, 300)}`);
      return { wall, cpu: c0 === null || c1 === null ? null : c1 - c0 };
    };
    const first = await callCards(tasks[0]!);
    const cardSamples = [];
    for (const t of tasks.slice(1)) cardSamples.push(await callCards(t));
    await m.client.close();
    rows.push(
      row(
        `get_memory_cards over one MCP session (${cardSamples.length} tasks)`,
        "plain FTS5 query on the same store",
        ftsFig,
        figure(cardSamples),
        "server CPU per call from /proc (10 ms ticks)",
      ),
    );
    rows.push(row("get_memory_cards, first call after start", "plain FTS5 query, p50", ftsFig, figure([first])));
    // The server warms the cards path in the background once initialized; its CPU apart from the first call's.
    const w = await connect(node, serveArgs, serveEnv, copy);
    const atReady = procCpuMs(w.transport.pid);
    await settled(w.transport.pid!);
    const warmed = procCpuMs(w.transport.pid);
    const c0 = procCpuMs(w.transport.pid);
    const t0 = now();
    const r = await w.client.callTool({ name: "get_memory_cards", arguments: { task: tasks[0]! } }, undefined, {
      timeout: 120_000,
    });
    const wall = now() - t0;
    const c1 = procCpuMs(w.transport.pid);
    await w.client.close();
    if (r.isError) throw new Error(`get_memory_cards failed: ${JSON.stringify(r.content).slice(0, 300)}`);
    const warmCpu = atReady === null || warmed === null ? null : warmed - atReady;
    rows.push(
      row(
        "get_memory_cards, the server's warm-up after initialize (background, CPU only)",
        "plain FTS5 query, p50",
        ftsFig,
        figure([{ wall: 0, cpu: warmCpu }]),
      ),
      row(
        "get_memory_cards, first call after the warm-up",
        "plain FTS5 query, p50",
        ftsFig,
        figure([{ wall, cpu: c0 === null || c1 === null ? null : c1 - c0 }]),
      ),
    );
  }

  const target = scanned.find((f) => f.language)?.path ?? scanned[0]?.path ?? "x";
  if (on("hooks")) {
    step("hooks");
    rows.push(...(await hookRows(node, env, copy, tasks[1] ?? "fix the bug", join(copy, target), opts)));
  }

  if (on("watcher")) {
    step("watcher");
    rows.push(...(await watcherRows(copy, dbPath, target, opts)));
  }
  if (on("memory")) {
    step("memory writes");
    rows.push(...(await memoryRows(join(w, "mem"), symbolUnits(syms), "", sizes, opts, step)));
  }
  if ((on("memory") || on("memory-transcripts")) && opts.memoryTranscripts) {
    step("memory units of the transcripts");
    const t = transcriptUnits(join(w, "mem-source"), opts.memoryTranscripts, opts);
    rows.push(...(await memoryRows(join(w, "mem-t"), t.unit, ", transcript vocabulary", sizes, opts, step, t.about)));
  }

  return {
    repo: opts.repo,
    files: scanned.length,
    symbols,
    storeMb: round(storeBytes / 1e6, 1),
    embedder: opts.config.embedder,
    rows,
  };
}

/** Edit → symbol in the store through the watcher, first edit and later ones, beside the file-system event. */
async function watcherRows(copy: string, dbPath: string, target: string, opts: PerfOptions): Promise<PerfRow[]> {
  const file = join(copy, target);
  const fsSamples: { wall: number }[] = [];
  for (let i = 0; i < 5; i++) {
    await new Promise<void>((resolve) => {
      const t = now();
      const watcher = fsWatch(file, () => {
        watcher.close();
        fsSamples.push({ wall: now() - t });
        resolve();
      });
      appendFileSync(file, `\n# fs event ${i}\n`);
    });
  }
  const config: Config = { ...opts.config, root: copy, db: dbPath };
  const location = resolveProjectRoot({ explicit: copy, cwd: copy, userDir: config.userDir });
  const app = createApp(config, location, opts.logger);
  // CPU of this process over each edit: the file-system watcher here and the graph worker's build.
  const samples: { wall: number; cpu: number }[] = [];
  let first: { wall: number; cpu: number } | null = null;
  try {
    let indexed: (() => void) | undefined;
    const watcher = app.graph.watch({ debounceMs: 50, onIndexed: () => indexed?.() });
    await watcher.ready;
    if (watcher.active) {
      for (let i = 0; i < 6; i++) {
        const done = new Promise<void>((r) => (indexed = r));
        const t = now();
        const c0 = process.cpuUsage();
        appendFileSync(file, `\ndef memcards_perf_edit_${i}():\n    return ${i}\n`);
        const r = await Promise.race([done, new Promise<"timeout">((r) => setTimeout(() => r("timeout"), 30_000))]);
        if (r === "timeout") break;
        const c = process.cpuUsage(c0);
        const s = { wall: now() - t, cpu: (c.user + c.system) / 1000 };
        if (i === 0) first = s;
        else samples.push(s);
        await new Promise((r) => setTimeout(r, 200));
      }
    }
    await watcher.close();
  } finally {
    await app.close();
  }
  const fsFig = figure(fsSamples);
  const none: Figure = { p50: 0, p95: 0, cpu: null, rss: null, n: 0 };
  return [
    row("watcher: edit → symbol in the store", "file-system event", fsFig, samples.length ? figure(samples) : none),
    row("watcher: first edit after start", "file-system event", fsFig, first ? figure([first]) : none),
  ];
}

type UnitOf = (i: number) => { category: CategoryName; text: string; files: string[] };

/** Units whose words all come from the repository's symbol names and paths: nearly every word is common. */
function symbolUnits(syms: readonly { name: string; path: string }[]): UnitOf {
  const pick = seededRandom(7);
  const word = () => syms[Math.floor(pick() * syms.length)]?.name ?? `w${Math.floor(pick() * 1e6)}`;
  const file = () => syms[Math.floor(pick() * syms.length)]?.path ?? "x";
  const categories = ["learning", "commitment", "failure", "reasoning", "learning", "commitment"] as const;
  return (i: number) => {
    const category = categories[i % categories.length]!;
    const text =
      category === "commitment"
        ? `${i % 4 ? "always" : "never"} call ${word()} before ${word()} in ${file()} (${i})`
        : `${word()} in ${file()} depends on ${word()} and ${word()}; ${word()} breaks when ${word()} is empty (${i})`;
    return { category, text, files: [file()] };
  };
}

/** The share of a drawn unit's words replaced by words of other units. */
const VARIED_WORDS = 0.3;

/**
 * Units drawn from what the transcripts in `dir` distil into (through the real compression and distillation, into
 * a scratch store), each written again with VARIED_WORDS of its words replaced by words drawn from all the units'
 * text (so as often as real units use them): names, paths and prose as sessions have them.
 */
function transcriptUnits(root: string, dir: string, opts: PerfOptions): { unit: UnitOf; about: string } {
  mkdirSync(root, { recursive: true });
  const config: Config = { ...opts.config, root, db: join(root, "source.db") };
  const app = createApp(
    config,
    resolveProjectRoot({ explicit: root, cwd: root, userDir: config.userDir }),
    opts.logger,
  );
  let source: { category: CategoryName; text: string; files: string[] }[];
  let distilled = 0;
  try {
    for (const f of readdirSync(dir).sort()) {
      if (!/\.(md|jsonl|json|traj)$/.test(f)) continue;
      try {
        compressContext(app.scope, { transcriptPath: join(dir, f), keepRecent: 0 });
        distilled++;
      } catch (e) {
        opts.logger.warn(`perf: ${f} was not distilled: ${(e as Error).message}`);
      }
    }
    source = listMemories(app.db, app.project.id, { includeInactive: true, limit: 1_000_000 }).map((m) => ({
      category: CategoryName.parse(m.category),
      text: m.text,
      files: m.files,
    }));
  } finally {
    void app.close();
  }
  if (!source.length) throw new Error(`no memory unit was distilled from the transcripts in ${dir}`);
  const words = source.flatMap((u) => u.text.split(/\s+/).filter((x) => /^[\p{L}_][\p{L}\p{N}_./-]{2,}$/u.test(x)));
  const pick = seededRandom(11);
  const about = `units drawn from ${source.length} distilled from ${distilled} transcripts`;
  const unit = () => {
    const u = source[Math.floor(pick() * source.length)]!;
    const text = u.text
      .split(/(\s+)/)
      .map((x) => (/^\S{3,}$/.test(x) && pick() < VARIED_WORDS ? words[Math.floor(pick() * words.length)]! : x))
      .join("");
    return { category: u.category, text: text.slice(0, 4000), files: u.files.slice(0, 20) };
  };
  return { unit, about };
}

/** Untimed units written per transaction while a memory store is filled to the next size measured. */
const FILL_BATCH = 500;

/**
 * Per-unit write cost near each store size, beside plain SQLite + FTS5 inserts of the same texts; recall there, and
 * the viewer's Memory page beside its Graph page. Every unit goes through the real write path (record_memory);
 * the last 500 before each size are timed, each its own transaction as a tool call writes it. `label` follows the
 * measure's size in each row.
 */
async function memoryRows(
  root: string,
  unit: UnitOf,
  label: string,
  sizes: readonly number[],
  opts: PerfOptions,
  step: (s: string) => void,
  about = "",
): Promise<PerfRow[]> {
  mkdirSync(root, { recursive: true });
  const config: Config = { ...opts.config, root, db: join(root, "mem.db") };
  const location = resolveProjectRoot({ explicit: root, cwd: root, userDir: config.userDir });
  const app = createApp(config, location, opts.logger);
  const floorDb = new Database(join(root, "floor.db"));
  floorDb.pragma("journal_mode = WAL");
  floorDb.pragma("synchronous = NORMAL");
  floorDb.exec(
    "CREATE TABLE m (id INTEGER PRIMARY KEY, category TEXT, text TEXT, files TEXT); CREATE VIRTUAL TABLE m_fts USING fts5(text);",
  );
  const floorIns = floorDb.prepare("INSERT INTO m (category, text, files) VALUES (?, ?, ?)");
  const floorFts = floorDb.prepare("INSERT INTO m_fts (rowid, text) VALUES (?, ?)");
  const window = 500;
  const rows: PerfRow[] = [];
  let n = 0;

  const stored = () => memoryCounts(app.db, app.project.id).reduce((k, r) => k + r.n, 0);
  const cpu = () => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  };
  const writeOne = (i: number, measured: { mc: number[]; fl: number[] } | null) => {
    const u = unit(i);
    let c = cpu();
    recordMemory(app.scope, u);
    if (measured) measured.mc.push(cpu() - c);
    c = cpu();
    const id = floorIns.run(u.category, u.text, JSON.stringify(u.files)).lastInsertRowid;
    floorFts.run(id, u.text);
    if (measured) measured.fl.push(cpu() - c);
  };
  try {
    for (const size of sizes) {
      step(`memory writes to ${size} units`);
      // The units before the timed ones go through the same write path, FILL_BATCH to a transaction (each write a
      // savepoint in it): the same rows, without a commit and a new full-text segment per unit.
      while (n < size - window) {
        const end = Math.min(size - window, n + FILL_BATCH);
        app.db
          .transaction(() => {
            while (n < end) writeOne(n++, null);
          })
          .immediate();
      }
      const measured = { mc: [] as number[], fl: [] as number[] };
      const t0 = now();
      while (n < size) writeOne(n++, measured);
      const wall = now() - t0;
      const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
      const mcFig: Figure = {
        p50: round(percentile(measured.mc, 0.5), 3),
        p95: round(percentile(measured.mc, 0.95), 3),
        cpu: round(mean(measured.mc), 3),
        rss: null,
        n: measured.mc.length,
      };
      const flFig: Figure = {
        p50: round(percentile(measured.fl, 0.5), 3),
        p95: round(percentile(measured.fl, 0.95), 3),
        cpu: round(mean(measured.fl), 3),
        rss: null,
        n: measured.fl.length,
      };
      rows.push(
        row(
          `memory write per unit at ${size} units${label} (CPU ms)`,
          "plain SQLite + FTS5 insert",
          flFig,
          mcFig,
          `last ${window} units; ${round(wall / window, 2)} ms wall per unit for both; ${stored()} units in the store${about ? `; ${about}` : ""}`,
        ),
      );
      step(`recall at ${size} units`);
      const rs = Array.from({ length: 20 }, () => {
        const c = cpu();
        const t = now();
        recall(app.scope, { budgetTokens: 1500 });
        return { wall: now() - t, cpu: cpu() - c };
      });
      rows.push(row(`recall, 1,500-token budget, at ${size} units${label}`, "—", null, figure(rs)));
      step(`viewer pages at ${size} units`);
      // The viewer on the same store, over loopback as a browser reaches it (started for each size: an idle
      // keep-alive connection would be closed while the next size is written); its start URL's token is the cookie.
      const ui = await startUi(app);
      const start = await fetch(ui.url, { redirect: "manual" });
      const cookie = (start.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
      const page = async (path: string) => {
        const c = cpu();
        const t = now();
        const r = await fetch(`${ui.origin}${path}`, { headers: { cookie }, redirect: "manual" });
        const body = await r.text();
        if (r.status !== 200 || !body.includes("<h1>")) throw new Error(`viewer ${path} answered ${r.status}`);
        const link = /<a href="(\/memory\?[^"]*)">older/.exec(body)?.[1]?.replace(/&amp;/g, "&");
        return { wall: now() - t, cpu: cpu() - c, ...(link ? { older: link } : {}) };
      };
      const viewer: { wall: number; cpu: number }[][] = [[], [], []];
      // The deeper pages are reached as a person reaches them: following each page's "older" link.
      let older = "/memory?category=learning";
      try {
        for (let i = 0; i < 20; i++) {
          viewer[0]!.push(await page("/graph"));
          viewer[1]!.push(await page("/memory"));
          const deep = await page(older);
          viewer[2]!.push(deep);
          if (deep.older) older = deep.older;
        }
      } finally {
        await ui.close();
      }
      const graphFig = figure(viewer[0]!);
      rows.push(row(`viewer Memory page at ${size} units${label}`, "viewer Graph page", graphFig, figure(viewer[1]!)));
      rows.push(
        row(
          `viewer Memory page, one category, pages 1–20 by the older link, at ${size} units${label}`,
          "viewer Graph page",
          graphFig,
          figure(viewer[2]!),
        ),
      );
    }
  } finally {
    floorDb.close();
    void app.close();
  }
  return rows;
}

const fmt = (x: number | null, unit = "ms") =>
  x === null ? "n/a" : x >= 1000 && unit === "ms" ? `${round(x / 1000, 2)} s` : `${x} ${unit}`;
const x = (r: number | null) => (r === null ? "—" : `${r}x`);

export function renderPerf(r: PerfReport): string {
  const lines = [
    `repository: ${r.repo} — ${r.files} files, ${r.symbols} symbols; store ${r.storeMb} MB; embedder ${r.embedder}`,
    "",
    "| measure | floor, same run | floor p50 / p95 / CPU | memcards p50 / p95 / CPU / peak RSS | ratio p50 / p95 / CPU |",
    "|---|---|---|---|---|",
  ];
  for (const row of r.rows) {
    const f = row.floorFig;
    const g = row.fig;
    lines.push(
      `| ${row.measure} | ${row.floor} | ${f ? `${fmt(f.p50)} / ${fmt(f.p95)} / ${fmt(f.cpu)}` : "—"} | ${fmt(g.p50)} / ${fmt(g.p95)} / ${fmt(g.cpu)} / ${fmt(g.rss, "MB")} | ${x(row.ratio.p50)} / ${x(row.ratio.p95)} / ${x(row.ratio.cpu)} |`,
    );
  }
  const notes = r.rows.filter((row) => row.note).map((row) => `- ${row.measure}: ${row.note}`);
  return [...lines, ...(notes.length ? ["", ...notes] : [])].join("\n");
}
