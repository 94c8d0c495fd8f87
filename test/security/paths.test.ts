// Hostile paths through a real MCP client: every path a tool reads stays inside the project root, the client's
// roots or the agents' transcript folders, judged on the real path, and no error quotes what a file holds.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

import { describe, expect, it } from "vitest";

import { createApp } from "../../src/app.js";
import type { ConfigFlags } from "../../src/config.js";
import { resolveConfig } from "../../src/config.js";
import { silentLogger } from "../../src/log.js";
import { resolveProjectRoot } from "../../src/project/root.js";
import { touchSession } from "../../src/storage/projects.js";
import { runCli } from "../helpers/cli.js";
import { connect, textOf } from "../helpers/mcp.js";
import { tmpDir } from "../helpers/tmp.js";

const SECRET = "TOPSECRET-7f3a";
const aider = (question: string) =>
  `# aider chat started at 2024-01-01 10:00:00\n\n#### ${question}\n\nAn answer to it.\n\n#### And then?\n\nDone.\n`;

/** A project beside an `outside` folder holding a secret, and an `other` folder a client may offer as a root. */
function layout() {
  const base = realpathSync(tmpDir("memcards-sec-"));
  const project = join(base, "project");
  const outside = join(base, "outside");
  const other = join(base, "other");
  for (const d of [project, outside, other]) mkdirSync(d);
  execFileSync("git", ["init", "-q", project]);
  writeFileSync(join(outside, "secret.md"), aider(`What is ${SECRET}?`));
  writeFileSync(join(other, "chat.md"), aider("OTHER-ROOT-CHAT"));
  writeFileSync(join(project, "notes.md"), aider("INSIDE-PROJECT-CHAT"));
  symlinkSync(join(outside, "secret.md"), join(project, "link-out.md"));
  symlinkSync(join(project, "notes.md"), join(project, "link-in.md"));
  symlinkSync(outside, join(project, "linkdir"));
  return { base, project, outside, other, home: tmpDir() };
}

type Layout = ReturnType<typeof layout>;

interface Setup {
  name: string;
  flags: (l: Layout) => ConfigFlags;
  roots: (l: Layout) => string[] | undefined;
  cwd: (l: Layout) => string;
  /** Whether `other` (offered as a client root) may be read. */
  otherAllowed: boolean;
}

const SETUPS: Setup[] = [
  {
    name: "--root, no client roots",
    flags: (l) => ({ root: l.project }),
    roots: () => undefined,
    cwd: () => "/",
    otherAllowed: false,
  },
  {
    name: "client roots, no --root",
    flags: () => ({}),
    roots: (l) => [l.project],
    cwd: () => "/",
    otherAllowed: false,
  },
  {
    name: "no roots at all (git root from cwd)",
    flags: () => ({}),
    roots: () => undefined,
    cwd: (l) => l.project,
    otherAllowed: false,
  },
  {
    name: "--root and client roots",
    flags: (l) => ({ root: l.project }),
    roots: (l) => [l.other],
    cwd: () => "/",
    otherAllowed: true,
  },
];

async function open(l: Layout, s: Setup) {
  const roots = s.roots(l);
  return connect({
    flags: { ...s.flags(l), embedder: "offline" },
    env: { MEMCARDS_HOME: l.home },
    cwd: s.cwd(l),
    ...(roots ? { roots: roots.map((r) => pathToFileURL(r).href) } : {}),
  });
}

describe.each(SETUPS)("compress_context with $name", (setup) => {
  it("refuses every escape, reads what lies inside, and never shows the secret", async () => {
    const l = layout();
    const c = await open(l, setup);
    const compress = (path: string) =>
      c.client.callTool({
        name: "compress_context",
        arguments: { transcript_path: path, format: "aider-md", route: "deterministic" },
      });
    try {
      const refused: [string, string][] = [
        [join(l.outside, "secret.md"), "an absolute path outside"],
        ["../outside/secret.md", "a .. traversal"],
        ["link-out.md", "an in-root symlink to an outside file"],
        ["linkdir/secret.md", "a file under a symlinked directory"],
        ["linkdir/absent.md", "a missing file under a symlinked directory (no existence oracle)"],
      ];
      for (const [path, what] of refused) {
        const r = await compress(path);
        expect(r.isError, what).toBe(true);
        expect(textOf(r), what).toMatch(/^OUTSIDE_ROOTS: \/.* lies outside what memcards may read: the project root /);
        expect(textOf(r), what).toContain(l.project);
        expect(textOf(r), what).not.toContain(SECRET);
      }
      expect(textOf(await compress("link-out.md"))).toContain(`resolves to ${join(l.outside, "secret.md")}`);

      const missing = await compress("absent.md");
      expect(textOf(missing)).toBe(`NOT_FOUND: transcript not found: ${join(l.project, "absent.md")}`);

      for (const path of ["notes.md", join(l.project, "notes.md"), "link-in.md"]) {
        const r = await compress(path);
        expect(r.isError, `${path}: ${textOf(r)}`).toBeFalsy();
        expect(textOf(r)).toContain("INSIDE-PROJECT-CHAT");
      }
      const other = await compress(join(l.other, "chat.md"));
      if (setup.otherAllowed) expect(textOf(other)).toContain("OTHER-ROOT-CHAT");
      else expect(textOf(other)).toMatch(/^OUTSIDE_ROOTS: /);
    } finally {
      await c.close();
    }
  });
});

