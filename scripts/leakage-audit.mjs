#!/usr/bin/env node
// Leakage audit for `memcards eval localize`: the ranking code must never see what the evaluation scores against.
// Fails (exit 1) when any source file of the ranking path mentions `gold` or imports from src/eval.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(fileURLToPath(import.meta.url), "..", "..");
const RANKING_DIRS = ["src/retrieval", "src/graph", "src/repo", "src/storage", "src/text", "src/embeddings"];

function* walk(dir) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) yield* walk(p);
    else if (/\.(ts|js|mjs|sql)$/.test(name)) yield p;
  }
}

export function audit(dirs = RANKING_DIRS) {
  const problems = [];
  for (const d of dirs) {
    for (const file of walk(join(root, d))) {
      readFileSync(file, "utf8")
        .split("\n")
        .forEach((line, i) => {
          const where = `${relative(root, file)}:${i + 1}`;
          if (/\bgold\b/i.test(line)) problems.push(`${where}: mentions "gold"`);
          if (/from\s+["'][^"']*\/eval\//.test(line)) problems.push(`${where}: imports evaluation code`);
        });
    }
  }
  return problems;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const problems = audit();
  if (problems.length) {
    console.error(problems.join("\n"));
    process.exit(1);
  }
  console.log(`leakage audit: ${RANKING_DIRS.join(", ")} never reference gold files or evaluation code`);
}
