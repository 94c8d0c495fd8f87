#!/usr/bin/env node
// memcards CLI: parses argv, calls the same functions the MCP tools call, prints. Nothing else.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve as resolvePath } from "node:path";
import { createInterface } from "node:readline/promises";
import { fileURLToPath } from "node:url";

import { Command, Option } from "commander";

import { createApp } from "./app.js";
import { cardsDeps } from "./cards/deps.js";
import { getMemoryCards, recordOutcome, renderCards } from "./cards/service.js";
import type { Config, ConfigFlags } from "./config.js";
import { resolveConfig } from "./config.js";
import { renderChecks, runDoctor } from "./doctor.js";
import { pullModel } from "./embeddings/pull.js";
import { reembed } from "./embeddings/reembed.js";
import { DEFAULT_MODEL } from "./embeddings/transformers.js";
import { AppError, toAppError } from "./errors.js";
import { renderCardsEval, runCardsEval } from "./eval/cards.js";
import { fiveSystemsSvg, renderFiveSystems, runFiveSystems } from "./eval/compress/five.js";
import { evalCompress, renderCompressEval } from "./eval/compress/probes-committed.js";
import { benchCompress, renderCompressBench } from "./eval/compress-bench.js";
import { benchHooks, renderHookBench } from "./eval/hook-bench.js";
import { benchIndex, renderIndexBench } from "./eval/index-bench.js";
import { loadTasks, renderLocalize, runLocalize } from "./eval/localize.js";
import { auditRankingCode, formatAuditProblems, RANKING_DIRS } from "./eval/localize/audit.js";
import { renderRecallEval, runRecallEval } from "./eval/recall.js";
import { evalSegment, renderSegmentEval } from "./eval/segment.js";
import { assertIndexed } from "./graph/build.js";
import { buildGraph } from "./graph/job.js";
import { neighbourhood } from "./graph/neighbors.js";
import { renderBuild, renderNeighbourhood } from "./graph/render.js";
import { watchUntilSignal } from "./graph/watch.js";
import { ClientId, CLIENTS } from "./integrate/clients.js";
import { hookCommand } from "./integrate/hook-command.js";
import { applyChange, planHooks, planRegistration } from "./integrate/init.js";
import type { LogLevel } from "./log.js";
import { createLogger } from "./log.js";
import { auditMemory, exportMemory, importMemory, renderAudit, setPaused } from "./memory/admin.js";
import { forget, recall, type RecordInput, recordMemory, searchMemory } from "./memory/service.js";
import { bar, createProgressLine } from "./progress.js";
import { resolveProjectRoot } from "./project/root.js";
import { Rung, RUNGS } from "./retrieval/rank.js";
import { getStatus, renderStatus } from "./status.js";
import { servedCard } from "./storage/cards.js";
import { graphCounts } from "./storage/graph/counts.js";
import { listMemories } from "./storage/memories.js";
import { compressContext } from "./transcript/compress.js";
import { renderCompressFooter, renderStoredSummary } from "./transcript/report.js";
import { getSummary } from "./transcript/summaries.js";
import { packageVersion } from "./version.js";

const version = packageVersion();
const exampleConfigPath = join(dirname(fileURLToPath(import.meta.url)), "..", "mcp.json.example");

interface GlobalOpts {
  root?: string;
  db?: string;
  logLevel?: string;
  embedder?: string;
}

function configFrom(cmd: Command, extra: ConfigFlags = {}): Config {
  const g = cmd.optsWithGlobals<GlobalOpts>();
  return resolveConfig({ root: g.root, db: g.db, logLevel: g.logLevel, embedder: g.embedder, ...extra });
}

function openApp(config: Config) {
  const logger = createLogger(config.logLevel as LogLevel);
  const location = resolveProjectRoot({ explicit: config.root, cwd: process.cwd(), userDir: config.userDir });
  const app = createApp(config, location, logger);
  if (app.embedding.note) logger.warn(app.embedding.note);
  return app;
}

/** Reads stdin to the end, or gives up after `ms` (a hook must never hang on an open pipe). */
function readStdin(ms: number): Promise<string> {
  if (process.stdin.isTTY) return Promise.resolve("");
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const done = () => resolve(Buffer.concat(chunks).toString("utf8"));
    const timer = setTimeout(() => {
      process.stdin.pause();
      done();
    }, ms);
    process.stdin.on("data", (c: Buffer) => chunks.push(c));
    process.stdin.on("end", () => {
      clearTimeout(timer);
      done();
    });
    process.stdin.on("error", () => {
      clearTimeout(timer);
      done();
    });
  });
}

/** Opens the project's app for one command and always closes it. */
async function withApp(cmd: Command, fn: (app: ReturnType<typeof openApp>) => Promise<void> | void): Promise<void> {
  const app = openApp(configFrom(cmd));
  try {
    await fn(app);
  } finally {
    await app.close();
  }
}

function print(json: boolean, data: unknown, text: string): void {
  console.log(json ? JSON.stringify(data, null, 2) : text);
}

