// The Injections page: what each hook did in which session, from the hook log beside the store, with the size
// of what it injected against the hook output cap.
import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";
import { dirname, join } from "node:path";

import type { App } from "../../app.js";
import { HOOK_LOG } from "../../integrate/hook-command.js";
import { CARD_HOOK_BUDGET, MAX_HOOK_OUTPUT } from "../../integrate/hooks/input.js";
import { count } from "../../text/plural.js";
import { redact } from "../../text/redact.js";
import { type Html, html, qs, when } from "../html.js";
import type { PageContext } from "./layout.js";

/** The log's tail only: a long-lived log must not slow the page. */
const TAIL_BYTES = 256 * 1024;

export interface HookLine {
  time: string;
  event: string;
  session: string | undefined;
  outcome: string;
  /** Characters injected, when the outcome says so. */
  chars: number | undefined;
}

/** The last lines of the hook log (newest first); none when there is no log. */
export function readHookLog(file: string, limit = 300): HookLine[] {
  let text: string;
  try {
    // The log memcards wrote: never through a link (a cloned `.memcards` folder may carry one), never a hard link
    // or anything but a regular file, and never waited on (a FIFO).
    const fd = openSync(file, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
    try {
      const st = fstatSync(fd);
      if (!st.isFile() || st.nlink > 1) return [];
      const size = st.size;
      const start = Math.max(0, size - TAIL_BYTES);
      const buf = Buffer.alloc(size - start);
      readSync(fd, buf, 0, buf.length, start);
      // Redacted again as it is shown: a log written by an older memcards may hold a form it did not know.
      text = redact(buf.toString("utf8"));
      if (start > 0) text = text.slice(text.indexOf("\n") + 1);
    } finally {
      closeSync(fd);
    }
  } catch {
    return [];
  }
  const out: HookLine[] = [];
  for (const line of text.split("\n").reverse()) {
    const m = /^(\S+) (\S+) (\S+) (.*)$/.exec(line);
    if (!m) continue;
    const chars = /(\d+) chars\b/.exec(m[4]!);
    out.push({
      time: m[1]!,
      event: m[2]!,
      session: m[3] === "-" ? undefined : m[3],
      outcome: m[4]!,
      chars: chars ? Number(chars[1]) : undefined,
    });
    if (out.length >= limit) break;
  }
  return out;
}

export function injectionsPage(app: App, _ctx: PageContext): Html {
  const file = join(dirname(app.dbPath), HOOK_LOG);
  const lines = readHookLog(file);
  const injected = lines.filter((l) => l.chars !== undefined);
  return html`<p class="muted">
      From <code>${file}</code>: ${count(lines.length, "hook call")} shown, ${injected.length} injected text. Each
      injection is capped at ${MAX_HOOK_OUTPUT.toLocaleString("en-US")} characters; cards injected before a prompt or
      tool use get ${CARD_HOOK_BUDGET} tokens.
    </p>
    ${
      lines.length === 0
        ? html`<p class="muted">No hook has run for this project yet (memcards init installs the hooks).</p>`
        : html`<table>
            <thead>
              <tr>
                <th>Time</th>
                <th>Hook</th>
                <th>Session</th>
                <th>What it did</th>
                <th class="num">Size / cap</th>
              </tr>
            </thead>
            <tbody>
              ${lines.map(
                (l) =>
                  html`<tr>
                    <td>${when(l.time)}</td>
                    <td>${l.event}</td>
                    <td>
                      ${l.session ? html`<a href="/sessions${qs({ session: l.session })}">${l.session.slice(0, 24)}</a>` : "–"}
                    </td>
                    <td>${l.outcome}</td>
                    <td class="num">
                      ${
                        l.chars !== undefined
                          ? html`${l.chars.toLocaleString("en-US")} (${Math.round((100 * l.chars) / MAX_HOOK_OUTPUT)}%)`
                          : "–"
                      }
                    </td>
                  </tr>`,
              )}
            </tbody>
          </table>`
    }`;
}
