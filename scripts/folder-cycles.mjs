// Prints import cycles between the folders of src/ (each top-level file counts as its own node); exits 1 when any exist.
// Type-only imports count too: a folder that needs another's types depends on it.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const src = resolve(dirname(fileURLToPath(import.meta.url)), "../src");

function* files(dir) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) yield* files(p);
    else if (p.endsWith(".ts")) yield p;
  }
}

const folderOf = (file) => {
  const rel = relative(src, file);
  return rel.includes("/") ? `${rel.split("/")[0]}/` : rel;
};

/** folder -> folder -> one example "file -> import". */
const graph = new Map();
for (const file of files(src)) {
  const from = folderOf(file);
  const text = readFileSync(file, "utf8");
  for (const m of text.matchAll(/(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+"(\.[^"]+)"/g)) {
    const target = resolve(dirname(file), m[1]).replace(/\.js$/, ".ts");
    if (!target.startsWith(src + "/")) continue;
    const to = folderOf(target);
    if (to === from) continue;
    if (!graph.has(from)) graph.set(from, new Map());
    if (!graph.get(from).has(to)) graph.get(from).set(to, `${relative(src, file)} -> ${m[1]}`);
  }
}

// Strongly connected components (Tarjan); each with more than one folder holds a cycle.
let index = 0;
const idx = new Map();
const low = new Map();
const stack = [];
const on = new Set();
const sccs = [];
const visit = (v) => {
  idx.set(v, index);
  low.set(v, index++);
  stack.push(v);
  on.add(v);
  for (const w of graph.get(v)?.keys() ?? []) {
    if (!idx.has(w)) {
      visit(w);
      low.set(v, Math.min(low.get(v), low.get(w)));
    } else if (on.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)));
  }
  if (low.get(v) === idx.get(v)) {
    const c = [];
    let w;
    do {
      w = stack.pop();
      on.delete(w);
      c.push(w);
    } while (w !== v);
    if (c.length > 1) sccs.push(c.sort());
  }
};
for (const v of graph.keys()) if (!idx.has(v)) visit(v);

if (sccs.length === 0) {
  console.log("no folder cycles in src/");
} else {
  for (const c of sccs) {
    console.log(`cycle among: ${c.join(", ")}`);
    for (const a of c) {
      for (const [b, example] of graph.get(a) ?? []) if (c.includes(b)) console.log(`  ${a} -> ${b}   (${example})`);
    }
  }
  process.exitCode = 1;
}