const program = new Command()
  .name("memcards")
  .description("Local context layer for coding agents, served over MCP.")
  .version(version)
  .option("--root <dir>", "project root (default: the client's MCP roots, else the git top level, else ~/.memcards)")
  .option("--db <file>", "database file (default: <root>/.memcards/memcards.db)")
  .option("--embedder <id>", "auto | offline | a model id such as " + DEFAULT_MODEL)
  .addOption(
    new Option("--log-level <level>", "stderr log level").choices(["debug", "info", "warn", "error", "silent"]),
  )
  .showHelpAfterError()
  .configureOutput({ writeOut: (s) => process.stdout.write(s), writeErr: (s) => process.stderr.write(s) });

program
  .command("serve")
  .description("run the MCP server (stdio by default; --http for Streamable HTTP on 127.0.0.1)")
  .option("--http", "serve Streamable HTTP instead of stdio")
  .option("--port <n>", "HTTP port (default 7331; 0 picks a free one)")
  .option("--host <host>", "HTTP bind address (default 127.0.0.1)")
  .option("--token <token>", "require Authorization: Bearer <token> over HTTP")
  .option("--idle-timeout <seconds>", "close an HTTP session after this long without a request (default 1800)")
  .option("--max-sessions <n>", "open HTTP sessions at most (default 256)")
  .action(
    async (
      opts: {
        http?: boolean;
        port?: string;
        host?: string;
        token?: string;
        idleTimeout?: string;
        maxSessions?: string;
      },
      cmd: Command,
    ) => {
      const config = configFrom(cmd, {
        port: opts.port,
        host: opts.host,
        token: opts.token,
        idleTimeout: opts.idleTimeout,
        maxSessions: opts.maxSessions,
      });
      const logger = createLogger(config.logLevel as LogLevel);
      // The MCP SDK loads only for the server: every other command (and each hook) starts faster without it.
      const { serve } = await import("./serve.js");
      await serve({ config, logger, version, cwd: process.cwd(), http: opts.http ?? false, exampleConfigPath });
      process.exit(0);
    },
  );

program
  .command("status")
  .description("show the project root, database, row counts and active embedder")
  .option("--json", "print JSON")
  .action(async (opts: { json?: boolean }, cmd: Command) => {
    await withApp(cmd, async (app) => {
      const status = getStatus(app, version);
      print(opts.json ?? false, status, renderStatus(status));
    });
  });

program
  .command("doctor")
  .description("check Node, native modules, FTS5, sqlite-vec, the embedder, the store's health and write access")
  .option("--json", "print JSON")
  .option("--fix", "move a corrupt store aside (renamed to <file>.corrupt-<time>, never deleted) so a fresh one starts")
  .action(async (opts: { json?: boolean; fix?: boolean }, cmd: Command) => {
    const checks = await runDoctor(configFrom(cmd), process.cwd(), { fix: opts.fix ?? false });
    print(opts.json ?? false, checks, renderChecks(checks));
    if (checks.some((c) => c.level === "fail")) process.exitCode = 1;
  });

program
  .command("index [path]")
  .description("build or refresh the context graph of the project at path (default: the resolved root); incremental")
  .option("--json", "print JSON")
  .option("--lexical-only", "skip vectors (the lexical index and graph only)")
  .option("--watch", "keep the graph fresh as files change, until Ctrl-C")
  .addOption(
    new Option("--release-lock <file>", "remove this lock file when done (used by the PostToolUse hook)").hideHelp(),
  )
  .action(
    async (
      path: string | undefined,
      opts: { json?: boolean; lexicalOnly?: boolean; watch?: boolean; releaseLock?: string },
      cmd: Command,
    ) => {
      const app = openApp(configFrom(cmd, path ? { root: resolvePath(path) } : {}));
      if (opts.releaseLock) app.onClose(() => rmSync(opts.releaseLock!, { force: true }));
      try {
        const line = createProgressLine(!opts.json || process.stderr.isTTY);
        const result = await buildGraph(app, {
          lexicalOnly: opts.lexicalOnly ?? false,
          onProgress: (p) => {
            const secs = (p.elapsedMs / 1000).toFixed(1);
            if (p.phase === "parse") {
              const rate = p.elapsedMs > 0 ? Math.round((p.done / p.elapsedMs) * 1000) : 0;
              line.update(
                `${bar(p.done, p.total)} ${p.done}/${p.total} files, ${p.symbols} symbols, ${rate} files/s, ${secs}s`,
                p.phase,
              );
            } else if (p.phase === "embed") line.update(`vectors: ${p.done} embedded, ${secs}s`, p.phase);
            else line.update(`${p.phase}… ${secs}s`, p.phase);
          },
        });
        line.done();
        print(opts.json ?? false, result, renderBuild(result));
        if (opts.watch) await watchUntilSignal(app);
      } finally {
        await app.close();
      }
    },
  );

