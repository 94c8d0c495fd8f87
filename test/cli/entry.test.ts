// The CLI entry's short paths: `--version` and `[globals] hook <event>` are recognized exactly; anything else goes to
// the full command tree.
import { readFileSync } from "node:fs";
import { join } from "node:path";

import { describe, expect, it } from "vitest";

import { serveInvocation, wantsStacks } from "../../src/cli/entry.js";
import { hookEntryInvocation, hookInvocation } from "../../src/cli/hook-entry.js";
import { repoRoot, runCli } from "../helpers/cli.js";

describe("the entry's short paths", () => {
  it.each([
    [["hook", "PostToolUse"], { event: "PostToolUse", flags: {} }],
    [["--root", "/p", "hook", "SessionStart"], { event: "SessionStart", flags: { root: "/p" } }],
    [
      ["--db=/x.db", "--embedder", "offline", "hook", "Bad"],
      { event: "Bad", flags: { db: "/x.db", embedder: "offline" } },
    ],
  ])("%j is a hook call", (args, want) => {
    expect(hookInvocation(args)).toEqual(want);
  });

  it.each([
    [["hook"]],
    [["hook", "--help"]],
    [["hook", "PostToolUse", "--extra"]],
    [["--root", "hook", "X"]],
    [["--unknown", "v", "hook", "X"]],
    [["status"]],
    [["--root"]],
  ])("%j goes to the full command tree", (args) => {
    // `--root hook X`: "hook" is --root's value, and X is not a command this path knows.
    expect(hookInvocation(args)).toBeUndefined();
  });

  it.each([
    [["PostToolUse"], { event: "PostToolUse", flags: {} }],
    [["--root", "/p", "SessionStart"], { event: "SessionStart", flags: { root: "/p" } }],
    [["hook", "SessionEnd"], { event: "SessionEnd", flags: {} }],
  ])("%j is a call of the hook entry (dist/hook.js)", (args, want) => {
    expect(hookEntryInvocation(args)).toEqual(want);
  });

  it.each([[[]], [["--help"]], [["--root", "SessionStart"]], [["PostToolUse", "--extra"]]])(
    "%j is not a call of the hook entry",
    (args) => {
      expect(hookEntryInvocation(args)).toBeUndefined();
    },
  );

  it.each([
    [["serve"], {}],
    [["serve", "--root", "/p"], { root: "/p" }],
    [["--log-level=silent", "serve", "--db", "/x.db"], { "log-level": "silent", db: "/x.db" }],
  ])("%j starts the stdio server without the command tree", (args, want) => {
    expect(serveInvocation(args)).toEqual(want);
  });

  it.each([
    [["serve", "--http"]],
    [["serve", "--help"]],
    [["serve", "--root"]],
    [["serve", "--root", "--db", "/x"]],
    [["serve", "--log-level", "loud"]],
    [["serve", "serve"]],
    [["--root", "/p"]],
    [["status"]],
  ])("%j goes to the full command tree", (args) => {
    expect(serveInvocation(args)).toBeUndefined();
  });

  it("prints the package's version", () => {
    const pkg = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as { version: string };
    const r = runCli(["--version"]);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe(pkg.version);
  });
});

describe("stack traces", () => {
  it.each([
    [["--log-level", "debug", "index"], {}, true],
    [["index", "--log-level=debug"], {}, true],
    [["index"], { MEMCARDS_LOG_LEVEL: "debug" }, true],
    [["--log-level", "info", "index", "debug"], {}, false],
    [["index"], { MEMCARDS_LOG_LEVEL: "info" }, false],
    // A flag outranks the environment, as in the configuration; the last flag wins, as in the option parser.
    [["index", "--log-level", "info"], { MEMCARDS_LOG_LEVEL: "debug" }, false],
    [["index", "--log-level=warn"], { MEMCARDS_LOG_LEVEL: "debug" }, false],
    [["--log-level", "debug", "index", "--log-level", "error"], {}, false],
    [["--log-level", "info", "index", "--log-level=debug"], { MEMCARDS_LOG_LEVEL: "info" }, true],
  ])("%j with %j asks for them: %s", (args, env, want) => {
    expect(wantsStacks(args, env)).toBe(want);
  });
});
