// Team URLs in every form a user may paste (keyword/value strings, scheme-less `user:pw@host`, secrets in query
// parameters): the password never shows in what is displayed or in an error.
import { createServer, type Socket } from "node:net";

import { describe, expect, it } from "vitest";

import { connectTeam, displayUrl, scrubSecret } from "../../src/team/connect.js";
import { pushIfReachable, searchTeam, teamRecall } from "../../src/team/service.js";
import { freePort } from "../helpers/postgres.js";
import { developer } from "../team/helpers.js";

const SECRET = "Hunter2secret";

describe("team URL secrets", () => {
  it("masks the password in every URL form, displayed or in an error", async () => {
    const port = await freePort();
    const cases = [
      `host=db.example user=alice password=${SECRET} dbname=team`,
      `alice:${SECRET}@db.example:5432/team`,
      `postgres://alice@127.0.0.1:${port}/team?password=${SECRET}`,
      `postgres://alice@127.0.0.1:${port}/team?sslpassword=${SECRET}&sslmode=disable`,
      `postgres://alice@127.0.0.1:${port}/team?sslkey=${SECRET}&sslmode=disable`,
      `postgres://alice:${SECRET}@127.0.0.1:${port}/team`,
      `jdbc:postgresql://db/team?user=alice&password=${SECRET}`,
      `postgres://alice:${SECRET}@[bad`,
    ];
    for (const url of cases) {
      expect(displayUrl(url)).not.toContain(SECRET);
      expect(scrubSecret(`failed for ${url} with ${SECRET}`, url)).not.toContain(SECRET);
      const err = (await connectTeam(url, 2000).catch((e: unknown) => e)) as Error & { code: string };
      expect(err).toBeInstanceOf(Error);
      expect(err.message).not.toContain(SECRET);
    }
    expect(displayUrl(`postgres://alice@h/team?password=${SECRET}&sslmode=require`)).toBe(
      "postgres://alice@h/team?password=***&sslmode=require",
    );
  }, 30_000);

  it("a store that accepts connections but never answers is tried once, then not again for a minute", async () => {
    const sockets: Socket[] = [];
    const silent = createServer((s) => sockets.push(s));
    await new Promise<void>((r) => silent.listen(0, "127.0.0.1", () => r()));
    try {
      const port = (silent.address() as { port: number }).port;
      const dev = developer(`postgres://u:pw@127.0.0.1:${port}/team`, "ann");
      expect((await searchTeam(dev, "anything")).source).toBe("local copy");
      const tried = sockets.length;
      expect(tried).toBeGreaterThan(0);
      // Remembered as unreachable: the next calls fall back at once, without opening another connection.
      expect((await teamRecall(dev)).source).toBe("local copy");
      expect((await searchTeam(dev, "anything")).source).toBe("local copy");
      expect(await pushIfReachable(dev, { interactive: true })).toMatchObject({ offline: true });
      await new Promise((r) => setImmediate(r));
      expect(sockets.length).toBe(tried);
    } finally {
      for (const s of sockets) s.destroy();
      silent.close();
    }
  }, 30_000);
});
