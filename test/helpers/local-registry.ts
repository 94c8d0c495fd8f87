// A read-only npm registry on 127.0.0.1 built from package-lock.json and the installed manifests, so that
// `npm install` of the packed tarball resolves every dependency without the network: npm takes the tarballs from
// its own cache by the lockfile's integrity (the registry serves metadata only), as `npm ci` left them there.
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";

import { repoRoot } from "./cli.js";

interface LockEntry {
  name?: string;
  version?: string;
  integrity?: string;
  link?: boolean;
  [field: string]: unknown;
}

/** Manifest fields npm needs to resolve and install a version (scripts come from the installed package.json). */
const FIELDS = [
  "dependencies",
  "optionalDependencies",
  "peerDependencies",
  "peerDependenciesMeta",
  "bin",
  "engines",
  "os",
  "cpu",
  "libc",
  "license",
];

type Packument = {
  name: string;
  "dist-tags": Record<string, string>;
  versions: Record<string, Record<string, unknown>>;
};

/** One packument per package name, every version the lockfile holds; tarball URLs under `base`. */
export function packuments(base: string): Map<string, Packument> {
  const lock = JSON.parse(readFileSync(join(repoRoot, "package-lock.json"), "utf8")) as {
    packages: Record<string, LockEntry>;
  };
  const docs = new Map<string, Packument>();
  for (const [path, entry] of Object.entries(lock.packages)) {
    if (!path || entry.link || !entry.integrity || !entry.version) continue;
    const name = entry.name ?? path.slice(path.lastIndexOf("node_modules/") + "node_modules/".length);
    const doc = docs.get(name) ?? { name, "dist-tags": {}, versions: {} };
    const version: Record<string, unknown> = { name, version: entry.version };
    for (const f of FIELDS) if (entry[f] !== undefined) version[f] = entry[f];
    // npm runs the install scripts the registry's manifest names (without one, `node-gyp rebuild` for addons).
    const installed = join(repoRoot, path, "package.json");
    if (existsSync(installed)) {
      const pj = JSON.parse(readFileSync(installed, "utf8")) as { scripts?: unknown; gypfile?: unknown };
      if (pj.scripts) version.scripts = pj.scripts;
      if (pj.gypfile !== undefined) version.gypfile = pj.gypfile;
    }
    if (entry.hasInstallScript) version.hasInstallScript = true;
    version.dist = {
      integrity: entry.integrity,
      tarball: `${base}/${name}/-/${name.split("/").pop()}-${entry.version}.tgz`,
    };
    doc.versions[entry.version] = version;
    doc["dist-tags"].latest = entry.version;
    docs.set(name, doc);
  }
  return docs;
}

export interface LocalRegistry {
  url: string;
  /** Paths requested, in order (a tarball among them means npm's cache lacked it). */
  requested: string[];
  close(): Promise<void>;
}

/** Starts the registry on a free loopback port (a fresh port per run, so npm's cached metadata never applies). */
export async function startLocalRegistry(): Promise<LocalRegistry> {
  const requested: string[] = [];
  let docs = new Map<string, Packument>();
  const server: Server = createServer((req, res) => {
    const path = req.url ?? "/";
    requested.push(path);
    const doc = docs.get(decodeURIComponent(path.slice(1)));
    if (!doc) {
      res.writeHead(404, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: `not in package-lock.json (or a tarball missing from npm's cache): ${path}` }));
      return;
    }
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify(doc));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  docs = packuments(url);
  return {
    url,
    requested,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * better-sqlite3's prebuilt addon for this platform, packed the way its GitHub releases ship it, in `dir`: its
 * install script (prebuild-install) takes it from there (`npm_config_better_sqlite3_local_prebuilds`) instead of
 * downloading one. Made from the addon the development install already has. Returns `dir`.
 */
export function localPrebuilds(dir: string): string {
  const pj = JSON.parse(readFileSync(join(repoRoot, "node_modules", "better-sqlite3", "package.json"), "utf8")) as {
    version: string;
  };
  const stage = join(dir, "stage");
  mkdirSync(join(stage, "build", "Release"), { recursive: true });
  copyFileSync(
    join(repoRoot, "node_modules", "better-sqlite3", "build", "Release", "better_sqlite3.node"),
    join(stage, "build", "Release", "better_sqlite3.node"),
  );
  // prebuild-install names musl builds "linuxmusl"; glibc reports its version, musl does not.
  const header = (process.report.getReport() as { header?: { glibcVersionRuntime?: string } }).header;
  const libc = process.platform === "linux" && !header?.glibcVersionRuntime ? "musl" : "";
  const name = `better-sqlite3-v${pj.version}-node-v${process.versions.modules}-${process.platform}${libc}-${process.arch}.tar.gz`;
  const r = spawnSync("tar", ["-czf", join(dir, name), "-C", stage, "build"], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`tar failed: ${r.stderr}`);
  return dir;
}
