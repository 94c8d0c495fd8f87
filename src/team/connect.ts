// The team store's connection: the URL from --team-url or MEMCARDS_TEAM_URL, never logged or stored with its
// password; failures mapped to errors that name the host, not the secret.
import pg from "pg";

import { AppError } from "../errors.js";

/** The team URL a command uses: the flag, else MEMCARDS_TEAM_URL; undefined when neither is set. */
export function teamUrl(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const url = flag?.trim() || env.MEMCARDS_TEAM_URL?.trim();
  return url || undefined;
}

/** The URL as it may be shown: the password replaced, the query (sslmode…) kept. */
export function displayUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = "***";
    return u.toString();
  } catch {
    return url.replace(/:\/\/([^:@/]*):[^@/]*@/, "://$1:***@");
  }
}

/** `text` with every occurrence of the URL's password (plain or URL-encoded) replaced. */
export function scrubSecret(text: string, url: string): string {
  let out = text.split(url).join(displayUrl(url));
  try {
    const pw = new URL(url).password;
    if (pw) for (const s of new Set([pw, decodeURIComponent(pw)])) out = out.split(s).join("***");
  } catch {
    // not a URL: nothing more to scrub
  }
  return out;
}

/** Opens one client; TLS parameters in the URL (sslmode, sslrootcert…) are passed through to the driver. */
export async function connectTeam(url: string, timeoutMs = 5000): Promise<pg.Client> {
  if (!/^postgres(ql)?:\/\//i.test(url))
    throw new AppError("BAD_INPUT", `the team URL must start with postgres:// (got ${displayUrl(url).slice(0, 80)})`);
  const client = new pg.Client({
    connectionString: url,
    connectionTimeoutMillis: timeoutMs,
    statement_timeout: 30_000,
  });
  // A connection dropped later (server stopped) surfaces on the next query, not as an unhandled event.
  client.on("error", () => undefined);
  try {
    await client.connect();
    return client;
  } catch (err) {
    await client.end().catch(() => undefined);
    throw teamError(err, url);
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
