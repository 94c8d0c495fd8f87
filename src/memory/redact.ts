// Secrets never reach the store: provider keys and tokens, private keys, JWTs, passwords in URLs,
// `.env`-style secret assignments; `<private>…</private>` spans are dropped whole.

// Every rule runs in time linear in the text: a rule's match may start only where a scan from an earlier
// position could not have covered it, and spans (private, keys) are found by searching for their end once.

/** Spans from an opening to the next closing marker; an opening with no closing after it ends the search. */
const SPANS: [RegExp, RegExp, string][] = [
  [/<private>/gi, /<\/private>/gi, "[private]"],
  [/-----BEGIN [A-Z ]{0,40}PRIVATE KEY-----/g, /-----END [A-Z ]{0,40}PRIVATE KEY-----/g, "[redacted private key]"],
];

const RULES: [RegExp, string][] = [
  [/\bsk-ant-[A-Za-z0-9_-]{20,}/g, "[redacted anthropic key]"],
  [/\bsk-(?:proj-)?[A-Za-z0-9_-]{20,}/g, "[redacted openai key]"],
  [/\bgh[pousr]_[A-Za-z0-9]{30,}/g, "[redacted github token]"],
  [/\bgithub_pat_[A-Za-z0-9_]{30,}/g, "[redacted github token]"],
  [/\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g, "[redacted aws key]"],
  [/\bxox[abprs]-[A-Za-z0-9-]{10,}/g, "[redacted slack token]"],
  [/\bAIza[0-9A-Za-z_-]{35}\b/g, "[redacted google key]"],
  [/\b(?:gsk|glpat|npm|hf|rk_live|sk_live|pk_live)[_-][A-Za-z0-9_-]{20,}/g, "[redacted token]"],
  [/\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g, "[redacted jwt]"],
  [/\b([a-z][a-z0-9+.-]{0,31}:\/\/[^\s:/@]+):[^\s@/]+@/gi, "$1:[redacted]@"],
  [
    /^([^\S\r\n]*(?:export\s+)?[A-Z0-9_]*(?:SECRET|TOKEN|PASSWORD|PASSWD|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY|CREDENTIALS?)[A-Z0-9_]*\s*[=:]\s*)(["']?)[^\s"']{4,}\2/gim,
    "$1[redacted]",
  ],
];

/** Text with every recognised secret replaced by a marker. */
export function redact(text: string): string {
  let out = text;
  for (const [open, close, rep] of SPANS) out = replaceSpans(out, open, close, rep);
  for (const [re, rep] of RULES) out = out.replace(re, rep);
  return out;
}

/** Replaces each span from `open` to the first `close` after it (a lazy `open[\s\S]*?close`, in one pass). */
function replaceSpans(text: string, open: RegExp, close: RegExp, rep: string): string {
  const o = new RegExp(open.source, open.flags);
  const c = new RegExp(close.source, close.flags);
  const parts: string[] = [];
  let at = 0;
  for (;;) {
    o.lastIndex = at;
    const start = o.exec(text);
    if (!start) break;
    c.lastIndex = start.index + start[0].length;
    const end = c.exec(text);
    if (!end) break;
    parts.push(text.slice(at, start.index), rep);
    at = end.index + end[0].length;
  }
  return parts.length ? parts.join("") + text.slice(at) : text;
}
