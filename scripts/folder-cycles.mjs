// The floors of src/: every folder (and top-level file) sits on one floor and imports only from floors below it;
// folders of one "separate" floor never import each other (they meet in a floor above); fronts never import
// storage/; and no two folders import each other in a cycle. Exits 1 on any import that breaks a rule and is not
// in ALLOWED below, on any function longer than MAX_FUNCTION_LINES not in LONG_ALLOWED, and on any unnamed number in
// the ranking and scoring files (scripts/named-constants.mjs states the rule). `--src <dir>` checks another tree (the
// tests use it).
// Type-only and dynamic imports count too: a folder that needs another's types depends on it.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

import ts from "typescript";

import { checkNamedConstants } from "./named-constants.mjs";

/**
 * Lowest first. `separate`: the folders of this floor do not import each other. Top-level files are named with
 * their `.ts`. Why project/ is a basic, vectors/ sits with the models, and app/status/doctor have a floor of their
 * own: see the README's code map.
 */
export const FLOORS = [
  {
    name: "basics",
    separate: false,
    members: [
      "text",
      "conversation",
      "vocab.ts",
      "errors.ts",
      "limits.ts",
      "log.ts",
      "version.ts",
      "git.ts",
      "config.ts",
      "progress.ts",
      "crash-point.ts",
      "worker-file.ts",
      "project",
    ],
  },
  { name: "engines", separate: true, members: ["storage", "embeddings"] },
  { name: "models", separate: true, members: ["repo", "transcript", "scoring", "vectors"] },
  { name: "domain", separate: true, members: ["graph", "retrieval", "memory", "team"] },
  { name: "composers", separate: true, members: ["cards", "session"] },
  { name: "app", separate: false, members: ["app.ts", "app-cache.ts", "status.ts", "doctor.ts"] },
  {
    name: "fronts",
    separate: false,
    members: ["cli", "mcp", "ui", "integrate", "transport", "serve.ts", "server.ts"],
  },
];

/** Folders of these floors never import storage/ (they call a domain or composer function instead). */
const NO_STORAGE = new Set(["fronts"]);

/**
 * Imports that break a rule today, each with why it stays for now. Keyed by "file -> imported file" (paths under
 * src/), so any new import that breaks a rule fails even between the same two folders.
 */
export const ALLOWED = new Map([]);

/** The most lines a function in src/ may span, from its first line to its closing brace. */
export const MAX_FUNCTION_LINES = 120;

/**
 * Functions longer than MAX_FUNCTION_LINES today, each with why it stays for now. Keyed by "file:name" (paths under
 * src/), so a new long function fails, and one split below the limit must leave the list.
 */
export const LONG_ALLOWED = new Map([
  ["graph/index-repository.ts:indexRepository", "the indexer is being reworked (graph/)"],
]);

function* files(dir) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) yield* files(p);
    else if (p.endsWith(".ts")) yield p;
  }
}

/** Every relative import of every .ts file under `src`: [from file, to file], both relative to `src`. */
function imports(src) {
  const out = [];
  const pattern = /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+"(\.[^"]+)"|\bimport\(\s*"(\.[^"]+)"\s*\)/g;
  for (const file of files(src)) {
    for (const m of readFileSync(file, "utf8").matchAll(pattern)) {
      const target = resolve(dirname(file), m[1] ?? m[2]).replace(/\.js$/, ".ts");
      if (!target.startsWith(src + "/")) continue;
      out.push([relative(src, file), relative(src, target)]);
    }
  }
  return out;
}

const nodeOf = (rel) => (rel.includes("/") ? rel.split("/")[0] : rel);

/** The problems of the tree at `src`: { errors: string[], allowed: string[] } (allowed: the ALLOWED imports met). */
export function checkFloors(src) {
  const floorOf = new Map();
  FLOORS.forEach((f, level) => f.members.forEach((m) => floorOf.set(m, { ...f, level })));
  const errors = [];
  const allowed = [];
  const seen = new Set();
  for (const e of readdirSync(src, { withFileTypes: true })) {
    const node = e.isDirectory() ? e.name : e.name.endsWith(".ts") ? e.name : undefined;
    if (node && !floorOf.has(node))
      errors.push(
        `src/${node}${e.isDirectory() ? "/" : ""} has no floor: add it to FLOORS in scripts/folder-cycles.mjs`,
      );
  }
  /** folder -> folder -> one example import. */
  const graph = new Map();
  for (const [file, target] of imports(src)) {
    const from = nodeOf(file);
    const to = nodeOf(target);
    if (from === to) continue;
    if (!graph.has(from)) graph.set(from, new Map());
    if (!graph.get(from).has(to)) graph.get(from).set(to, `${file} -> ${target}`);
    const a = floorOf.get(from);
    const b = floorOf.get(to);
    if (!a || !b) continue;
    let rule;
    if (b.level > a.level) rule = `upward: ${from} (${a.name}) imports ${to} (${b.name})`;
    else if (a.level === b.level && a.separate) rule = `same floor: ${from} and ${to} are both ${a.name}`;
    else if (NO_STORAGE.has(a.name) && to === "storage") rule = `${from} (${a.name}) reaches into storage`;
    if (!rule) continue;
    const key = `${file} -> ${target}`;
    if (seen.has(key)) continue;
    seen.add(key);
    if (ALLOWED.has(key)) allowed.push(`${key}   (${ALLOWED.get(key)})`);
    else errors.push(`${rule}   (${key})`);
  }
  for (const c of cycles(graph)) {
    errors.push(`cycle among: ${c.join(", ")}`);
    for (const a of c)
      for (const [b, example] of graph.get(a) ?? []) if (c.includes(b)) errors.push(`  ${a} -> ${b}   (${example})`);
  }
  return { errors, allowed };
}

