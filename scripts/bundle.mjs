// `npm run bundle`: the Claude Desktop bundle, memcards-<version>-<platform>-<arch>.mcpb. It stages mcpb/manifest.json,
// the built dist/ and the production dependencies for this platform (better-sqlite3 and sqlite-vec are native, so a
// bundle serves the platform it was built on), then packs them with @anthropic-ai/mcpb. Needs the npm registry.
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const npm = process.platform === "win32" ? "npm.cmd" : "npm";

function run(cmd, args, cwd) {
  const r = spawnSync(cmd, args, { cwd, stdio: "inherit", shell: process.platform === "win32" });
  if (r.status !== 0) {
    console.error(`${cmd} ${args.join(" ")} failed`);
    process.exit(r.status ?? 1);
  }
}

run(process.execPath, [join(root, "scripts", "build.mjs")], root);

const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
const stage = mkdtempSync(join(tmpdir(), "memcards-mcpb-"));
try {
  cpSync(join(root, "dist"), join(stage, "dist"), { recursive: true });
  cpSync(join(root, "README.md"), join(stage, "README.md"));
  cpSync(join(root, "package-lock.json"), join(stage, "package-lock.json"));
  // No lifecycle scripts of memcards' own in the stage: dist/ is already built.
  const { scripts: _scripts, devDependencies: _dev, ...staged } = pkg;
  writeFileSync(join(stage, "package.json"), `${JSON.stringify(staged, null, 2)}\n`);
  const manifest = JSON.parse(readFileSync(join(root, "mcpb", "manifest.json"), "utf8"));
  manifest.version = pkg.version;
  manifest.compatibility = { ...manifest.compatibility, platforms: [process.platform] };
  writeFileSync(join(stage, "manifest.json"), `${JSON.stringify(manifest, null, 2)}\n`);

  // package.json's allowScripts keeps onnxruntime-node's postinstall (optional GPU libraries) from running.
  run(npm, ["ci", "--omit=dev", "--no-audit", "--no-fund"], stage);

  const mcpb = join(root, "node_modules", "@anthropic-ai", "mcpb", "dist", "cli", "cli.js");
  const out = join(root, `memcards-${pkg.version}-${process.platform}-${process.arch}.mcpb`);
  run(process.execPath, [mcpb, "pack", stage, out], root);
  console.log(`wrote ${out}`);
} finally {
  rmSync(stage, { recursive: true, force: true });
}
