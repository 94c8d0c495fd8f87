// Each provider-token rule runs only on a text holding one of the literals all its matches hold. These forms check
// that no text a rule took before is skipped now: every provider's token glued to words, after an escaped line
// break, in a JSON string, split over string pieces and lines, behind escapes of its prefix, in base64, repeated in
// one text with other providers, and next to look-alikes in another case, which no rule takes.
import { describe, expect, it } from "vitest";

import { redact } from "../../src/text/redact.js";

const body = (n: number) => Array.from({ length: n }, (_, i) => "Ab3dE5gH7jK9mN2pQ4sT6vW8yZ"[i % 26]).join("");
const hex = (n: number) => Array.from({ length: n }, (_, i) => "0123456789abcdef"[(i * 7) % 16]).join("");

/** One token per gated rule, each as its provider issues it. */
const TOKENS: [string, string][] = [
  ["anthropic", `sk-ant-api03-${body(40)}`],
  ["openai", `sk-proj-${body(40)}`],
  ["github", `ghp_${body(36)}`],
  ["github oauth", `gho_${body(36)}`],
  ["github server", `ghs_${body(36)}`],
  ["github refresh", `ghr_${body(36)}`],
  ["github user", `ghu_${body(36)}`],
  ["github pat", `github_pat_11${body(40)}`],
  ["aws", "AKIAQWERTYUIOP123456"],
  ["aws session", "ASIAQWERTYUIOP123456"],
  ["slack", `xoxb-1234567890-${body(24)}`],
  ["slack app", `xapp-1-${body(24)}`],
  ["google", `AIza${body(35)}`],
  ["groq", `gsk_${body(40)}`],
  ["gitlab", `glpat-${body(20)}`],
  ["npm", `npm_${body(36)}`],
  ["huggingface", `hf_${body(34)}`],
  ["digitalocean", `dop_v1_${hex(64)}`],
  ["stripe", `sk_live_${body(30)}`],
  ["stripe restricted", `rk_test_${body(30)}`],
  ["jwt", `eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.${body(30)}`],
  ["pypi", `pypi-${body(60)}`],
  ["google oauth", `GOCSPX-${body(28)}`],
  ["telegram", `123456789:AA${body(33)}`],
  ["shopify", `shpat_${hex(32)}`],
  ["age", `AGE-SECRET-KEY-1${"QWERTYUIOPASDFGHJKLZXCVBNM0123456789QWERTY"}`],
  ["vault", `hvs.${body(30)}`],
  ["twilio", `AC${hex(32)}`],
  ["sendgrid", `SG.${body(22)}.${body(43)}`],
];

/** The part of a token that must not survive redaction (past its prefix). */
const tail = (token: string) => token.slice(-16);

describe("redaction gated by each provider's literals", () => {
  it("takes every provider's token alone, glued to a word, after an escaped line break and in a JSON string", () => {
    for (const [kind, token] of TOKENS) {
      for (const text of [
        token,
        `export TOKEN_VALUE=${token}`,
        `{"message":"first line\\n${token}\\nlast"}`,
        `{"message":"a\\t${token}"}`,
        `"a\\r${token}"`,
        `{"log":"payload:\\\\n${token}"}`,
        `const k = '${token}'; // ${kind}`,
        `see ${token}.`,
      ]) {
        expect(redact(text), `${kind}: ${text}`).not.toContain(tail(token));
      }
    }
  });

  it("takes a token whose prefix is escaped, so the literal the rule looks for is not in the text as written", () => {
    const esc = {
      u: (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
      x: (c: string) => `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`,
      entity: (c: string) => `&#${c.charCodeAt(0)};`,
      percent: (c: string) => `%${c.charCodeAt(0).toString(16).padStart(2, "0")}`,
    };
    // (Not the Telegram token: its `:` ends a run of escapes, and its digits alone are no secret.)
    for (const [kind, token] of TOKENS.filter(([k]) => k !== "telegram")) {
      for (const [name, e] of Object.entries(esc)) {
        // Each character of the first four escaped: no gate literal is left whole.
        const text = [...token.slice(0, 4)].map(e).join("") + token.slice(4);
        expect(redact(text), `${kind} (${name}): ${text}`).not.toContain(tail(token));
      }
    }
  });

  it("takes a token written in pieces across string concatenation and lines", () => {
    // The providers whose prefix the split form knows, cut after the prefix.
    const split = new Set([
      "anthropic",
      "openai",
      "github",
      "github oauth",
      "github server",
      "github refresh",
      "github user",
      "github pat",
      "slack",
      "google",
      "gitlab",
      "npm",
      "huggingface",
      "stripe",
      "pypi",
      "google oauth",
      "shopify",
      "age",
      "vault",
    ]);
    for (const [kind, token] of TOKENS.filter(([k]) => split.has(k))) {
      const cut = token.length - 20;
      for (const text of [
        `key = "${token.slice(0, cut)}" +\n  "${token.slice(cut)}"`,
        `key = "${token.slice(0, cut)}"\n      "${token.slice(cut)}"`,
        `KEY=${token.slice(0, cut)}\\\n${token.slice(cut)}`,
      ]) {
        const out = redact(text);
        expect(out, `${kind}: ${text}`).not.toContain(tail(token));
        expect(out.split("\n").length).toBe(text.split("\n").length);
      }
    }
  });

  it("takes a token in base64, and each of many tokens in one text", () => {
    for (const [kind, token] of TOKENS) {
      const b64 = Buffer.from(`token: ${token}\n`).toString("base64");
      expect(redact(`echo ${b64} | base64 -d`), kind).not.toContain(b64.slice(8, 40));
    }
    const all = TOKENS.map(([, t]) => t).join("\n");
    const out = redact(all);
    for (const [kind, token] of TOKENS) expect(out, kind).not.toContain(tail(token));
  });

  it("leaves look-alikes in another case alone, as the rules always did (no rule takes them case-insensitively)", () => {
    for (const text of [
      `SK-ANT-API03-${body(40)}`,
      `GHP_${body(36)}`,
      `akiaqwertyuiop123456`,
      `Xoxb-1234567890-${body(24)}`,
    ]) {
      // Whatever another rule makes of them, the provider rule's marker is not it.
      expect(redact(text)).not.toMatch(/\[redacted (?:anthropic key|github token|aws key|slack token)\]/);
    }
  });
});
