// The published package on a clean machine: `npm pack`, then `npm install -g` of the tarball into an empty prefix
// gives a `memcards` that passes doctor, prints an init plan and answers tools/list over stdio. No network: the
// dependencies resolve through a loopback registry made from package-lock.json, their tarballs come from npm's
// cache, and better-sqlite3's addon from a local prebuild (see test/helpers/local-registry.ts).
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, realpathSync } from "node:fs";
import { join } from "node:path";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { repoRoot } from "../helpers/cli.js";
import { localPrebuilds, type LocalRegistry, startLocalRegistry } from "../helpers/local-registry.js";
import { tmpDir } from "../helpers/tmp.js";

const NPM = process.platform === "win32" ? "npm.cmd" : "npm";

/** The environment without the npm_* variables `npm test` sets (they would point npm at this project). */
function baseEnv(): Record<string, string> {
  return Object.fromEntries(
    Object.entries(process.env).filter(
      (e): e is [string, string] => e[1] !== undefined && !/^(npm_|MEMCARDS_)/i.test(e[0]),
    ),
  );
}

/** Runs npm without blocking the event loop (the registry answers from this process). */
function npm(args: string[], cwd: string, env: Record<string, string>): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(NPM, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString("utf8")));
    child.stderr.on("data", (d: Buffer) => (out += d.toString("utf8")));
    const timer = setTimeout(() => child.kill("SIGKILL"), 150_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    });
  });
}

describe("npm pack, then npm install -g of the tarball into an empty prefix", () => {
  let registry: LocalRegistry;
  let work: string;
  let memcards: string;
  let home: string;

  beforeAll(async () => {
    registry = await startLocalRegistry();
    work = realpathSync(tmpDir("memcards-pack-"));
    home = join(work, "home");
    mkdirSync(home);
  });
  afterAll(async () => {
    await registry?.close();
  });

  it("packs only what the package needs", () => {
    // dist/ is built before the suites run; --ignore-scripts keeps `prepare` from building it again.
    const r = spawnSync(NPM, ["pack", "--ignore-scripts", "--json", "--pack-destination", work], {
      cwd: repoRoot,
      env: baseEnv(),
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(r.status, r.stderr).toBe(0);
    const [info] = JSON.parse(r.stdout.slice(r.stdout.indexOf("["))) as {
      filename: string;
      files: { path: string }[];
    }[];
    const files = info!.files.map((f) => f.path);
    expect(files).toEqual(expect.arrayContaining(["dist/cli.js", "package.json", "README.md", "server.json"]));
    // Every migration beside the chunk that reads it: the bundle reads these, not dist/src's copies.
    const sql = (dir: string) => readdirSync(join(repoRoot, dir)).filter((f) => f.endsWith(".sql"));
    const local = sql("src/storage/migrations").map((f) => `dist/chunks/migrations/${f}`);
    const team = sql("src/storage/team/migrations").map((f) => `dist/chunks/team/migrations/${f}`);
    expect(local.length * team.length).toBeGreaterThan(0);
    expect(files).toEqual(expect.arrayContaining([...local, ...team]));
    expect(files).toEqual(expect.arrayContaining(["dist/chunks/worker.js", "dist/chunks/distill-worker.js"]));
    expect(files.filter((f) => /^(src|test|bench|fixtures|node_modules)\//.test(f))).toEqual([]);
    expect(readdirSync(work)).toContain(info!.filename);
  });

  it("installs into an empty prefix without the network and gives a working memcards", async () => {
    const tarball = readdirSync(work).find((f) => /^memcards-.*\.tgz$/.test(f));
    expect(tarball).toBeDefined();
    const prefix = join(work, "prefix");
    const prebuilds = localPrebuilds(join(work, "prebuilds"));
    const env = {
      ...baseEnv(),
      npm_config_better_sqlite3_local_prebuilds: prebuilds,
      // onnxruntime-node's postinstall would download optional GPU libraries.
      npm_config_onnxruntime_node_install: "skip",
      // Anything but the loopback registry goes to a dead proxy and fails instead of reaching the network.
      npm_config_proxy: "http://127.0.0.1:9",
      npm_config_https_proxy: "http://127.0.0.1:9",
      npm_config_noproxy: "127.0.0.1",
    };
    // npm's own cache, as the parent npm (or the user's config) names it: the tarballs are there.
    const cache = spawnSync(NPM, ["config", "get", "cache"], { cwd: repoRoot, encoding: "utf8", timeout: 30_000 });
    expect(cache.status, cache.stderr).toBe(0);
    const args = ["install", "-g", "--prefix", prefix, "--prefer-offline", "--cache", cache.stdout.trim()];
    args.push("--registry", `${registry.url}/`);
    const r = await npm([...args, "--no-audit", "--no-fund", join(work, tarball!)], work, env);
    expect(r.code, r.out.slice(-3000)).toBe(0);
    // Every tarball came from npm's cache: the registry was asked for metadata only.
    expect(registry.requested.filter((p) => p.endsWith(".tgz"))).toEqual([]);
    memcards = join(prefix, process.platform === "win32" ? "memcards.cmd" : join("bin", "memcards"));

    const runEnv = { ...baseEnv(), HOME: home, MEMCARDS_HOME: join(home, ".memcards") };
    const doctor = spawnSync(memcards, ["doctor", "--embedder", "offline"], {
      cwd: work,
      env: runEnv,
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(doctor.status, doctor.stdout + doctor.stderr).toBe(0);
    expect(doctor.stdout).toMatch(/^ok +better-sqlite3:/m);
    expect(doctor.stdout).toMatch(/^ok +fts5:/m);
    expect(doctor.stdout).toMatch(/^ok +sqlite-vec:/m);

    const init = spawnSync(memcards, ["init", "cursor", "--print", "--root", work], {
      cwd: work,
      env: runEnv,
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(init.status, init.stderr).toBe(0);
    expect(init.stdout).toContain(join(prefix, "lib", "node_modules", "memcards", "dist", "cli.js"));
  }, 180_000);

  it("answers tools/list over stdio from the installed copy", async () => {
    expect(memcards, "the install above must have passed").toBeDefined();
    const transport = new StdioClientTransport({
      command: memcards,
      args: ["serve", "--root", work, "--embedder", "offline"],
      env: { ...baseEnv(), HOME: home, MEMCARDS_HOME: join(home, ".memcards") },
      stderr: "pipe",
    });
    const client = new Client({ name: "package-test", version: "1.0.0" });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(
        expect.arrayContaining(["get_memory_cards", "compress_context", "build_context_graph", "status"]),
      );
      expect(client.getServerVersion()?.name).toBe("memcards");
    } finally {
      await client.close();
    }
  });
});
