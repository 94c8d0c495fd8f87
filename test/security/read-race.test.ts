// Checked, then read: a file swapped between a regular file and a link to an outside file, over and over, while
// memcards reads it (a transcript through compress_context and the confined reader, a repository file through the
// scan and the indexer's re-read). Whatever is read is read from the descriptor that was checked, so the outside
// file's text is never read. A hard link to an outside file is refused (transcripts) or skipped and counted (index).
import { type ChildProcess, spawn } from "node:child_process";
import { linkSync, mkdirSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";

import { describe, expect, it } from "vitest";

import { readInsideRoot, rereadScanned, scanRepo } from "../../src/repo/scan.js";
import { confinedReader } from "../../src/transcript/formats/source.js";
import { connect, textOf } from "../helpers/mcp.js";
import { tmpDir } from "../helpers/tmp.js";

const SECRET = "OUTSIDE-SECRET-93b1";
const aider = (question: string) =>
  `# aider chat started at 2024-01-01 10:00:00\n\n#### ${question}\n\nAn answer to it.\n\n#### And then?\n\nDone.\n`;

/** Bounds of the swapping loop: whichever comes first. */
const MAX_SWAPS = 20_000;
const MAX_SWAP_MS = 2_000;

/**
 * A child process that swaps `target` between a copy of `inside` and a link to `outside` (each by an atomic
 * rename), at most MAX_SWAPS times and for at most MAX_SWAP_MS; it prints how many swaps it made.
 */
function swapper(target: string, inside: string, outside: string): { child: ChildProcess; done: Promise<number> } {
  const script = `
    const fs = require("node:fs");
    const [target, inside, outside, maxSwaps, maxMs] = process.argv.slice(1);
    const t0 = Date.now();
    let i = 0;
    for (; i < Number(maxSwaps) && Date.now() - t0 < Number(maxMs); i++) {
      fs.rmSync(target + ".l", { force: true });
      fs.symlinkSync(outside, target + ".l");
      fs.renameSync(target + ".l", target);
      fs.copyFileSync(inside, target + ".f");
      fs.renameSync(target + ".f", target);
    }
    process.stdout.write(String(i));`;
  const child = spawn(process.execPath, [
    "-e",
    script,
    target,
    inside,
    outside,
    String(MAX_SWAPS),
    String(MAX_SWAP_MS),
  ]);
  let out = "";
  child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
  const done = new Promise<number>((resolve) => child.on("exit", () => resolve(Number(out))));
  return { child, done };
}

/** Calls `read` until the swapper is done (it is bounded), yielding now and then; the outcomes, by kind. */
async function raceReads(
  target: string,
  inside: string,
  outside: string,
  read: () => string | undefined,
): Promise<{ swaps: number; reads: string[]; refused: number }> {
  const s = swapper(target, inside, outside);
  let finished = false;
  void s.done.then(() => (finished = true));
  const reads: string[] = [];
  let refused = 0;
  while (!finished) {
    for (let i = 0; i < 20; i++) {
      try {
        const text = read();
        if (text === undefined) refused++;
        else reads.push(text);
      } catch {
        refused++;
      }
    }
    await new Promise((r) => setImmediate(r));
  }
  return { swaps: await s.done, reads, refused };
}

function layout() {
  const base = realpathSync(tmpDir("memcards-race-"));
  const root = join(base, "project");
  const outside = join(base, "outside");
  mkdirSync(root);
  mkdirSync(outside);
  writeFileSync(join(outside, "secret.md"), aider(`What is ${SECRET}?`));
  writeFileSync(join(base, "inside.md"), aider("INSIDE-CHAT-QUESTION"));
  writeFileSync(join(root, "chat.md"), aider("INSIDE-CHAT-QUESTION"));
  return { base, root, outside, secret: join(outside, "secret.md"), inside: join(base, "inside.md") };
}

describe("a file swapped with a link while it is read", () => {
  it("the confined transcript reader never returns the outside file", async () => {
    const l = layout();
    const target = join(l.root, "chat.md");
    const read = confinedReader({ root: l.root, roots: [], home: tmpDir() });
    const r = await raceReads(target, l.inside, l.secret, () => read(target).data.toString("utf8"));
    expect(r.swaps).toBeGreaterThan(0);
    expect(r.swaps).toBeLessThanOrEqual(MAX_SWAPS);
    expect(r.reads.length, "the inside file was read between swaps").toBeGreaterThan(0);
    expect(r.reads.filter((t) => t.includes(SECRET))).toEqual([]);
  });

  it("compress_context over MCP never summarizes the outside transcript", async () => {
    const l = layout();
    const target = join(l.root, "chat.md");
    const home = tmpDir();
    const c = await connect({
      flags: { root: l.root, db: join(tmpDir(), "race.db"), embedder: "offline" },
      env: { MEMCARDS_HOME: home, HOME: home },
    });
    try {
      const s = swapper(target, l.inside, l.secret);
      let finished = false;
      void s.done.then(() => (finished = true));
      const texts: string[] = [];
      for (let i = 0; i < 150 && !finished; i++) {
        const res = await c.client.callTool({
          name: "compress_context",
          arguments: { transcript_path: target, session_id: `race-${i}` },
        });
        texts.push(textOf(res));
      }
      expect(await s.done).toBeGreaterThan(0);
      expect(texts.length).toBeGreaterThan(0);
      expect(texts.filter((t) => t.includes(SECRET))).toEqual([]);
    } finally {
      await c.close();
    }
  });

  it("the scan and the indexer's reads never return the outside file", async () => {
    const l = layout();
    mkdirSync(join(l.root, "src"));
    const target = join(l.root, "src", "notes.md");
    writeFileSync(target, "# notes\n\nINSIDE-NOTES\n");
    writeFileSync(l.inside, "# notes\n\nINSIDE-NOTES\n");
    const scanned = scanRepo(l.root, { useGit: false, withContent: true }).files.find(
      (f) => f.path === "src/notes.md",
    )!;
    const viaScan = await raceReads(target, l.inside, l.secret, () => {
      const f = scanRepo(l.root, { useGit: false, withContent: true }).files.find((x) => x.path === "src/notes.md");
      return f?.content;
    });
    const viaRoot = await raceReads(target, l.inside, l.secret, () => readInsideRoot(l.root, "src/notes.md"));
    const viaReread = await raceReads(target, l.inside, l.secret, () => rereadScanned(target, scanned.hash));
    for (const r of [viaScan, viaRoot, viaReread]) {
      expect(r.swaps).toBeGreaterThan(0);
      expect(r.reads.length).toBeGreaterThan(0);
      expect(r.reads.filter((t) => t.includes(SECRET))).toEqual([]);
    }
  });
});

describe("a hard link to an outside file", () => {
  it("is refused as a transcript and skipped and counted by the scan", async () => {
    const l = layout();
    linkSync(l.secret, join(l.root, "hard.md"));
    const read = confinedReader({ root: l.root, roots: [], home: tmpDir() });
    expect(() => read(join(l.root, "hard.md"))).toThrow(/hard links/);
    const scan = scanRepo(l.root, { useGit: false, withContent: true });
    expect(scan.skipped["hard-link"]).toBe(1);
    expect(scan.files.map((f) => f.path)).toEqual(["chat.md"]);
    expect(readInsideRoot(l.root, "hard.md")).toBeUndefined();
    const home = tmpDir();
    const c = await connect({
      flags: { root: l.root, db: join(tmpDir(), "hard.db"), embedder: "offline" },
      env: { MEMCARDS_HOME: home, HOME: home },
    });
    try {
      const res = await c.client.callTool({ name: "compress_context", arguments: { transcript_path: "hard.md" } });
      expect(res.isError).toBe(true);
      expect(textOf(res)).toMatch(/hard links/);
      expect(textOf(res)).not.toContain(SECRET);
    } finally {
      await c.close();
    }
  });
});
