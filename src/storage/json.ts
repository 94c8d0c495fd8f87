// Decoding of JSON columns: every JSON column is read through its zod schema here, so callers get typed values.
import type { z } from "zod";

import { AppError } from "../errors.js";

/** The column's value decoded with `schema`, or undefined when it is not JSON or does not match. */
export function decodeJson<T extends z.ZodType>(schema: T, text: string): z.output<T> | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const parsed = schema.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}

/**
 * The column's value decoded with `schema`; a value that is not JSON or does not match fails with DB_CORRUPT,
 * naming the row, so a damaged row is never read as an empty one.
 */
export function decodeJsonOrFail<T extends z.ZodType>(
  schema: T,
  text: string,
  where: { table: string; column: string; id: number | string },
): z.output<T> {
  const value = decodeJson(schema, text);
  if (value === undefined) {
    throw new AppError(
      "DB_CORRUPT",
      `the store holds a malformed ${where.table}.${where.column} value (row ${where.id}). Restore the store from a backup, or forget that row.`,
    );
  }
  return value;
}
