// Redaction on its own: every kind of the canary corpus is caught, the negatives survive verbatim, it is
// idempotent, keeps line counts, and stays linear on hostile input.
import { describe, expect, it } from "vitest";

import { redact, redactDeep, redactJson } from "../../src/text/redact.js";
import { canariesIn, corpus } from "./canaries.js";

describe("redact", () => {
  it("catches every kind of secret in the corpus (recall 100%)", () => {
    expect(corpus.canaries.length).toBeGreaterThanOrEqual(18);
    const missed = corpus.canaries.filter((c) => canariesIn(redact(c.text)).length > 0).map((c) => c.kind);
    expect(missed).toEqual([]);
  });

  it("leaves the negatives verbatim (precision on the corpus negatives)", () => {
    const changed = corpus.negatives.filter((n) => redact(n) !== n);
    expect(changed).toEqual([]);
    // The same negatives embedded in prose and code survive too.
    const prose = corpus.negatives.map((n) => `see ${n} here`).join("\n");
    expect(redact(prose)).toBe(prose);
  });

  it("keeps the line around a secret: only the value goes", () => {
    expect(redact("I logged in with password=hunter2abc and it worked")).toBe(
      "I logged in with password=[redacted] and it worked",
    );
    expect(redact("    API_TOKEN=abc123secret")).toBe("    API_TOKEN=[redacted]");
    expect(redact("GET /items?page=2&token=Zq81xx&sort=asc")).toBe("GET /items?page=2&token=[redacted]&sort=asc");
    expect(redact("redis://:pw9secret@cache:6379/0")).toBe("redis://:[redacted]@cache:6379/0");
    expect(redact("mongodb+srv://svc:p4ss@cluster0.example.net/db")).toBe(
      "mongodb+srv://svc:[redacted]@cluster0.example.net/db",
    );
    expect(redact("Authorization: Bearer abcdef0123456789")).toBe("Authorization: Bearer [redacted]");
    expect(redact('{"password": "hunter2x"}')).toBe('{"password": "[redacted]"}');
    // Inside a JSON string (a transcript line, a tool input): escaped quotes stay escaped.
    expect(redact(String.raw`{"t":"{\"client_secret\": \"82ZsTSYN\"}"}`)).toBe(
      String.raw`{"t":"{\"client_secret\": \"[redacted]\"}"}`,
    );
    expect(redact(String.raw`"echo 'export STRIPE_SECRET=\"S8A2GY4bIjB\"'"`)).toBe(
      String.raw`"echo 'export STRIPE_SECRET=\"[redacted]\"'"`,
    );
  });

  it("leaves code that only names secrets alone", () => {
    const code = [
      "def password_reset_view(request):",
      "    token = request.GET.get('token')",
      "    password: str = form.cleaned_data['password']",
      "export function sign(secret: Buffer, token?: string): string {",
      "const apiKey = process.env.API_KEY;",
      "max_tokens = 4096",
      "password=password",
      "API_TOKEN=${OTHER_TOKEN}",
      "const token = extra._meta?.progressToken;",
      "/** Features of a token: its word hash and its trigrams. */",
      "refusing to serve without a token: bind to 127.0.0.1",
      'log("clients must send Authorization: Bearer <token>")',
      "// Authorization: Bearer …, Basic …",
    ].join("\n");
    expect(redact(code)).toBe(code);
  });

  it("is idempotent and keeps the number of lines (private key blocks included)", () => {
    const once = redact(corpus.canaries.map((c) => c.text).join("\n"));
    expect(redact(once)).toBe(once);
    for (const c of corpus.canaries) expect(redact(c.text).split("\n").length).toBe(c.text.split("\n").length);
    const cut = "x\n-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\nAoIBAQC7\n";
    expect(redact(cut)).not.toContain("MIIEvQIBADANBgkqhkiG9w0BAQEFAASC");
    expect(redact(cut).split("\n").length).toBe(cut.split("\n").length);
  });

  it("redacts every string inside JSON and keeps it valid", () => {
    const c = corpus.canaries.find((x) => x.kind === "token= mid-line")!;
    const json = JSON.stringify({ a: [c.text, 1, null], b: { c: `x"y\\z ${c.text}` } });
    const out = redactJson(json);
    expect(() => JSON.parse(out) as unknown).not.toThrow();
    expect(canariesIn(out)).toEqual([]);
    expect(redactDeep({ n: 3, s: c.text }).n).toBe(3);
    expect(redactJson(`not json ${c.text}`)).not.toContain(c.canary);
  });

  it("reads hostile 1 MB inputs to the end and leaves no canary", () => {
    const mb = 1 << 20;
    const hostile = [
      "a".repeat(mb),
      "<private>".repeat(mb / 9),
      "-----BEGIN PRIVATE KEY-----".repeat(mb / 27),
      "eyJ-".repeat(mb / 4),
      "eyJabcdefghij.".repeat(mb / 14),
      "a://b:".repeat(mb / 6),
      "password=".repeat(mb / 9),
      "password" + " ".repeat(mb),
      "Authorization: ".repeat(mb / 15),
      "Bearer ".repeat(mb / 7),
      "sk-".repeat(mb / 3),
      "Ab1/".repeat(mb / 4),
      "API_TOKEN".repeat(mb / 9),
      'password="'.repeat(mb / 10),
      'password=\\"'.repeat(mb / 11),
      'password="' + "x\\".repeat(mb / 2),
      "\n".repeat(mb),
      "x".repeat(40) + " ".repeat(mb),
    ];
    // A quadratic pattern would not return on a megabyte within the test's hang guard; speed belongs in benchmarks.
    for (const h of hostile) expect(redact(h).length, JSON.stringify(h.slice(0, 20))).toBeGreaterThan(0);
    const prose = corpus.canaries.map((c) => c.text).join("\n") + "\n";
    const big = prose.repeat(Math.ceil(mb / prose.length));
    expect(canariesIn(redact(big))).toEqual([]);
  });
});
