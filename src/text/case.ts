// The one place where names change case: memcards is camelCase inside, and the MCP wire, the CLI's --json output and
// the JSON documents already stored in users' databases are snake_case. A tool's wire schemas are derived here from
// its camelCase zod schemas (descriptions, defaults and limits kept), and values are renamed here between the two
// forms, guided by the same schemas.
import { z } from "zod";

/** `budgetTokens` → `budget_tokens`, at the type level. */
export type SnakeCase<S extends string> = S extends `${infer H}${infer T}`
  ? `${H extends Lowercase<H> ? H : `_${Lowercase<H>}`}${SnakeCase<T>}`
  : S;

/** `budget_tokens` → `budgetTokens`, at the type level. */
export type CamelCase<S extends string> = S extends `${infer H}_${infer T}` ? `${H}${Capitalize<CamelCase<T>>}` : S;

/** An object type with its keys (at every depth) in snake_case. */
export type SnakeKeys<T> =
  T extends ReadonlyArray<infer E>
    ? SnakeKeys<E>[]
    : T extends object
      ? { [K in keyof T as K extends string ? SnakeCase<K> : K]: SnakeKeys<T[K]> }
      : T;

/** The wire's name for a key. */
export function snakeCase(key: string): string {
  return key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/** The inside's name for a wire key. */
export function camelCase(key: string): string {
  return key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

type Def = Record<string, unknown> & { type: string };
const defOf = (s: z.ZodType): Def => (s as unknown as { _zod: { def: Def } })._zod.def;

/** Wrappers whose inner schema is named `innerType` in zod's definitions. */
const WRAPPERS = new Set(["optional", "nullable", "default", "prefault", "readonly", "catch", "nonoptional"]);

/** A copy of `schema` with a new definition, keeping its description and other metadata. */
function redefine<S extends z.ZodType>(schema: S, def: Def): S {
  const copy = (schema as unknown as { clone(def: Def): S }).clone(def);
  const meta = z.globalRegistry.get(schema);
  if (meta) z.globalRegistry.add(copy, meta);
  return copy;
}

const wireCache = new WeakMap<z.ZodType, z.ZodType>();

/** A capital run or a leading capital has no one snake form (`idSHA` would be `id_s_h_a`). */
const UNSNAKEABLE = /^[A-Z]|[A-Z]{2}/;

/** The schemas nested in a definition of a kind `wireSchema` does not rebuild (tuples, pipes, intersections, …). */
function nestedOf(def: Def): z.ZodType[] {
  const out: unknown[] = [def.in, def.out, def.left, def.right, def.rest, def.keyType, def.valueType, def.catchall];
  if (Array.isArray(def.items)) out.push(...(def.items as unknown[]));
  if (typeof def.getter === "function") out.push((def.getter as () => unknown)());
  return out.filter((s): s is z.ZodType => typeof s === "object" && s !== null && "_zod" in s);
}

/** The first object key under `schema` whose wire name differs, if any (records' keys are data). */
function keyToRename(schema: z.ZodType, seen = new Set<z.ZodType>()): string | undefined {
  if (seen.has(schema)) return undefined;
  seen.add(schema);
  const def = defOf(schema);
  if (def.type === "object")
    for (const [key, field] of Object.entries(def.shape as Record<string, z.ZodType>)) {
      const found = snakeCase(key) !== key ? key : keyToRename(field, seen);
      if (found) return found;
    }
  const nested = [...nestedOf(def), ...[def.element, def.innerType].filter((s) => s !== undefined)] as z.ZodType[];
  if (def.type === "union") nested.push(...(def.options as z.ZodType[]));
  for (const n of nested) {
    const found = keyToRename(n, seen);
    if (found) return found;
  }
  return undefined;
}

/**
 * `schema` as the wire publishes it: every object key at every depth in snake_case (record keys are data and
 * stay). The same instance when nothing needs renaming; two keys of one object with one snake form are refused.
 */
export function wireSchema<S extends z.ZodType>(schema: S): S {
  const cached = wireCache.get(schema);
  if (cached) return cached as S;
  const def = defOf(schema);
  let out: z.ZodType = schema;
  if (def.type === "object") {
    const shape = def.shape as Record<string, z.ZodType>;
    const renamed: Record<string, z.ZodType> = {};
    let changed = false;
    for (const [key, field] of Object.entries(shape)) {
      if (UNSNAKEABLE.test(key))
        throw new Error(`${key} has no one snake_case form: name it in camelCase word by word`);
      const wire = snakeCase(key);
      if (wire in renamed) throw new Error(`two keys are ${wire} on the wire: name one of them differently`);
      renamed[wire] = wireSchema(field);
      changed ||= wire !== key || renamed[wire] !== field;
    }
    // A check of the whole object (refine, superRefine) would run on the wire's names and name the inside's.
    if (changed && Array.isArray(def.checks) && def.checks.length > 0)
      throw new Error("an object check sees the wire's names: check its fields one by one, or in the run");
    if (changed) out = redefine(schema, { ...def, shape: renamed });
  } else if (def.type === "array") {
    const element = wireSchema(def.element as z.ZodType);
    if (element !== def.element) out = redefine(schema, { ...def, element });
  } else if (def.type === "record") {
    const valueType = wireSchema(def.valueType as z.ZodType);
    if (valueType !== def.valueType) out = redefine(schema, { ...def, valueType });
  } else if (WRAPPERS.has(def.type)) {
    const innerType = wireSchema(def.innerType as z.ZodType);
    if (innerType !== def.innerType) {
      const renamed: Def = { ...def, innerType };
      // A default is published and filled in as the wire names it.
      if (def.type === "default" || def.type === "prefault")
        renamed.defaultValue = renameKeys(def.innerType as z.ZodType, def.defaultValue, true);
      out = redefine(schema, renamed);
    }
  } else if (def.type === "union" && (def.options as z.ZodType[]).some((o) => wireSchema(o) !== o)) {
    throw new Error("a union with keys to rename has no one wire form: name its keys in snake_case");
  } else {
    // Tuples, pipes (transforms), intersections, lazy schemas, maps: not rebuilt, so nothing in them may need renaming.
    const key = nestedOf(def)
      .map((n) => keyToRename(n))
      .find((k) => k !== undefined);
    if (key)
      throw new Error(`${key} sits in a ${def.type} schema, which keeps its keys as they are: name it in snake_case`);
  }
  wireCache.set(schema, out);
  return out as S;
}

/**
 * `value`, shaped by `schema`, with its object keys renamed between the inside's names (the shape's keys) and
 * the wire's (their snake form). Record keys are data and stay; keys the shape does not name stay too.
 */
function renameKeys(schema: z.ZodType, value: unknown, toWire: boolean): unknown {
  if (value === null || typeof value !== "object") return value;
  const def = defOf(schema);
  if (WRAPPERS.has(def.type)) return renameKeys(def.innerType as z.ZodType, value, toWire);
  if (def.type === "array" && Array.isArray(value))
    return value.map((v) => renameKeys(def.element as z.ZodType, v, toWire));
  if (def.type === "record")
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, renameKeys(def.valueType as z.ZodType, v, toWire)]),
    );
  if (def.type !== "object") return value;
  const names = new Map(
    Object.entries(def.shape as Record<string, z.ZodType>).map(([inside, field]) => {
      const wire = snakeCase(inside);
      return toWire ? [inside, [wire, field] as const] : [wire, [inside, field] as const];
    }),
  );
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => {
      const name = names.get(k);
      return name ? [name[0], renameKeys(name[1], v, toWire)] : [k, v];
    }),
  );
}

/** Wire arguments (snake_case), already parsed by the wire schema, as the inside names them. */
export function fromWire<S extends z.ZodType>(schema: S, args: unknown): z.output<S> {
  return renameKeys(schema, args, false) as z.output<S>;
}

/** A value built inside (camelCase), as the wire (or a stored document) names it. */
export function toWire(schema: z.ZodType, value: unknown): unknown {
  return renameKeys(schema, value, true);
}

/**
 * `value` with every object key at every depth in snake_case, for a stored document with no schema at hand (its
 * keys are all names, none data): how the document was written before memcards named things in camelCase inside.
 */
export function snakeKeysDeep(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(snakeKeysDeep);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [snakeCase(k), snakeKeysDeep(v)]));
}
