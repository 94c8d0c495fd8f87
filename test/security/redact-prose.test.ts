// Secrets written into sentences and command lines: a password's plain-word value in prose, `api key:` with a
// space, `the password is X`, backquoted values, `--password X`, `?key=` in URLs; the prose around them and
// sentences that only talk about secrets stay; every new rule runs in linear time on hostile input.
import { describe, expect, it } from "vitest";

import { redact } from "../../src/text/redact.js";

describe("redact: secrets inside sentences", () => {
  it("removes the value and keeps the sentence", () => {
    const cases: [string, string, string][] = [
      ["The database password: letmeinplease must stay out of the logs.", "letmeinplease", "must stay out"],
      ["my password is Hunter2024x for the db", "Hunter2024x", "for the db"],
      ["Use the api key: Zx81kLmQ in prod", "Zx81kLmQ", "in prod"],
      ["set PASSWORD to Tr0ub4dor99 please", "Tr0ub4dor99", "please"],
      ["the password: `Qw7zP0x`", "Qw7zP0x", "the password"],
      ["with passphrase: cb12xZ90q", "cb12xZ90q", "with passphrase"],
      ["./deploy --password Pq82nDk1 --token Ty71mWb3 now", "Pq82nDk1", "now"],
      ["./deploy --token Ty71mWb3", "Ty71mWb3", "./deploy --token"],
      ["GET https://maps.example.com/api?key=Az91Bc72De&z=3", "Az91Bc72De", "&z=3"],
      ["signed https://s3.example.com/o?X-Amz-Signature=ab12cd34ef56&x=1", "ab12cd34ef56", "&x=1"],
    ];
    for (const [text, secret, kept] of cases) {
      const out = redact(text);
      expect(out, text).not.toContain(secret);
      expect(out, text).toContain("[redacted]");
      expect(out, text).toContain(kept);
    }
  });

  it("leaves sentences that only talk about secrets", () => {
    for (const text of [
      "the token is expired, so reset your password: enter it again",
      "Reset your password: required before login",
      "the secret is out",
      "a token: its hash",
      "the api key: see the dashboard",
      "run with --token $TOKEN or --password-stdin",
      "https://example.com/search?key=abc&page=2",
      "the password is longer than twelve characters",
    ])
      expect(redact(text), text).toBe(text);
  });

  it("reads a megabyte of hostile repetitions of the new forms to the end", () => {
    for (const unit of ["password is ", "--token ", "?key=", "api key: ", "password: `", "token to a"]) {
      const text = unit.repeat(Math.ceil(1_000_000 / unit.length));
      expect(redact(text).length, unit).toBeGreaterThan(0);
    }
  });
});
