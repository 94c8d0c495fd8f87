// Prints the cards of a fixed set of tasks on an indexed repository, one JSON line per task, over the MCP SDK client
// on stdio (`node scripts/cards-snapshot.mjs <repo> [tasks]`): two builds' outputs are compared with `diff`.
import { join } from "node:path";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import Database from "better-sqlite3";

const [repo, n = "30"] = process.argv.slice(2);
if (!repo) throw new Error("usage: node scripts/cards-snapshot.mjs <repo> [tasks]");
const db = new Database(join(repo, ".memcards", "memcards.db"), { readonly: true });
const syms = db.prepare("SELECT name, path FROM nodes WHERE type = 'symbol' AND length(name) > 3 ORDER BY id").all();
db.close();
const count = Number(n);
const tasks = Array.from({ length: count }, (_, i) => {
  const s = syms[Math.floor((((i * 7919 + 13) % 1000) / 1000) * syms.length)];
  return i % 2 ? `fix ${s.name} in ${s.path}` : `${s.name} gives the wrong result for empty input`;
});
const cli = join(import.meta.dirname, "..", "dist", "cli.js");
const transport = new StdioClientTransport({
  command: process.execPath,
  // Extra node flags for the server, e.g. `--cpu-prof` to profile the calls.
  args: [...(process.env.SNAPSHOT_NODE_FLAGS ?? "").split(" ").filter(Boolean), cli, "serve", "--root", repo],
  env: { ...process.env, MEMCARDS_HOOK_WORKER: "0" },
  stderr: "ignore",
});
const client = new Client({ name: "cards-snapshot", version: "1.0.0" });
await client.connect(transport);
for (const task of tasks) {
  const r = await client.callTool({ name: "get_memory_cards", arguments: { task, verbose: true } }, undefined, {
    timeout: 120_000,
  });
  console.log(JSON.stringify({ task, result: r.structuredContent ?? r.content }));
}
await client.close();
