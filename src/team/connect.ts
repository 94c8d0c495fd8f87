// The team store's connection: the URL (config.ts: --team-url or MEMCARDS_TEAM_URL), never logged or stored with
// its password; failures mapped to errors that name the host, not the secret.
import type pg from "pg";

import { AppError } from "../errors.js";
import { redact } from "../text/redact.js";

/** Query parameters and keywords whose value is a secret (the password, the client key or its passphrase). */
const SECRET_PARAM = /pass|sslkey|secret|token/i;

/**
 * The URL as it may be shown: the password and secret query parameters (password, sslpassword, sslkey…) replaced,
 * the rest (host, sslmode…) kept. A string that is not a postgres:// URL is never shown.
 */
export function displayUrl(url: string): string {
  if (!/^postgres(ql)?:\/\//i.test(url.trim())) return "(a team URL that is not postgres://, not shown)";
  try {
    const u = new URL(url.trim());
    if (u.password) u.password = "***";
    for (const k of [...u.searchParams.keys()]) if (SECRET_PARAM.test(k)) u.searchParams.set(k, "***");
    return u.toString().replace(/%2A%2A%2A/g, "***");
  } catch {
    return "(an unparsable team URL, not shown)";
  }
}

/** Every secret the URL carries, in any of its forms: URL password, secret query parameters, `key=value` words. */
function secretsOf(url: string): string[] {
  const out = new Set<string>();
  const add = (v: string | undefined) => {
    if (!v) return;
    out.add(v);
    try {
      out.add(decodeURIComponent(v));
    } catch {
      // not URL-encoded
    }
  };
  try {
    const u = new URL(url.trim());
    add(u.password);
    for (const [k, v] of u.searchParams) if (SECRET_PARAM.test(k)) add(v);
  } catch {
    // not a URL: the patterns below still apply
  }
  for (const m of url.matchAll(/([A-Za-z_]+)\s*=\s*('(?:[^'\\]|\\.)*'|[^\s&;]+)/g))
    if (SECRET_PARAM.test(m[1]!)) add(m[2]!.replace(/^'|'$/g, ""));
  for (const m of url.matchAll(/(?:^|\/\/|\s)[^\s:@/]*:([^\s@/]+)@/g)) add(m[1]);
  return [...out].filter((v) => v.length > 0).sort((a, b) => b.length - a.length);
}

/** `text` with the URL and every secret it carries replaced, then redacted as any stored text is. */
export function scrubSecret(text: string, url: string): string {
  let out = url ? text.split(url).join(displayUrl(url)) : text;
  for (const s of secretsOf(url)) out = out.split(s).join("***");
  return redact(out);
}

/** How long an unreachable team store is remembered, so interactive calls do not each wait for it. */
export const UNREACHABLE_MEMORY_MS = 60_000;
/** The connect timeout of interactive reads and writes (search, recall, a recorded unit's send). */
export const INTERACTIVE_TIMEOUT_MS = 1_500;

/**
 * Team stores found unreachable, by displayed URL, until when. Process-wide on purpose: every MCP call of a
 * session would otherwise wait out the connect timeout again.
 */
const unreachableUntil = new Map<string, number>();

/**
 * Opens one client; TLS parameters in the URL (sslmode, sslrootcert…) are passed through to the driver. With
 * `interactive`, a store found unreachable in the last minute is not tried again (the caller's fallback runs at
 * once). Queries time out on the client and the server; the socket keeps alive.
 */
export async function connectTeam(
  url: string,
  timeoutMs = 5000,
  opts: { interactive?: boolean } = {},
): Promise<pg.Client> {
  if (!/^postgres(ql)?:\/\//i.test(url))
    throw new AppError("BAD_INPUT", "the team URL must start with postgres:// (the value given is not shown)");
  const key = displayUrl(url);
  const until = unreachableUntil.get(key) ?? 0;
  if (opts.interactive && until > Date.now())
    throw new AppError(
      "TEAM_UNREACHABLE",
      `the team store at ${key} is unreachable (it did not answer ${Math.ceil((until - Date.now()) / 1000)} s ago or less; tried again after a minute)`,
    );
  let client: pg.Client | undefined;
  try {
    // Built inside the try: the driver reads sslkey/sslcert files here, and its errors name what it was given.
    // The driver loads only when a team store is reached: hooks and local commands never pay for it.
    const { default: driver } = await import("pg");
    client = new driver.Client({
      connectionString: url,
      connectionTimeoutMillis: opts.interactive ? Math.min(timeoutMs, INTERACTIVE_TIMEOUT_MS) : timeoutMs,
      statement_timeout: 30_000,
      query_timeout: 35_000,
      keepAlive: true,
    });
    // A connection dropped later (server stopped) surfaces on the next query, not as an unhandled event.
    client.on("error", () => undefined);
    await client.connect();
    unreachableUntil.delete(key);
    return client;
  } catch (err) {
    await client?.end().catch(() => undefined);
    const e = teamError(err, url);
    if (isUnreachable(e)) unreachableUntil.set(key, Date.now() + UNREACHABLE_MEMORY_MS);
    throw e;
  }
}

/** True for errors meaning the server cannot be reached now (so writes queue and reads use the local copy). */
export function isUnreachable(err: unknown): boolean {
  return err instanceof AppError && err.code === "TEAM_UNREACHABLE";
}

/** An error from the driver as an AppError whose message never contains the password. */
export function teamError(err: unknown, url: string): AppError {
  if (err instanceof AppError) return err;
  const e = err as { code?: string; message?: string };
  const where = displayUrl(url);
  const msg = scrubSecret(e.message ?? String(err), url);
  if (e.code === "28P01" || e.code === "28000")
    return new AppError(
      "TEAM_AUTH_FAILED",
      `the team store at ${where} refused the login (${msg}). Check the user and password in MEMCARDS_TEAM_URL.`,
    );
  if (
    ["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "ENOTFOUND", "EHOSTUNREACH", "57P01", "57P03"].includes(e.code ?? "") ||
    /timeout|terminated|Connection terminated|not queryable/i.test(msg)
  )
    return new AppError("TEAM_UNREACHABLE", `the team store at ${where} is unreachable (${msg})`);
  return new AppError("INTERNAL", `team store at ${where}: ${msg}`);
}