program
  .command("compress [transcript]")
  .description(
    "compress a conversation transcript into an anchored summary (default: the newest Claude Code transcript of the project)",
  )
  .option("--session <id>", "session to merge into (default: the transcript's own id)")
  .option("--budget <tokens>", "target summary size in tokens", (v) => Number.parseInt(v, 10))
  .option("--focus <text>", "what to keep first, like /compact <focus>")
  .option("--keep <n>", "recent messages kept verbatim", (v) => Number.parseInt(v, 10), 5)
  .option("--json", "print {summary: {markdown, sections}, stats}")
  .action(
    async (
      transcript: string | undefined,
      opts: { session?: string; budget?: number; focus?: string; keep: number; json?: boolean },
      cmd: Command,
    ) => {
      await withApp(cmd, async (app) => {
        const r = compressContext(
          { db: app.db, projectId: app.project.id, root: app.location.root },
          {
            ...(transcript ? { transcript_path: resolvePath(transcript) } : {}),
            ...(opts.session ? { session_id: opts.session } : {}),
            ...(opts.budget !== undefined ? { budget_tokens: opts.budget } : {}),
            ...(opts.focus ? { focus: opts.focus } : {}),
            keep_recent: opts.keep,
          },
        );
        print(
          opts.json ?? false,
          { session_id: r.session_id, source: r.source, summary: r.summary, stats: r.stats, notes: r.notes },
          `${r.markdown}\n\n${renderCompressFooter(r)}`,
        );
      });
    },
  );

program
  .command("distill [transcript]")
  .description(
    "distil a transcript into typed memory units (it is compressed too, so the next compression merges); what the SessionEnd hook runs",
  )
  .option("--session <id>", "session to merge into (default: the transcript's own id)")
  .option("--json", "print {session_id, memories, stats}")
  .action(async (transcript: string | undefined, opts: { session?: string; json?: boolean }, cmd: Command) => {
    await withApp(cmd, async (app) => {
      const r = compressContext(
        { db: app.db, projectId: app.project.id, root: app.location.root },
        {
          ...(transcript ? { transcript_path: resolvePath(transcript) } : {}),
          ...(opts.session ? { session_id: opts.session } : {}),
          // The session has ended: nothing is kept back as recent messages.
          keep_recent: 0,
        },
      );
      const m = r.memories;
      const text = m
        ? `Distilled ${r.stats.turns_summarized} turn(s) of session ${r.session_id}: ${m.added} new unit(s) (${m.warm} warm, ${m.cold} cold), ${m.merged} merged, ${m.superseded} superseded, ${m.conflicts} conflict(s); ${m.archived} turn(s) archived.`
        : `Nothing distilled for session ${r.session_id}: ${r.notes.join(" ") || "no new turns."}`;
      print(opts.json ?? false, { session_id: r.session_id, memories: m ?? null, stats: r.stats }, text);
    });
  });

program
  .command("cards <task>")
  .description("decision-aware memory cards for a task (indexes the project first if it has no graph)")
  .option("--repo <path>", "project root (default: the resolved root)")
  .option("--budget <tokens>", "token budget", (v) => Number.parseInt(v, 10), 1200)
  .addOption(
    new Option("--mode <mode>", "packing mode").choices(["post_selection", "pre_budget"]).default("post_selection"),
  )
  .option("--file <paths...>", "files you are looking at")
  .option("--session <id>", "include this session's constraints and failures")
  .option("--json", "print JSON (cards, both modes' selections, audit, ranking)")
  .action(
    async (
      task: string,
      opts: {
        repo?: string;
        budget: number;
        mode: "post_selection" | "pre_budget";
        file?: string[];
        session?: string;
        json?: boolean;
      },
      cmd: Command,
    ) => {
      const app = openApp(configFrom(cmd, opts.repo ? { root: resolvePath(opts.repo) } : {}));
      try {
        if (graphCounts(app.db).files === 0) {
          const line = createProgressLine(true);
          await buildGraph(app, {
            onProgress: (p) => line.update(`indexing ${app.location.root}: ${p.phase} ${p.done}/${p.total}`),
          });
          line.done();
        }
        const r = await getMemoryCards(cardsDeps(app), {
          task,
          budget_tokens: opts.budget,
          mode: opts.mode,
          ...(opts.file ? { files: opts.file } : {}),
          ...(opts.session ? { session_id: opts.session } : {}),
        });
        print(opts.json ?? false, r, renderCards(r));
      } finally {
        await app.close();
      }
    },
  );

program
  .command("outcome")
  .description("report which served cards helped and which files were finally edited")
  .option("--helped <ids...>", "card ids that helped")
  .option("--not-helpful <ids...>", "card ids that did not")
  .option("--edited <paths...>", "files finally edited")
  .action(async (opts: { helped?: string[]; notHelpful?: string[]; edited?: string[] }, cmd: Command) => {
    await withApp(cmd, async (app) => {
      const r = recordOutcome(
        {
          db: app.db,
          projectId: app.project.id,
          unitKeyOfCard: (id) => servedCard(app.db, app.project.id, id)?.unit_key,
        },
        { helped: opts.helped ?? [], not_helpful: opts.notHelpful ?? [], edited_files: opts.edited ?? [] },
      );
      console.log(
        `recorded ${r.recorded} outcome(s)${r.unknown.length ? `; unknown ids: ${r.unknown.join(", ")}` : ""}`,
      );
    });
  });