describe("paths that reach compress_context another way", () => {
  it("a session whose recorded transcript lies outside is refused too", async () => {
    const l = layout();
    const config = resolveConfig({ root: l.project, embedder: "offline" }, { MEMCARDS_HOME: l.home });
    const location = resolveProjectRoot({ explicit: l.project, cwd: l.project, userDir: config.userDir });
    const app = createApp(config, location, silentLogger);
    touchSession(app.db, app.project.id, "s-evil", { transcriptPath: join(l.outside, "secret.md") });
    await app.close();
    const c = await open(l, SETUPS[0]!);
    try {
      const r = await c.client.callTool({
        name: "compress_context",
        arguments: { session_id: "s-evil", format: "aider-md" },
      });
      expect(textOf(r)).toMatch(/^OUTSIDE_ROOTS: .*outside\/secret\.md lies outside/);
      expect(textOf(r)).not.toContain(SECRET);
    } finally {
      await c.close();
    }
  });

  it("a malformed transcript's error names the format, the file and the place, not its bytes", async () => {
    const l = layout();
    const file = join(l.project, "chat.json");
    writeFileSync(file, `[\n  {"role": "user", "content": "${SECRET}"},\n  {"role": "assistant" "content": "x"}\n]\n`);
    const swe = join(l.project, "run.traj");
    writeFileSync(swe, `{"history": [${SECRET}]}`);
    const c = await open(l, SETUPS[0]!);
    try {
      const bad = await c.client.callTool({ name: "compress_context", arguments: { transcript_path: "chat.json" } });
      expect(textOf(bad)).toBe(
        `UNKNOWN_FORMAT: cannot read ${file} as messages-json: JSON messages: not valid JSON at line 3, column 24`,
      );
      const cut = await c.client.callTool({
        name: "compress_context",
        arguments: { transcript_path: "run.traj" },
      });
      expect(textOf(cut)).toMatch(/^UNKNOWN_FORMAT: cannot read .*run\.traj as swe-agent-traj: .* line 1, column 14$/);
      expect(textOf(cut)).not.toContain(SECRET);
    } finally {
      await c.close();
    }
  });
});

/** The store file and its write-ahead log as text: nodes, the lexical index and vector sources all live there. */
function storeBytes(db: string): string {
  return [db, `${db}-wal`]
    .filter((f) => existsSync(f))
    .map((f) => readFileSync(f).toString("latin1"))
    .join("\n");
}

