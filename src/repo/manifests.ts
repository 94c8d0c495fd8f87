// Module names from project manifests (go.mod, Cargo.toml) that import resolution needs; the only I/O it does.

import { z } from "zod";

import { baseName } from "./languages.js";
import { readInsideRoot, realRootOf } from "./scan.js";

/** Module identities by the directory (repo-relative, "" for the root) holding the manifest. */
export const Manifests = z.object({
  /** go.mod directory → module path (`example.com/svc`). */
  goModules: z.record(z.string(), z.string()),
  /** Cargo.toml directory → crate name as used in paths (`poly-rs` → `poly_rs`). */
  rustCrates: z.record(z.string(), z.string()),
});
export type Manifests = z.infer<typeof Manifests>;

/** The `module` line of a go.mod file. */
export function goModulePath(goMod: string): string | undefined {
  return /^\s*module\s+"?([^\s"]+)"?/m.exec(goMod)?.[1];
}

/** The `[package] name` (or `[lib] name`) of a Cargo.toml, with dashes turned into underscores. */
export function rustCrateName(cargoToml: string): string | undefined {
  let section = "";
  let pkg: string | undefined;
  let lib: string | undefined;
  for (const raw of cargoToml.split(/\r?\n/)) {
    const line = raw.trim();
    const header = /^\[([^\]]+)\]$/.exec(line);
    if (header) {
      section = header[1]!.trim();
      continue;
    }
    const m = /^name\s*=\s*["']([^"']+)["']/.exec(line);
    if (!m) continue;
    if (section === "package") pkg = m[1];
    else if (section === "lib") lib = m[1];
  }
  return (lib ?? pkg)?.replace(/-/g, "_");
}

const dirOf = (p: string) => (p.includes("/") ? p.slice(0, p.lastIndexOf("/")) : "");

/** Reads every go.mod and Cargo.toml among `paths` (repo-relative) under `root`; unreadable ones are skipped. */
export function readManifests(root: string, paths: readonly string[]): Manifests {
  const out: Manifests = { goModules: {}, rustCrates: {} };
  const realRoot = realRootOf(root);
  for (const p of paths) {
    const base = baseName(p);
    if (base !== "go.mod" && base !== "Cargo.toml") continue;
    // Through the same checked descriptor as the scan: never a file swapped for a link since.
    const text = readInsideRoot(realRoot, p);
    if (text === undefined) continue;
    const name = base === "go.mod" ? goModulePath(text) : rustCrateName(text);
    if (!name) continue;
    if (base === "go.mod") out.goModules[dirOf(p)] = name;
    else out.rustCrates[dirOf(p)] = name;
  }
  return out;
}
