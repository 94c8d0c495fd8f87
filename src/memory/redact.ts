// Secrets never reach the store: provider keys and tokens, private keys, JWTs, passwords in URLs,
// `.env`-style secret assignments; `<private>…</private>` spans are dropped whole.

const RULES: [RegExp, string][] = [
  [/<private>[\s\S]*?<\/private>/gi, "[private]"],
  [/-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----/g, "[redacted private key]"],
  [/\bsk-ant-[A-Za-z0-9_-]{20,}/g, "[redacted anthropic key]"],
  [/\bsk-(?:proj-)?[A-Za-z0-9_-]{20,}/g, "[redacted openai key]"],
  [/\bgh[pousr]_[A-Za-z0-9]{30,}/g, "[redacted github token]"],
  [/\bgithub_pat_[A-Za-z0-9_]{30,}/g, "[redacted github token]"],
  [/\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g, "[redacted aws key]"],
  [/\bxox[abprs]-[A-Za-z0-9-]{10,}/g, "[redacted slack token]"],
  [/\bAIza[0-9A-Za-z_-]{35}\b/g, "[redacted google key]"],
  [/\b(?:gsk|glpat|npm|hf|rk_live|sk_live|pk_live)[_-][A-Za-z0-9_-]{20,}/g, "[redacted token]"],
  [/\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g, "[redacted jwt]"],
  [/\b([a-z][a-z0-9+.-]*:\/\/[^\s:/@]+):[^\s@/]+@/gi, "$1:[redacted]@"],
  [
    /^(\s*(?:export\s+)?[A-Z0-9_]*(?:SECRET|TOKEN|PASSWORD|PASSWD|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY|CREDENTIALS?)[A-Z0-9_]*\s*[=:]\s*)(["']?)[^\s"']{4,}\2/gim,
    "$1[redacted]",
  ],
];

/** Text with every recognised secret replaced by a marker. */
export function redact(text: string): string {
  let out = text;
  for (const [re, rep] of RULES) out = out.replace(re, rep);
  return out;
}
