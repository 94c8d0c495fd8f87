import { describe, expect, it } from "vitest";

import {
  findRules,
  parseFrontMatter,
  parseRule,
  ruleAppliesTo,
  ruleKindOf,
  ruleMatcher,
} from "../../src/repo/rules.js";
import { scanRepo } from "../../src/repo/scan.js";
import { POLYGLOT } from "./fixture.js";

describe("rule documents", () => {
  it("finds every rule file of the fixture with its kind, scope directory and front matter", () => {
    const scan = scanRepo(POLYGLOT);
    const rules = findRules(
      scan.root,
      scan.files.map((f) => f.path),
    );
    const summary = rules.map((r) => ({
      path: r.path,
      kind: r.kind,
      dir: r.dir,
      globs: r.globs,
      alwaysApply: r.alwaysApply,
    }));
    expect(summary).toEqual([
      { path: ".cursor/rules/always.mdc", kind: "cursor-mdc", dir: "", globs: undefined, alwaysApply: true },
      {
        path: ".cursor/rules/python-style.mdc",
        kind: "cursor-mdc",
        dir: "",
        globs: ["pyproj/**/*.py", "scripts/*.sh"],
        alwaysApply: false,
      },
      { path: ".cursor/rules/tsx-only.mdc", kind: "cursor-mdc", dir: "", globs: ["web/**/*.tsx"], alwaysApply: false },
      { path: ".github/copilot-instructions.md", kind: "copilot", dir: "", globs: undefined, alwaysApply: false },
      { path: "AGENTS.md", kind: "agents", dir: "", globs: undefined, alwaysApply: false },
      { path: "CONTRIBUTING.md", kind: "contributing", dir: "", globs: undefined, alwaysApply: false },
      { path: "pyproj/AGENTS.md", kind: "agents", dir: "pyproj", globs: undefined, alwaysApply: false },
    ]);
    const mdc = rules.find((r) => r.path.endsWith("python-style.mdc"))!;
    expect(mdc.description).toBe("Python style for the shapes package");
    expect(mdc.body.trim()).toBe("Use type hints on every public function in pyproj.");
  });

  it("scopes directory rules to their directory and below, globs to matching paths, alwaysApply to all", () => {
    const scan = scanRepo(POLYGLOT);
    const paths = scan.files.map((f) => f.path);
    const rules = findRules(scan.root, paths);
    const get = (p: string) => rules.find((r) => r.path === p)!;
    const applied = (p: string) => paths.filter(ruleMatcher(get(p)));

    expect(applied("AGENTS.md")).toEqual(paths);
    expect(applied("pyproj/AGENTS.md").every((p) => p.startsWith("pyproj/"))).toBe(true);
    expect(ruleAppliesTo(get("pyproj/AGENTS.md"), "pyproj/shapes/sub/poly.py")).toBe(true);
    expect(ruleAppliesTo(get("pyproj/AGENTS.md"), "pyproj")).toBe(true);
    expect(ruleAppliesTo(get("pyproj/AGENTS.md"), "pyprojx/a.py")).toBe(false);
    expect(ruleAppliesTo(get("pyproj/AGENTS.md"), "web/src/math.ts")).toBe(false);

    expect(applied(".cursor/rules/python-style.mdc")).toEqual([
      "pyproj/shapes/__init__.py",
      "pyproj/shapes/geometry.py",
      "pyproj/shapes/sub/__init__.py",
      "pyproj/shapes/sub/poly.py",
      "pyproj/shapes/util.py",
      "pyproj/tests/test_geometry.py",
      "pyproj/tests/test_util.py",
      "scripts/deploy.sh",
      "scripts/env.sh",
    ]);
    expect(applied(".cursor/rules/tsx-only.mdc")).toEqual(["web/src/components/Button.tsx"]);
    expect(applied(".cursor/rules/always.mdc")).toEqual(paths);
    expect(applied(".github/copilot-instructions.md")).toEqual(paths);
    expect(applied("CONTRIBUTING.md")).toEqual(paths);
  });

  it("scopes rules in nested projects to that project, and leaves agent-requested .mdc rules unapplied", () => {
    const nested = parseRule("apps/web/.cursor/rules/ui.mdc", "---\nglobs: ['*.tsx']\n---\nUse hooks.\n")!;
    expect(nested.dir).toBe("apps/web");
    expect(ruleAppliesTo(nested, "apps/web/src/App.tsx")).toBe(true); // `*.tsx` matches at any depth
    expect(ruleAppliesTo(nested, "apps/api/src/App.tsx")).toBe(false);
    expect(ruleAppliesTo(nested, "apps/web/src/App.ts")).toBe(false);

    const manual = parseRule(".cursor/rules/manual.mdc", "---\ndescription: Only when asked\n---\nBody\n")!;
    expect(manual.alwaysApply).toBe(false);
    expect(ruleAppliesTo(manual, "anything.ts")).toBe(false);

    const anchored = parseRule(".cursor/rules/api.mdc", "---\nglobs: src/api/**\n---\n")!;
    expect(ruleAppliesTo(anchored, "src/api/v1/users.ts")).toBe(true);
    expect(ruleAppliesTo(anchored, "lib/src/api/x.ts")).toBe(false);

    const copilot = parseRule(".github/instructions/py.instructions.md", '---\napplyTo: "**/*.py"\n---\nPEP 8.\n')!;
    expect(copilot.kind).toBe("copilot");
    expect(ruleAppliesTo(copilot, "a/b/c.py")).toBe(true);
    expect(ruleAppliesTo(copilot, "a/b/c.ts")).toBe(false);

    const claude = parseRule("services/billing/CLAUDE.md", "# Billing\nNever log card numbers.\n")!;
    expect(claude).toMatchObject({ kind: "claude", dir: "services/billing", alwaysApply: false });
    expect(ruleAppliesTo(claude, "services/billing/charge.go")).toBe(true);
    expect(ruleAppliesTo(claude, "services/auth/login.go")).toBe(false);

    const contributing = parseRule("docs/CONTRIBUTING.md", "Be kind.")!;
    expect(contributing.dir).toBe("");
  });

  it("recognizes rule file names and nothing else", () => {
    expect(ruleKindOf("AGENTS.md")).toBe("agents");
    expect(ruleKindOf("x/agents.md")).toBe("agents");
    expect(ruleKindOf("CLAUDE.md")).toBe("claude");
    expect(ruleKindOf("sub/.cursorrules")).toBe("cursorrules");
    expect(ruleKindOf(".cursor/rules/nested/dir/r.mdc")).toBe("cursor-mdc");
    expect(ruleKindOf("docs/rules/r.mdc")).toBeUndefined();
    expect(ruleKindOf(".github/copilot-instructions.md")).toBe("copilot");
    expect(ruleKindOf("CONTRIBUTING.rst")).toBe("contributing");
    expect(ruleKindOf("README.md")).toBeUndefined();
  });

  it("parses front matter scalars, inline lists, comma lists and block lists", () => {
    const fm = parseFrontMatter(
      '---\na: "x"\nb: [one, "two"]\nc: p, q\nd:\n  - "r/**"\n  - s\n# comment\ne: true\n---\nbody\n',
    );
    expect(fm.fields).toEqual({ a: "x", b: ["one", "two"], c: "p, q", d: ["r/**", "s"], e: "true" });
    expect(fm.body).toBe("body\n");
    expect(parseFrontMatter("no front matter").body).toBe("no front matter");
  });
});
