// Where a store's bytes go: every table and index with its pages (SQLite's dbstat), largest first, and the file's
// page count. Read-only. `node scripts/store-tables.mjs <store.db> [--top N]`.
import Database from "better-sqlite3";

const args = process.argv.slice(2);
const topAt = args.indexOf("--top");
// The store is the argument that is neither a flag nor the value of --top, wherever --top stands.
const path = args.find((a, i) => !a.startsWith("--") && !(topAt >= 0 && i === topAt + 1));
const top = topAt >= 0 ? Number(args[topAt + 1]) : 20;
if (!path || !Number.isInteger(top) || top < 1) {
  process.stderr.write("usage: node scripts/store-tables.mjs <store.db> [--top N]\n");
  process.exit(2);
}
const db = new Database(path, { readonly: true, fileMustExist: true });
try {
  const rows = db.prepare("SELECT name, SUM(pgsize) AS bytes FROM dbstat GROUP BY name ORDER BY bytes DESC").all();
  const total = rows.reduce((n, r) => n + r.bytes, 0);
  const mb = (b) => (b / 1e6).toFixed(2);
  process.stdout.write(`store ${mb(total)} MB in ${db.pragma("page_count", { simple: true })} pages\n`);
  for (const r of rows.slice(0, top)) {
    process.stdout.write(
      `${mb(r.bytes).padStart(8)} MB ${((100 * r.bytes) / total).toFixed(1).padStart(5)}%  ${r.name}\n`,
    );
  }
} finally {
  db.close();
}
