// Where a hook looks for its worker: one place per user folder, build and Node, named without the crypto module.
import { writeFileSync } from "node:fs";
import { join } from "node:path";

import { describe, expect, it } from "vitest";

import { placeKey, workerPlace } from "../../src/integrate/worker-client.js";
import { tmpDir } from "../helpers/tmp.js";

describe("the worker's place", () => {
  it("is the same for the same user folder and build, and another for another build or user folder", () => {
    const home = tmpDir();
    const cli = join(tmpDir(), "cli.js");
    writeFileSync(cli, "");
    const env = { HOME: home };
    const a = workerPlace(env, cli);
    expect(workerPlace({ ...env }, cli)).toEqual(a);
    expect(a.socket).toMatch(/hooks-[0-9a-f]{16}\.sock$/);
    expect(a.token.replace(/\.token$/, "")).toBe(a.socket.replace(/\.sock$/, ""));
    expect(workerPlace({ HOME: tmpDir() }, cli).socket).not.toBe(a.socket);
    const other = join(tmpDir(), "cli.js");
    writeFileSync(other, "");
    expect(workerPlace(env, other).socket).not.toBe(a.socket);
  });

  it("keys differ for inputs a byte apart and are 16 hex digits", () => {
    const keys = new Set(["", "a", "b", "ab", "ba", "é", "/home/u/.memcards", "/home/u/.memcardt"].map(placeKey));
    expect(keys.size).toBe(8);
    for (const k of keys) expect(k).toMatch(/^[0-9a-f]{16}$/);
  });
});