/**
 * A function's name as a reader finds it: its own, its variable's or property's (an object's or a class field's),
 * `constructor` for a class's, else where it starts.
 */
function functionName(node, sf) {
  if (ts.isConstructorDeclaration(node)) return "constructor";
  const holder = node.parent;
  const named =
    node.name ??
    (ts.isVariableDeclaration(holder) || ts.isPropertyAssignment(holder) || ts.isPropertyDeclaration(holder)
      ? holder.name
      : undefined);
  if (named) return named.getText(sf);
  return `(anonymous at line ${sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1})`;
}

/**
 * Every function (declaration, method, arrow, expression) under `src` longer than MAX_FUNCTION_LINES:
 * { errors: string[], allowed: string[] }, each naming "file:name" and its length.
 */
export function checkFunctionLengths(src) {
  const errors = [];
  const allowed = [];
  for (const file of files(src)) {
    const rel = relative(src, file);
    const sf = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
    const visit = (node) => {
      if (ts.isFunctionLike(node) && node.body) {
        const first = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line;
        const lines = sf.getLineAndCharacterOfPosition(node.end).line - first + 1;
        if (lines > MAX_FUNCTION_LINES) {
          const key = `${rel}:${functionName(node, sf)}`;
          if (LONG_ALLOWED.has(key)) allowed.push(`${key} (${lines} lines)   (${LONG_ALLOWED.get(key)})`);
          else
            errors.push(
              `long function: ${key} spans ${lines} lines (line ${first + 1}), over ${MAX_FUNCTION_LINES}: split it`,
            );
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
  return { errors, allowed };
}

/** Strongly connected components (Tarjan) with more than one node: each holds a cycle. */
function cycles(graph) {
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
  return sccs;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const at = process.argv.indexOf("--src");
  const src = at > 0 ? resolve(process.argv[at + 1]) : resolve(dirname(fileURLToPath(import.meta.url)), "../src");
  const { errors, allowed } = checkFloors(src);
  const long = checkFunctionLengths(src);
  errors.push(...long.errors);
  const numbers = checkNamedConstants(src, at < 0);
  errors.push(...numbers.errors);
  // On the repository's own tree, an allowed import or function that is gone must leave its list too, so the lists
  // only shrink.
  if (at < 0) {
    for (const key of ALLOWED.keys())
      if (!allowed.some((a) => a.startsWith(`${key} `)))
        errors.push(`${key} is in ALLOWED but no longer breaks a rule: remove it from scripts/folder-cycles.mjs`);
    for (const key of LONG_ALLOWED.keys())
      if (!long.allowed.some((a) => a.startsWith(`${key} `)))
        errors.push(`${key} is in LONG_ALLOWED but no longer too long: remove it from scripts/folder-cycles.mjs`);
  }
  if (allowed.length > 0) {
    console.log(`${allowed.length} import(s) still break a floor rule, allowed for now:`);
    for (const a of allowed) console.log(`  ${a}`);
  }
  if (long.allowed.length > 0) {
    console.log(`${long.allowed.length} function(s) over ${MAX_FUNCTION_LINES} lines, allowed for now:`);
    for (const a of long.allowed) console.log(`  ${a}`);
  }
  if (errors.length === 0) {
    console.log(`floors hold in ${relative(process.cwd(), src) || "."}: ${FLOORS.map((f) => f.name).join(" < ")}`);
    console.log(`no other function spans more than ${MAX_FUNCTION_LINES} lines`);
    console.log(`every number is named in ${numbers.checked.length} ranking and scoring file(s)`);
  } else {
    for (const e of errors) console.log(e);
    process.exitCode = 1;
  }
}
