// Build: compile src/ and bench/ to dist/src and dist/bench (what tests and `eval` floors import), copy SQL
// migrations, then bundle the CLI into dist/cli.js + dist/chunks/ (what users, hooks and clients run).
//
// The bundle: one ES module entry with code splitting, so each lazy import() stays a chunk of its own and a process
// loads a few large modules instead of ~200 small ones (zod, commander, the MCP SDK and hono inlined). Native and
// wasm-loading packages stay external and load from node_modules. Worker-thread entries sit beside the chunks that
// start them (siblingWorkerFile), and each migrations folder beside the chunk of the module that reads it.
import { execFileSync } from "node:child_process";
import { chmodSync, cpSync, existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

import { rolldown } from "rolldown";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const dist = join(root, "dist");
const require = createRequire(import.meta.url);
const tsc = require.resolve("typescript/bin/tsc");

rmSync(dist, { recursive: true, force: true });
execFileSync(process.execPath, [tsc, "-p", join(root, "tsconfig.build.json")], { stdio: "inherit" });
const migrations = join(root, "src", "storage", "migrations");
const sql = (p) => !p.endsWith(".ts");
cpSync(migrations, join(dist, "src", "storage", "migrations"), { recursive: true, filter: sql });
const teamMigrations = join(root, "src", "storage", "team", "migrations");
cpSync(teamMigrations, join(dist, "src", "storage", "team", "migrations"), { recursive: true });

// The tokenizer's tables in their compact form (src/text/bpe-table.ts), made from the installed gpt-tokenizer's, written
// beside the code that reads them (the tsc output's text/ and the bundle's chunks/).
const { buildBpeTable } = await import(pathToFileURL(join(dist, "src", "text", "bpe-table.js")).href);
const { BPE_TABLE_FILE } = await import(pathToFileURL(join(dist, "src", "text", "tokens.js")).href);
const bpeTable = buildBpeTable(
  require("gpt-tokenizer/cjs/bpeRanks/cl100k_base").default,
  require("gpt-tokenizer/cjs/encodingParams/constants").CL100K_TOKEN_SPLIT_REGEX.source,
);
writeFileSync(join(dist, "src", "text", BPE_TABLE_FILE), bpeTable);

/** Packages loaded from node_modules at run time: native addons, wasm loaders, model runtimes, optional tools. */
const EXTERNAL = [
  /^node:/,
  /^better-sqlite3(\/|$)/,
  /^sqlite-vec(-.*)?(\/|$)/,
  /^web-tree-sitter(\/|$)/,
  /^tree-sitter-wasms(\/|$)/,
  /^@huggingface\/transformers(\/|$)/,
  /^onnxruntime-(node|web|common)(\/|$)/,
  /^pg(-.*)?(\/|$)/,
  /^playwright-core(\/|$)/,
];
const ENTRY_ID = "\0memcards-cli-entry";
/**
 * dist/hook.js, what `memcards init --hooks` registers: a hook process loads this entry and the worker's client (node
 * built-ins only) and reaches the resident worker; the direct path loads only when no worker answers.
 */
const HOOK_ENTRY_ID = "\0memcards-hook-entry";
/**
 * Entries the code starts by path (worker threads, and the parse floor `eval perf` runs as a process), named as
 * siblingWorkerFile looks them up next to the chunk that starts them.
 */
const WORKERS = {
  worker: "src/graph/worker.ts",
  "prepare-worker": "src/graph/prepare-worker.ts",
  "distill-worker": "src/memory/distill-worker.ts",
  "parse-floor": "bench/parse-floor.ts",
};
/**
 * Modules kept in chunks of their own: the team store's migrations reader (its migrations folder sits beside it,
 * apart from the local store's), and the redaction rules, whose identity is a hash of their chunk.
 */
const OWN_CHUNKS = [
  { name: "team/migrate", test: /src[\\/]storage[\\/]team[\\/]migrate\.ts$/, includeDependenciesRecursively: false },
  { name: "redact", test: /src[\\/]text[\\/]redact\.ts$/, includeDependenciesRecursively: false },
];

const bundle = await rolldown({
  input: {
    cli: ENTRY_ID,
    hook: HOOK_ENTRY_ID,
    ...Object.fromEntries(Object.entries(WORKERS).map(([name, file]) => [name, join(root, file)])),
  },
  platform: "node",
  // The own chunks above hold their module alone; entries then may export more than their module did.
  preserveEntrySignatures: "allow-extension",
  external: EXTERNAL,
  tsconfig: join(root, "tsconfig.json"),
  onLog(level, log, next) {
    if (log.code === "EVAL") return; // a dependency's own direct eval, not ours
    next(level, log);
  },
  plugins: [
    {
      name: "memcards-cli-entry",
      resolveId: (id) => (id === ENTRY_ID || id === HOOK_ENTRY_ID ? id : null),
      load(id) {
        if (id === HOOK_ENTRY_ID)
          // The hook entry hands on the CLI entry beside it: it names the worker's place and runs follow-up work.
          return [
            'import { fileURLToPath } from "node:url";',
            `import { runHookMain } from ${JSON.stringify(join(root, "src", "cli", "hook-entry.ts"))};`,
            'await runHookMain(fileURLToPath(new URL("./cli.js", import.meta.url)), process.argv.slice(2));',
          ].join("\n");
        if (id !== ENTRY_ID) return null;
        // dist/cli.js stays the entry every registration and hook names; it hands its own path to the CLI.
        return [
          'import { fileURLToPath } from "node:url";',
          `import { run } from ${JSON.stringify(join(root, "src", "cli", "entry.ts"))};`,
          "await run(fileURLToPath(import.meta.url));",
        ].join("\n");
      },
    },
  ],
});
/** Entries written at the top of dist/ (the files users and settings name); the others go to dist/chunks/. */
const TOP_ENTRIES = new Set(["cli", "hook"]);
await bundle.write({
  dir: dist,
  format: "esm",
  // Maps name src/ files and lines for stack traces; they carry positions only, not the sources' text.
  sourcemap: true,
  sourcemapExcludeSources: true,
  entryFileNames: (chunk) => (TOP_ENTRIES.has(chunk.name) ? `${chunk.name}.js` : "chunks/[name].js"),
  chunkFileNames: "chunks/[name]-[hash].js",
  banner: (chunk) =>
    chunk.name === "cli"
      ? "#!/usr/bin/env node\n// memcards CLI entry: registrations and older hook settings name this file."
      : chunk.name === "hook"
        ? "#!/usr/bin/env node\n// memcards hook entry: the hooks `memcards init --hooks` registers name this file."
        : "",
  codeSplitting: { groups: OWN_CHUNKS },
});
await bundle.close();
cpSync(migrations, join(dist, "chunks", "migrations"), { recursive: true, filter: sql });
cpSync(teamMigrations, join(dist, "chunks", "team", "migrations"), { recursive: true });
mkdirSync(join(dist, "chunks"), { recursive: true });
writeFileSync(join(dist, "chunks", BPE_TABLE_FILE), bpeTable);
const tops = [...TOP_ENTRIES].map((e) => join(dist, `${e}.js`));
for (const file of [...tops, ...Object.keys(WORKERS).map((w) => join(dist, "chunks", `${w}.js`))])
  if (!existsSync(file)) throw new Error(`bundle entry missing: ${file}`);
for (const file of tops) chmodSync(file, 0o755);