program
  .command("init [client]")
  .description("register memcards with an MCP client: claude-code (default), claude-desktop, cursor, vscode")
  .option("--print", "only show the change")
  .option("--yes", "write without asking")
  .option("--remove", "take memcards out again (other entries are kept)")
  .option("--hooks", "also add the Claude Code hooks to .claude/settings.json")
  .option("--card-hooks", "with --hooks: also inject cards before each prompt and each edit (off by default)")
  .action(
    async (
      client: string | undefined,
      opts: { print?: boolean; yes?: boolean; remove?: boolean; hooks?: boolean; cardHooks?: boolean },
      cmd: Command,
    ) => {
      const config = configFrom(cmd);
      const location = resolveProjectRoot({ explicit: config.root, cwd: process.cwd(), userDir: config.userDir });
      const id = ClientId.safeParse(client ?? "claude-code");
      if (!id.success)
        throw new AppError("BAD_INPUT", `unknown client ${client}; choose one of ${ClientId.options.join(", ")}`);
      const cli = fileURLToPath(import.meta.url);
      const changes = [planRegistration(id.data, { root: location.root, cli, remove: opts.remove ?? false })];
      if (opts.hooks) {
        changes.push(
          planHooks({ root: location.root, cli, remove: opts.remove ?? false, cards: opts.cardHooks ?? false }),
        );
      }
      for (const c of changes) {
        console.log(`${c.changed ? (c.before === undefined ? "create" : "update") : "unchanged"}: ${c.path}`);
        if (c.changed) console.log(c.after);
      }
      const pending = changes.filter((c) => c.changed);
      if (opts.print || pending.length === 0) return;
      let go = opts.yes ?? false;
      if (!go && process.stdin.isTTY) {
        const rl = createInterface({ input: process.stdin, output: process.stderr });
        go = /^y(es)?$/i.test((await rl.question("Write these files? [y/N] ")).trim());
        rl.close();
      }
      if (!go) {
        console.log("nothing written; run again with --yes to write");
        return;
      }
      for (const c of pending) applyChange(c);
      console.log(
        `written. ${opts.remove ? "memcards is no longer registered" : `restart ${CLIENTS[id.data].title} to pick memcards up`}.`,
      );
    },
  );

program
  .command("hook <event>")
  .description(
    "run a Claude Code hook (PreCompact, SessionStart, SessionEnd, PostToolUse) with its JSON on stdin; always exits 0",
  )
  .action(async (event: string, _opts: unknown, cmd: Command) => {
    const g = cmd.optsWithGlobals<GlobalOpts>();
    const out = await hookCommand(event, await readStdin(3000), {
      flags: { root: g.root, db: g.db, embedder: g.embedder },
      env: process.env,
      cwd: process.cwd(),
      cli: fileURLToPath(import.meta.url),
    });
    if (out) process.stdout.write(`${out}\n`);
    process.exitCode = 0;
  });

program
  .command("log")
  .description("what memcards' hooks did: summaries stored, context injected into which session, re-indexing")
  .option("--lines <n>", "last n lines", (v) => Number.parseInt(v, 10), 40)
  .action(async (opts: { lines: number }, cmd: Command) => {
    await withApp(cmd, async (app) => {
      const file = join(dirname(app.dbPath), "hooks.log");
      if (!existsSync(file)) {
        console.log(`no hook activity recorded yet (${file})`);
        return;
      }
      console.log(readFileSync(file, "utf8").trimEnd().split("\n").slice(-opts.lines).join("\n"));
    });
  });

program
  .command("memories")
  .description(
    "list the project's memory units (warm by default): commitments, failures, metrics, learnings, preferences, decisions",
  )
  .option("--category <c>", "commitment | performance | learning | failure | preference | reasoning")
  .option("--tier <t>", "warm | cold (default: warm)", "warm")
  .option("--all", "include superseded units and units in conflict")
  .option("--limit <n>", "at most n units", (v) => Number.parseInt(v, 10), 50)
  .option("--json", "print JSON")
  .action(
    async (opts: { category?: string; tier: string; all?: boolean; limit: number; json?: boolean }, cmd: Command) => {
      await withApp(cmd, async (app) => {
        const rows = listMemories(app.db, app.project.id, {
          ...(opts.category ? { category: opts.category } : {}),
          tier: opts.tier,
          includeInactive: opts.all ?? false,
          limit: opts.limit,
        });
        const text = rows.length
          ? rows
              .map(
                (m) =>
                  `#${m.id} ${m.category} [${m.tier}${m.status !== "active" ? `, ${m.status}` : ""}] ${m.text.replace(/\s+/g, " ").slice(0, 160)}`,
              )
              .join("\n")
          : "no memory units yet: they are distilled on each compression (compress_context, memcards compress, the hooks)";
        print(opts.json ?? false, rows, text);
      });
    },
  );

