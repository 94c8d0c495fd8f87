// Seeded generators of hostile tool arguments and malformed protocol frames, driven by each tool's input schema.
import { seededRandom } from "../../bench/localize/bootstrap.js";

/** A seeded PRNG (mulberry32, shared with the benchmarks' bootstrap) so a failing case replays from its seed. */
export const prng = seededRandom;

export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  enum?: unknown[];
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  minimum?: number;
  maximum?: number;
  maxLength?: number;
}

const PATHS = [
  "/etc/passwd",
  "/etc/shadow",
  "../../../../etc/passwd",
  "..\\..\\windows\\system32",
  "/proc/self/environ",
  "/dev/zero",
  "/dev/stdin",
  "file:///etc/passwd",
  "~/.ssh/id_rsa",
  "src/../../outside.py",
  "a\u0000b.py",
  "",
  ".",
  "/",
];

const STRINGS = [
  "",
  " ",
  "\u0000",
  "\ud800",
  "💥".repeat(50),
  "'; DROP TABLE memories; --",
  '" OR 1=1 --',
  "NEAR(a b) AND OR NOT *",
  'memories_fts MATCH "x',
  "%s%s%s%n",
  "${process.exit()}",
  "<script>alert(1)</script>",
  "__proto__",
  "constructor",
  "a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q.r.s.t.u.v.w.x.y.z",
  "::".repeat(200),
  "sk-ant-api03-FUZZCANARY0000000000000000000000000000",
  "memcards://cards/x",
];

/** A string that stresses parsers: repeated fragments that make careless regexes backtrack. */
function stressString(r: () => number, size: number): string {
  const pieces = ["a", "a.", "a/", "A_b", "x::", "(", "[", "`", " ", "-", "\\", "0", "é", "aB"];
  const piece = pieces[Math.floor(r() * pieces.length)] ?? "a";
  return piece.repeat(Math.ceil(size / piece.length)).slice(0, size) + (r() < 0.5 ? "!" : "");
}

const pick = <T>(r: () => number, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;

/** Any JSON value, sometimes deeply nested or large. */
function junk(r: () => number, depth = 0): unknown {
  const k = Math.floor(r() * 12);
  switch (k) {
    case 0:
      return null;
    case 1:
      return r() < 0.5;
    case 2:
      return pick(r, [0, -1, 1e308, -1e308, 2 ** 53 + 1, 0.5, -0.0001, 4294967296]);
    case 3:
      return pick(r, STRINGS);
    case 4:
      return pick(r, PATHS);
    case 5:
      return stressString(r, pick(r, [1_000, 20_000, 70_000]));
    case 6:
      return depth < 3 ? Array.from({ length: Math.floor(r() * 4) }, () => junk(r, depth + 1)) : [];
    case 7:
      return depth < 3 ? { [pick(r, ["a", "__proto__", "id", "text"])]: junk(r, depth + 1) } : {};
    case 8: {
      // deep nesting: 200 levels of arrays
      let v: unknown = 1;
      for (let i = 0; i < 200; i++) v = [v];
      return v;
    }
    case 9:
      return Array.from({ length: pick(r, [500, 3000]) }, (_, i) => `f${i}.py`);
    default:
      return Math.floor(r() * 1000).toString(36);
  }
}

function typeOf(s: JsonSchema): string | undefined {
  if (Array.isArray(s.type)) return s.type.find((t) => t !== "null");
  return s.type;
}

/** A value that mostly fits the schema, with hostile content where it can. */
function fitting(r: () => number, s: JsonSchema, depth: number): unknown {
  if (s.enum?.length) return pick(r, s.enum);
  const alt = s.anyOf ?? s.oneOf;
  if (alt?.length) return fitting(r, pick(r, alt), depth);
  switch (typeOf(s)) {
    case "string": {
      const n = r();
      if (n < 0.35) return pick(r, PATHS);
      if (n < 0.6) return pick(r, STRINGS);
      if (n < 0.7) return stressString(r, pick(r, [5_000, 64_000, 250_000]));
      return `fuzz ${Math.floor(r() * 1e6).toString(36)} parse_config in src/app.py`;
    }
    case "integer":
      return pick(r, [0, 1, -1, 7, 2 ** 31, s.minimum ?? 0, s.maximum ?? 100]);
    case "number":
      return pick(r, [0, 0.5, -3, 1e9, s.minimum ?? 0, s.maximum ?? 1]);
    case "boolean":
      return r() < 0.5;
    case "array": {
      const len = pick(r, [0, 1, 2, 5, 40, 400]);
      return Array.from({ length: len }, () => (s.items && depth < 4 ? fitting(r, s.items, depth + 1) : junk(r)));
    }
    case "object": {
      if (depth >= 4) return {};
      return object(r, s, depth + 1);
    }
    default:
      return junk(r);
  }
}

function object(r: () => number, s: JsonSchema, depth: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, sub] of Object.entries(s.properties ?? {})) {
    const required = s.required?.includes(k) ?? false;
    const n = r();
    if (!required && n < 0.4) continue;
    if (required && n < 0.05) continue; // a missing required field
    out[k] = r() < 0.8 ? fitting(r, sub, depth) : junk(r);
  }
  if (r() < 0.1) out[`extra_${Math.floor(r() * 100)}`] = junk(r);
  return out;
}

/** Arguments for one call of a tool with this input schema: mostly shaped like the schema, sometimes not at all. */
export function toolArguments(r: () => number, schema: JsonSchema): unknown {
  const n = r();
  if (n < 0.04) return junk(r); // not even an object
  return object(r, schema, 0);
}

/** Lines a broken or hostile client might write on stdio (each is one frame). */
export function malformedFrames(r: () => number, count: number): string[] {
  const base = [
    "not json",
    "{",
    "}",
    "[]",
    "null",
    "42",
    '"string"',
    '{"jsonrpc":"2.0"}',
    '{"jsonrpc":"1.0","id":1,"method":"ping"}',
    '{"jsonrpc":"2.0","id":1}',
    '{"jsonrpc":"2.0","id":{},"method":"ping"}',
    '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":"x"}',
    '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":42}}',
    '{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"nope","arguments":{}}}',
    '{"jsonrpc":"2.0","id":5,"method":"no/such/method"}',
    '{"jsonrpc":"2.0","id":6,"method":"resources/read","params":{"uri":"file:///etc/passwd"}}',
    '{"jsonrpc":"2.0","id":7,"method":"resources/read","params":{"uri":"memcards://cards/../../etc"}}',
    '{"jsonrpc":"2.0","id":8,"method":"prompts/get","params":{"name":"nope"}}',
    '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":999}}',
    '{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"status","arguments":[]}}',
    "\u0000\u0001\u0002",
    "{}".repeat(1000),
    "[".repeat(5000) + "]".repeat(5000),
  ];
  return Array.from({ length: count }, (_, i) => {
    if (i < base.length) return base[i]!;
    const n = r();
    if (n < 0.3) return pick(r, base);
    if (n < 0.6) {
      const s = pick(r, base);
      const at = Math.floor(r() * s.length);
      return s.slice(0, at) + String.fromCharCode(Math.floor(r() * 128)) + s.slice(at + 1);
    }
    return JSON.stringify({
      jsonrpc: "2.0",
      id: 1000 + i,
      method: pick(r, ["tools/call", "resources/read"]),
      params: junk(r),
    });
  });
}
