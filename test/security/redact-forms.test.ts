// Secret forms users paste beyond the canary corpus: long tokens, command lines, headers, webhooks, key-named
// JSON values; and settings that only name secrets, which must survive.
import { describe, expect, it } from "vitest";

import { redact, redactDeep } from "../../src/text/redact.js";

const long = (n: number) => Array.from({ length: n }, (_, i) => "AbC9xYz+/q"[i % 10]).join("");

describe("redact: the forms users paste", () => {
  it("removes a long token whole, quoted or bare", () => {
    const token = long(720);
    for (const text of [
      `{"Credentials": {"SessionToken": "${token}", "Expiration": "2026-01-01"}}`,
      `export AWS_SESSION_TOKEN=${token}`,
      `aws_session_token = ${token}`,
      `Authorization: Bearer ${token}`,
    ]) {
      const out = redact(text);
      expect(out, text.slice(0, 40)).not.toContain(token.slice(0, 40));
      expect(out, text.slice(0, 40)).not.toContain(token.slice(-40));
    }
  });

  it("removes credentials from command lines, headers, webhooks and key files", () => {
    const cases: [string, string][] = [
      ["curl -u admin:Pz9qLx2mWv https://api.example.com", "Pz9qLx2mWv"],
      ["mysql -h db -u root -pQw8rTy5uIo app", "Qw8rTy5uIo"],
      ["docker login -u bot -p Hj4kL9mNb2 registry.example.com", "Hj4kL9mNb2"],
      ["Cookie: session=Gg5hJ8kLq1; theme=dark", "Gg5hJ8kLq1"],
      ["https://hooks.slack.com/services/T0001/B0002/Xy7zAb3cDe4fGh5i", "Xy7zAb3cDe4fGh5i"],
      ["https://discord.com/api/webhooks/123456789/Ab3dEf6hIj9kLm2nOp", "Ab3dEf6hIj9kLm2nOp"],
      ["SENDGRID=SG.Abcdefghij0123456789.Klmnopqrst0123456789uvwx", "Klmnopqrst0123456789"],
      ["DB_PASS=Vb6nM3qWe8", "Vb6nM3qWe8"],
      ["SMTP_PASS=Rt5yU7iOp2", "Rt5yU7iOp2"],
      ["_auth=Zm9vOmJhcjEyMzQ1Ng==", "Zm9vOmJhcjEyMzQ1Ng"],
      ["secret_key_base = 9f8e7d6c5b4a39281706f5e4d3c2b1a0ff", "9f8e7d6c5b4a39281706"],
      [
        "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQOYBGXyZ0gBCADdQ9k2\nabcdEFGH1234ijklMNOP\n-----END PGP PRIVATE KEY BLOCK-----",
        "lQOYBGXyZ0gBCADdQ9k2",
      ],
    ];
    for (const [text, secret] of cases) expect(redact(text), text).not.toContain(secret);
  });

  it("redacts the value of a secret-named key in structured input, whatever it looks like", () => {
    const out = redactDeep({ password: "Zq8vLmN2pQ", apiKey: "plainwords", user: "alice", max_tokens: 100 });
    expect(out).toEqual({ password: "[redacted]", apiKey: "[redacted]", user: "alice", max_tokens: 100 });
    // References and scheme names are not secrets.
    expect(redactDeep({ token: "$TOKEN", auth: "oauth2" })).toEqual({ token: "$TOKEN", auth: "oauth2" });
  });

  it("leaves settings that only name secrets alone", () => {
    const settings = [
      "PASSWORD_MIN_LENGTH=8",
      "TOKEN_EXPIRY=3600",
      "TOKEN_URL=https://auth.example.com/oauth/token",
      "USE_TOKEN=true",
      "        token: ${{ secrets.GITHUB_TOKEN }}",
      "bypass=true",
      "compass=north",
      "The tests pass: all 12 of them.",
      "docker run -u 1000:1000 --user www:www app",
      "ps -u root:wheel",
      "docker run --name mysql -p3306:3306 mysql:8",
      "mysql client notes: use -pretty flag",
      "const headers = { Cookie: `sid=${sid}` };",
      "The cookie: it stores a=b for the session",
      "I saw [redacted]foo and [redacted]-style markers",
      'token: "$TOKEN"',
      "git push -u origin main && sort -u names.txt",
    ].join("\n");
    expect(redact(settings)).toBe(settings);
  });

  it("keeps the sentence around a redacted value", () => {
    expect(redact("I used password=hunter2abc.")).toBe("I used password=[redacted].");
  });

  it("reads a megabyte of punctuation runs after secret names, and survives any nesting", () => {
    const hostile = "token=" + ")".repeat(499) + "x ";
    const text = hostile.repeat(Math.ceil(1_000_000 / hostile.length));
    expect(redact(text)).toContain("token=");
    let deep: unknown = { password: "Zq8vLmN2pQ" };
    for (let i = 0; i < 20_000; i++) deep = [deep];
    expect(() => redactDeep(deep)).not.toThrow();
    expect(JSON.stringify(redactDeep(deep)).length).toBeLessThan(1000);
  });
});
