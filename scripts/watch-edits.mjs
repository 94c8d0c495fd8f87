// Times a watcher's edits on one file of an indexed tree: `node scripts/watch-edits.mjs <dist dir> <root> <file>
// [edits]`. Starts the app's watcher on <root> (its store at <root>/.memcards/memcards.db), waits until it is ready,
// then appends a new function to <file> (a repo path) once per edit and reports, per edit, the wall time until the
// build that indexed it ended and the CPU this process spent meanwhile (the watcher and the graph worker's build).
// It writes to <file>: run it on a copy of the tree. <dist dir> is a build's dist/ (compare two builds on one tree).
import { appendFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";

const [distArg, rootArg, target, editsArg] = process.argv.slice(2);
if (!distArg || !rootArg || !target) {
  console.error("usage: node scripts/watch-edits.mjs <dist dir> <root> <file> [edits]");
  process.exit(2);
}
const dist = resolve(distArg);
const root = resolve(rootArg);
const edits = Number(editsArg ?? 6);
const { createApp } = await import(`${dist}/src/app.js`);
const { resolveConfig } = await import(`${dist}/src/config.js`);
const { resolveProjectRoot } = await import(`${dist}/src/project/root.js`);
const { createLogger } = await import(`${dist}/src/log.js`);

const config = { ...resolveConfig({}), root, db: join(root, ".memcards", "memcards.db"), embedder: "offline" };
const app = createApp(
  config,
  resolveProjectRoot({ explicit: root, cwd: root, userDir: config.userDir }),
  createLogger("error"),
);
const cpuMs = (c) => Math.round((c.user + c.system) / 1000);
let indexed;
const t0 = performance.now();
const c0 = process.cpuUsage();
const watcher = app.graph.watch({ debounceMs: 50, onIndexed: () => indexed?.() });
await watcher.ready;
console.log(`ready: ${Math.round(performance.now() - t0)} ms wall, ${cpuMs(process.cpuUsage(c0))} ms cpu`);
const rows = [];
for (let i = 0; i < edits && watcher.active; i++) {
  const done = new Promise((r) => (indexed = r));
  const t = performance.now();
  const c = process.cpuUsage();
  appendFileSync(join(root, target), `\ndef memcards_watch_edit_${Date.now()}_${i}():\n    return ${i}\n`);
  await done;
  rows.push({ wall: Math.round(performance.now() - t), cpu: cpuMs(process.cpuUsage(c)) });
  console.log(`edit ${i}: ${rows.at(-1).wall} ms wall, ${rows.at(-1).cpu} ms cpu`);
  await sleep(200);
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
const later = rows.slice(1);
if (rows.length > 1) {
  console.log(
    `first edit ${rows[0].wall} ms wall / ${rows[0].cpu} ms cpu; later edits median ${median(later.map((r) => r.wall))} ms wall / ${median(later.map((r) => r.cpu))} ms cpu`,
  );
}
await watcher.close();
await app.close();