describe("build_context_graph and the path-taking graph tools", () => {
  it.each([
    ["a git work tree", true],
    ["a plain folder", false],
  ])("in %s, skip and count file symlinks leaving the project and never store their content", async (_, git) => {
    const base = realpathSync(tmpDir("memcards-sec-"));
    const project = join(base, "project");
    const outside = join(base, "outside");
    mkdirSync(project);
    mkdirSync(outside);
    if (git) execFileSync("git", ["init", "-q", project]);
    writeFileSync(join(outside, "secret.py"), `def leaked_secret():\n    return "${SECRET}"\n`);
    writeFileSync(join(project, "real.py"), "def real_function():\n    return 1\n");
    symlinkSync(join(outside, "secret.py"), join(project, "link-secret.py"));
    symlinkSync("../outside/secret.py", join(project, "relative-secret.py"));
    symlinkSync(join(project, "real.py"), join(project, "alias.py"));
    symlinkSync(outside, join(project, "outdir"));
    const home = tmpDir();
    const db = join(project, ".memcards", "memcards.db");
    const c = await connect({ flags: { root: project, embedder: "offline" }, env: { MEMCARDS_HOME: home } });
    try {
      const built = await c.client.callTool({ name: "build_context_graph", arguments: {} });
      expect(built.isError, textOf(built)).toBeFalsy();
      const s = built.structuredContent as { skipped: Record<string, number>; files: { parsed: number } };
      // Both file links leave the project; the directory link is skipped as a link (walk) or leaves too (git).
      expect(s.skipped["symlink-outside"]).toBe(git ? 3 : 2);
      expect(s.files.parsed).toBe(2); // real.py and alias.py, a link that stays inside
      expect(textOf(built)).toContain("symlink-outside");

      const alias = await c.client.callTool({ name: "graph_neighbors", arguments: { ref: "alias.py" } });
      expect(alias.isError, textOf(alias)).toBeFalsy();
      for (const ref of ["link-secret.py", "../outside/secret.py", join(outside, "secret.py"), "leaked_secret"]) {
        const r = await c.client.callTool({ name: "graph_neighbors", arguments: { ref } });
        expect(r.isError, ref).toBe(true);
        expect(textOf(r)).not.toContain(SECRET);
      }
      const cards = await c.client.callTool({
        name: "get_memory_cards",
        arguments: { task: "the secret function returns the wrong value", files: ["../outside/secret.py", outside] },
      });
      expect(textOf(cards)).not.toContain(SECRET);
      expect(textOf(cards)).not.toContain("leaked_secret()");
    } finally {
      await c.close();
    }
    // Nodes, the lexical index and the vectors' source all live in these files.
    const stored = storeBytes(db);
    expect(stored).toContain("real_function");
    for (const leak of [SECRET, "leaked_secret", join(outside, "secret.py"), "../outside/secret.py"])
      expect(stored).not.toContain(leak);
  });

  it("a tracked folder replaced by a link to outside: git still lists its files, none is read", async () => {
    const base = realpathSync(tmpDir("memcards-sec-"));
    const project = join(base, "project");
    const outside = join(base, "outside");
    mkdirSync(join(project, "sub"), { recursive: true });
    mkdirSync(outside);
    const git = (...args: string[]) => execFileSync("git", ["-C", project, ...args], { stdio: "ignore" });
    git("init", "-q");
    writeFileSync(join(project, "sub", "secret.py"), "def tracked():\n    return 1\n");
    writeFileSync(join(project, "real.py"), "def real_function():\n    return 1\n");
    git("add", "-A");
    git("-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "init");
    writeFileSync(join(outside, "secret.py"), `def leaked_secret():\n    return "${SECRET}"\n`);
    rmSync(join(project, "sub"), { recursive: true });
    symlinkSync(outside, join(project, "sub"));
    const db = join(project, ".memcards", "memcards.db");
    const c = await connect({ flags: { root: project, embedder: "offline" }, env: { MEMCARDS_HOME: tmpDir() } });
    try {
      const built = await c.client.callTool({ name: "build_context_graph", arguments: { lexical_only: true } });
      expect(built.isError, textOf(built)).toBeFalsy();
      const s = built.structuredContent as { skipped: Record<string, number>; files: { parsed: number } };
      expect(s.skipped["symlink-outside"], JSON.stringify(s)).toBeGreaterThanOrEqual(1);
      expect(s.files.parsed, textOf(built)).toBe(1);
    } finally {
      await c.close();
    }
    const stored = storeBytes(db);
    expect(stored).toContain("real_function");
    for (const leak of [SECRET, "leaked_secret"]) expect(stored).not.toContain(leak);
  });
});

describe("what may never be a root", () => {
  it("a client root of file:/// or a system folder widens nothing: /etc/passwd stays outside", async () => {
    const l = layout();
    for (const roots of [["file:///"], ["file:///etc"], ["file:///", pathToFileURL(l.project).href]]) {
      const c = await connect({
        flags: { db: join(tmpDir(), "roots.db"), embedder: "offline" },
        env: { MEMCARDS_HOME: tmpDir(), HOME: l.home },
        roots,
      });
      try {
        for (const path of ["/etc/passwd", join(l.outside, "secret.md")]) {
          const r = await c.client.callTool({ name: "compress_context", arguments: { transcript_path: path } });
          expect(r.isError, `${roots.join(" ")} ${path}`).toBe(true);
          expect(textOf(r)).toMatch(/^OUTSIDE_ROOTS: /);
          expect(textOf(r)).not.toContain(SECRET);
        }
        const status = await c.client.callTool({ name: "status", arguments: {} });
        expect((status.structuredContent as { root: string }).root).not.toMatch(/^\/(etc)?$/);
      } finally {
        await c.close();
      }
    }
  });

  it("--root / and MEMCARDS_ROOT=/ are refused with SYSTEM_FOLDER and create nothing", () => {
    const home = tmpDir();
    const before = existsSync("/.memcards");
    for (const [args, env] of [
      [["--root", "/", "status"], {}],
      [["status"], { MEMCARDS_ROOT: "/" }],
      [["--root", "/usr/share", "index", "--lexical-only"], {}],
    ] as const) {
      const r = runCli([...args], { env: { HOME: home, MEMCARDS_HOME: home, ...env }, cwd: home });
      expect(r.code, args.join(" ")).toBe(1);
      expect(r.stderr).toMatch(/^memcards: SYSTEM_FOLDER: .* cannot be a project root/m);
    }
    expect(existsSync("/.memcards")).toBe(before);
    expect(() => resolveProjectRoot({ explicit: "/", cwd: "/", userDir: home })).toThrow(
      /SYSTEM_FOLDER|cannot be a project root/,
    );
    expect(resolveProjectRoot({ mcpRoots: ["file:///"], cwd: home, userDir: home }).source).not.toBe("mcp-roots");
  });
});