program
  .command("remember <category> <text>")
  .description(
    "store a memory unit: commitment, performance (`name: value unit`), learning, failure, preference, decision or rule",
  )
  .option("--file <paths...>", "files it concerns")
  .action(async (category: string, text: string, opts: { file?: string[] }, cmd: Command) => {
    await withApp(cmd, async (app) => {
      const r = recordMemory(
        { db: app.db, projectId: app.project.id, root: app.location.root },
        { category: category as RecordInput["category"], text, ...(opts.file ? { files: opts.file } : {}) },
      );
      console.log(`${r.outcome}${r.id !== undefined ? ` (#${r.id})` : ""}`);
    });
  });

program
  .command("search <query>")
  .description("search memory units (and with --raw the archive of past turns)")
  .option("--raw", "also the raw turn archive")
  .option("--all", "include superseded units and units in conflict")
  .option("--json", "print JSON")
  .action(async (query: string, opts: { raw?: boolean; all?: boolean; json?: boolean }, cmd: Command) => {
    await withApp(cmd, async (app) => {
      const r = searchMemory(
        { db: app.db, projectId: app.project.id, root: app.location.root },
        { query, include_raw: opts.raw ?? false, include_inactive: opts.all ?? false },
      );
      const text = [
        ...r.hits.map(
          (h) =>
            `#${h.id} [${h.category}, ${h.tier}${h.status !== "active" ? `, ${h.status}` : ""}] ${h.text.replace(/\s+/g, " ").slice(0, 200)}`,
        ),
        ...r.raw.map((x) => `raw ${x.session_id} ${x.turn_id} ${x.role}: ${x.text.replace(/\s+/g, " ").slice(0, 200)}`),
      ].join("\n");
      print(opts.json ?? false, r, text || "no match");
    });
  });

program
  .command("recall")
  .description("what this project's memory says the work at hand needs (the SessionStart brief)")
  .option("--budget <tokens>", "token budget", (v) => Number.parseInt(v, 10), 1500)
  .action(async (opts: { budget: number }, cmd: Command) => {
    await withApp(cmd, async (app) => {
      console.log(
        recall({ db: app.db, projectId: app.project.id, root: app.location.root }, { budget_tokens: opts.budget })
          .markdown,
      );
    });
  });

program
  .command("forget")
  .description("delete memory for real: --id N, --session ID, --file PATH or --all")
  .option("--id <n>", "one unit", (v) => Number.parseInt(v, 10))
  .option("--session <id>", "a session's units, raw turns and summaries")
  .option("--file <path>", "units citing this file")
  .option("--all", "everything memcards remembers for this project")
  .action(async (opts: { id?: number; session?: string; file?: string; all?: boolean }, cmd: Command) => {
    await withApp(cmd, async (app) => {
      const r = forget(
        { db: app.db, projectId: app.project.id, root: app.location.root },
        {
          ...(opts.id !== undefined ? { id: opts.id } : {}),
          ...(opts.session ? { session_id: opts.session } : {}),
          ...(opts.file ? { file: opts.file } : {}),
          all: opts.all ?? false,
        },
      );
      console.log(`forgot ${r.memories} memory unit(s), ${r.rawTurns} archived turn(s), ${r.summaries} summary(ies)`);
    });
  });

program
  .command("pause")
  .description("stop storing anything from conversations for this project (summaries, memory units, raw turns)")
  .action(async (_o: unknown, cmd: Command) => {
    await withApp(cmd, async (app) => {
      setPaused(app.db, app.project.id, true);
      console.log(`memory paused for ${app.location.root}; memcards resume to undo`);
    });
  });

program
  .command("resume")
  .description("store conversations' summaries and memory units again")
  .action(async (_o: unknown, cmd: Command) => {
    await withApp(cmd, async (app) => {
      setPaused(app.db, app.project.id, false);
      console.log(`memory resumed for ${app.location.root}`);
    });
  });

program
  .command("audit")
  .description(
    "memory hygiene: duplicates, stale units (cited code changed), superseded units, conflicts, units without evidence",
  )
  .option("--json", "print JSON")
  .action(async (opts: { json?: boolean }, cmd: Command) => {
    await withApp(cmd, async (app) => {
      const a = auditMemory(app.db, app.project.id);
      print(opts.json ?? false, a, renderAudit(a));
    });
  });

program
  .command("export")
  .description("write the project's memory units as JSONL (to stdout, or --out FILE)")
  .option("--out <file>", "write here instead of stdout")
  .option("--all", "include superseded units and units in conflict")
  .action(async (opts: { out?: string; all?: boolean }, cmd: Command) => {
    await withApp(cmd, async (app) => {
      const text = exportMemory(app.db, app.project.id, opts.all ?? false);
      if (opts.out) writeFileSync(opts.out, text ? `${text}\n` : "");
      else if (text) console.log(text);
    });
  });

program
  .command("import <file>")
  .description("read memory units from a JSONL export (duplicates merge; bad lines are counted)")
  .action(async (file: string, _o: unknown, cmd: Command) => {
    await withApp(cmd, async (app) => {
      const r = importMemory(app.db, app.project.id, resolvePath(file));
      console.log(`imported ${r.imported}, merged ${r.merged}, skipped ${r.skipped} line(s)`);
    });
  });

program
  .command("summary")
  .description("print the latest stored summary of a session (default: the most recently compressed one)")
  .option("--session <id>", "session id")
  .option("--full", "every stored item, not just what fit the budget")
  .option("--json", "print JSON")
  .action(async (opts: { session?: string; full?: boolean; json?: boolean }, cmd: Command) => {
    await withApp(cmd, async (app) => {
      const s = getSummary(app.db, app.project.id, opts.session);
      print(opts.json ?? false, s, renderStoredSummary(s, opts.full ?? false));
    });
  });

const graph = program.command("graph").description("inspect the context graph");
graph
  .command("neighbors <ref>")
  .description("a node's one-hop neighbourhood: give a repo path, a symbol name (or Parent.name) or a node id")
  .option("--json", "print JSON")
  .action(async (ref: string, opts: { json?: boolean }, cmd: Command) => {
    await withApp(cmd, async (app) => {
      assertIndexed(app.db);
      const n = neighbourhood(app.db, ref);
      print(opts.json ?? false, n, renderNeighbourhood(n));
    });
  });

const evalCmd = program.command("eval").description("benchmarks and evaluations");
evalCmd
  .command("index")
  .description("time the graph build against the read and parse floors of the same files, in one run")
  .requiredOption("--repo <dir>", "repository to index (a private copy is made; the repository is not touched)")
  .option("--json", "print JSON")
  .action(async (opts: { repo: string; json?: boolean }, cmd: Command) => {
    const config = configFrom(cmd);
    const logger = createLogger(config.logLevel as LogLevel);
    const workDir = mkdtempSync(join(tmpdir(), "memcards-bench-"));
    try {
      const line = createProgressLine(true);
      const result = await benchIndex({
        repo: resolvePath(opts.repo),
        workDir,
        config,
        logger,
        onStep: (s) => line.update(`${s}…`),
      });
      line.done();
      print(opts.json ?? false, result, renderIndexBench(result));
    } finally {
      rmSync(workDir, { recursive: true, force: true });
    }
  });

evalCmd
  .command("bench")
  .description("time compress_context on a ~200k-token transcript against the tokenize floor, in one run")
  .option(
    "--source <file>",
    "a Claude Code JSONL session to inflate",
    "../shared/data/transcripts/harmony-claude-pr341.jsonl",
  )
  .option("--tokens <n>", "target size in tokens", (v) => Number.parseInt(v, 10), 200_000)
  .option("--json", "print JSON")
  .action((opts: { source: string; tokens: number; json?: boolean }) => {
    const workDir = mkdtempSync(join(tmpdir(), "memcards-bench-"));
    try {
      const b = benchCompress({ source: resolvePath(opts.source), workDir, targetTokens: opts.tokens });
      print(opts.json ?? false, b, renderCompressBench(b));
    } finally {
      rmSync(workDir, { recursive: true, force: true });
    }
  });

evalCmd
  .command("segment")
  .description("per-category precision and recall of the segmenter on the hand-labelled turns")
  .option(
    "--set <file>",
    "labelled turns (JSONL)",
    fileURLToPath(new URL("../test/fixtures/segment/turns.jsonl", import.meta.url)),
  )
  .option("--second <file>", "a second labeller's labels of some of the same turns: agreement and kappa")
  .option("--json", "print JSON")
  .action((opts: { set: string; second?: string; json?: boolean }) => {
    const second =
      opts.second ?? (opts.set.endsWith("turns.jsonl") ? opts.set.replace(/turns\.jsonl$/, "second.jsonl") : undefined);
    const r = evalSegment(resolvePath(opts.set), second && existsSync(second) ? resolvePath(second) : undefined);
    print(opts.json ?? false, r, renderSegmentEval(r));
  });

evalCmd
  .command("compress")
  .description(
    "five systems at one budget (window, uniform extractive, TF-IDF, embedding retrieval, memcards) scored by ground-truth probes (--transcripts), or the summaries against the probes committed beside them (--dir)",
  )
  .option("--transcripts <dir>", "folder of transcripts: the five-system evaluation")
  .option("--budget <n>", "tokens per system and transcript (five-system)", (v) => Number.parseInt(v, 10), 2000)
  .option("--query-budget <n>", "tokens of search results per question (query set)", (v) => Number.parseInt(v, 10), 300)
  .option(
    "--labelled <file>",
    "hand-labelled turns whose commitment quotes become commitment probes",
    fileURLToPath(new URL("../test/fixtures/segment/turns.jsonl", import.meta.url)),
  )
  .option("--out <dir>", "write compress-systems.json and compress-systems.svg there (five-system)")
  .option(
    "--dir <dir>",
    "folder of transcripts with probes.json: the committed-probe table",
    "../shared/data/transcripts",
  )
  .option("--only <names...>", "only these files of the folder")
  .option("--json", "print JSON")
  .action(
    (opts: {
      transcripts?: string;
      budget: number;
      queryBudget: number;
      labelled: string;
      out?: string;
      dir: string;
      only?: string[];
      json?: boolean;
    }) => {
      const workDir = mkdtempSync(join(tmpdir(), "memcards-compress-"));
      try {
        const line = createProgressLine(true);
        if (opts.transcripts) {
          if (!Number.isInteger(opts.budget) || opts.budget < 100)
            throw new AppError("BAD_INPUT", `--budget must be a whole number of tokens ≥ 100 (got ${opts.budget})`);
          const dir = resolvePath(opts.transcripts);
          if (!existsSync(dir)) throw new AppError("NOT_FOUND", `no such folder: ${dir}`);
          const r = runFiveSystems({
            dir,
            workDir,
            budget: opts.budget,
            queryBudget: opts.queryBudget,
            ...(existsSync(opts.labelled) ? { labelled: resolvePath(opts.labelled) } : {}),
            ...(opts.only ? { files: opts.only } : {}),
            onFile: (f) => line.update(`${f}…`),
          });
          line.done();
          if (opts.out) {
            const out = resolvePath(opts.out);
            mkdirSync(out, { recursive: true });
            writeFileSync(join(out, "compress-systems.json"), `${JSON.stringify(r, null, 2)}\n`);
            writeFileSync(join(out, "compress-systems.svg"), fiveSystemsSvg(r));
            console.error(`wrote ${join(out, "compress-systems.json")} and ${join(out, "compress-systems.svg")}`);
          }
          print(opts.json ?? false, r, renderFiveSystems(r));
          return;
        }
        const rows = evalCompress({
          dir: resolvePath(opts.dir),
          workDir,
          ...(opts.only ? { files: opts.only } : {}),
          onFile: (f) => line.update(`${f}…`),
        });
        line.done();
        print(opts.json ?? false, rows, renderCompressEval(rows));
      } finally {
        rmSync(workDir, { recursive: true, force: true });
      }
    },
  );

evalCmd
  .command("localize")
  .description("rank files for real tasks on a fresh index per task, every rung of the retrieval ladder")
  .requiredOption("--tasks <file>", "JSONL: {id, repo, commit, query, gold, git_dir?} per line")
  .option("--repos <dir>", "directory holding the repositories' git directories (owner+name/, name/, name.git)")
  .option(
    "--cache <dir>",
    "where trees at each commit are extracted (kept between runs)",
    join(tmpdir(), "memcards-eval"),
  )
  .option("--limit <n>", "only the first n tasks")
  .option("--only <substring>", "only tasks whose id contains this")
  .option("--out <dir>", "also write report.json and report.md there")
  .option("--keep-stores", "keep one index per tree in the cache between runs (fast re-runs while tuning)")
  .option("--rungs <names...>", `only these rungs, in ladder order (${RUNGS.join(", ")})`)
  .option("--json", "print JSON")
  .action(
    async (
      opts: {
        rungs?: string[];
        tasks: string;
        repos?: string;
        cache: string;
        limit?: string;
        only?: string;
        out?: string;
        json?: boolean;
        keepStores?: boolean;
      },
      cmd: Command,
    ) => {
      const config = configFrom(cmd);
      const logger = createLogger((config.logLevel === "info" ? "warn" : config.logLevel) as LogLevel);
      let tasks = loadTasks(opts.tasks);
      if (opts.only) tasks = tasks.filter((t) => t.id.includes(opts.only!));
      if (opts.limit) tasks = tasks.slice(0, Number(opts.limit));
      const report = await runLocalize({
        tasks,
        ...(opts.repos ? { reposDir: resolvePath(opts.repos) } : {}),
        cacheDir: resolvePath(opts.cache),
        keepStores: opts.keepStores ?? false,
        ...(opts.rungs ? { rungs: opts.rungs.map((r) => Rung.parse(r)) } : {}),
        config,
        logger,
        onTask: (i, n, id, note) => process.stderr.write(`[${i}/${n}] ${id}: ${note}\n`),
      });
      const text = renderLocalize(report);
      if (opts.out) {
        mkdirSync(opts.out, { recursive: true });
        writeFileSync(join(opts.out, "report.json"), JSON.stringify(report, null, 2));
        writeFileSync(join(opts.out, "report.md"), text + "\n");
      }
      print(opts.json ?? false, report, text);
    },
  );

evalCmd
  .command("cards")
  .description(
    "what the packed cards hold for real tasks: budget sweep, removal, formats at equal budget, planted harm, audit, latency",
  )
  .requiredOption("--tasks <file>", "JSONL tasks, as for eval localize")
  .option("--repos <dir>", "directory holding the repositories' git directories")
  .option("--cache <dir>", "where trees (and kept stores) live", join(tmpdir(), "memcards-eval"))
  .option("--limit <n>", "only the first n tasks")
  .option("--keep-stores", "reuse one index per tree between runs")
  .option("--latency-repo <dir>", "also time get_memory_cards on this (large) repository, indexed once")
  .option("--out <dir>", "also write cards.json and cards.md there")
  .option("--json", "print JSON")
  .action(
    async (
      opts: {
        tasks: string;
        repos?: string;
        cache: string;
        limit?: string;
        keepStores?: boolean;
        latencyRepo?: string;
        out?: string;
        json?: boolean;
      },
      cmd: Command,
    ) => {
      const config = configFrom(cmd);
      const logger = createLogger((config.logLevel === "info" ? "warn" : config.logLevel) as LogLevel);
      let tasks = loadTasks(opts.tasks);
      if (opts.limit) tasks = tasks.slice(0, Number(opts.limit));
      const report = await runCardsEval({
        tasks,
        ...(opts.repos ? { reposDir: resolvePath(opts.repos) } : {}),
        cacheDir: resolvePath(opts.cache),
        keepStores: opts.keepStores ?? false,
        ...(opts.latencyRepo ? { latencyRepo: resolvePath(opts.latencyRepo) } : {}),
        config,
        logger,
        onTask: (i, n, id, note) => process.stderr.write(`[${i}/${n}] ${id}: ${note}\n`),
      });
      const text = renderCardsEval(report);
      if (opts.out) {
        mkdirSync(opts.out, { recursive: true });
        writeFileSync(join(opts.out, "cards.json"), JSON.stringify(report, null, 2));
        writeFileSync(join(opts.out, "cards.md"), text + "\n");
      }
      print(opts.json ?? false, report, text);
    },
  );

evalCmd
  .command("toolsize")
  .description("count the tokens memcards' tools/list and instructions cost in every session")
  .option("--json", "print JSON")
  .action(async (opts: { json?: boolean }, cmd: Command) => {
    const { measureToolSize, renderToolSize } = await import("./eval/tool-size.js");
    const s = await measureToolSize(configFrom(cmd), version);
    print(opts.json ?? false, s, renderToolSize(s));
  });

evalCmd
  .command("recall")
  .description(
    "LoCoMo: ingest conversations session by session, search each question, evidence recall@5/@10 against BM25",
  )
  .requiredOption("--locomo <file>", "LoCoMo-format JSON (e.g. ../shared/data/locomo-dev-5.json)")
  .option("--json", "print JSON")
  .action((opts: { locomo: string; json?: boolean }) => {
    const workDir = mkdtempSync(join(tmpdir(), "memcards-recall-"));
    try {
      const line = createProgressLine(true);
      const r = runRecallEval({
        file: resolvePath(opts.locomo),
        workDir,
        onConversation: (i, n) => line.update(`conversation ${i}/${n}…`),
      });
      line.done();
      print(opts.json ?? false, r, renderRecallEval(r));
    } finally {
      rmSync(workDir, { recursive: true, force: true });
    }
  });

evalCmd
  .command("hooks")
  .description("time each Claude Code hook command (new process, JSON on stdin) against a warm database")
  .option(
    "--transcript <file>",
    "a Claude Code session to seed the project with",
    "../shared/data/transcripts/harmony-claude-pr341.jsonl",
  )
  .option("--runs <n>", "runs per hook", (v) => Number.parseInt(v, 10), 10)
  .option("--json", "print JSON")
  .action((opts: { transcript: string; runs: number; json?: boolean }) => {
    const workDir = mkdtempSync(join(tmpdir(), "memcards-hooks-"));
    try {
      const b = benchHooks({
        cli: fileURLToPath(import.meta.url),
        workDir,
        transcript: resolvePath(opts.transcript),
        runs: opts.runs,
      });
      print(opts.json ?? false, b, renderHookBench(b));
    } finally {
      rmSync(workDir, { recursive: true, force: true });
    }
  });

evalCmd
  .command("audit")
  .description("leakage audit: fail when ranking code mentions gold files or imports evaluation code")
  .action(() => {
    const root = join(dirname(fileURLToPath(import.meta.url)), "..");
    const problems = auditRankingCode({ root });
    if (problems.length) {
      process.stderr.write(formatAuditProblems(problems) + "\n");
      process.exitCode = 1;
      return;
    }
    console.log(`leakage audit: ${RANKING_DIRS.join(", ")} never reference gold files, dev data or evaluation code`);
  });

const models = program.command("models").description("manage local embedding models");
models
  .command("pull [model]")
  .description(`download a sentence-embedding model into the local cache (default ${DEFAULT_MODEL})`)
  .action(async (model: string | undefined, _opts: unknown, cmd: Command) => {
    const config = configFrom(cmd);
    const logger = createLogger(config.logLevel as LogLevel);
    const name = model ?? DEFAULT_MODEL;
    await pullModel({ model: name, cacheDir: config.modelsDir, logger });
    console.log(
      `pulled ${name} into ${config.modelsDir}; switch a project to it with: memcards reembed --model ${name}`,
    );
  });

program
  .command("reembed")
  .description("switch this project's database to another embedder and re-embed everything stored")
  .option("--model <id>", "a cached model (see `memcards models pull`)")
  .option("--offline", "the built-in offline embedder")
  .option("--json", "print JSON")
  .action(async (opts: { model?: string; offline?: boolean; json?: boolean }, cmd: Command) => {
    if (Boolean(opts.model) === Boolean(opts.offline)) {
      throw new AppError("BAD_INPUT", "pass exactly one of --model <id> or --offline");
    }
    await withApp(cmd, async (app) => {
      const result = await reembed(app, opts.offline ? { offline: true } : { model: opts.model ?? DEFAULT_MODEL });
      print(
        opts.json ?? false,
        result,
        `re-embedded ${result.items} items with ${result.to} (was ${result.from ?? "unbound"}) in ${result.ms} ms`,
      );
    });
  });

program.parseAsync(process.argv).catch((err: unknown) => {
  const e = toAppError(err);
  process.stderr.write(`memcards: ${e.code === "INTERNAL" ? "" : e.code + ": "}${e.message}\n`);
  if (e.code === "INTERNAL" && e.stack) process.stderr.write(e.stack + "\n");
  process.exit(1);
});
