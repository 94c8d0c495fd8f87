// Screenshots of `memcards ui` for the README: builds a demo store (the polyglot fixture indexed, the fixture
// transcripts compressed, cards served and rated, a hook log), then runs `memcards ui --screenshots <dir>`.
// Usage: node scripts/ui-screenshots.mjs [dir]   (default docs/ui; needs dist/ built and Chromium installed)
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const out = resolve(process.argv[2] ?? join(root, "docs", "ui"));
const work = mkdtempSync(join(tmpdir(), "memcards-ui-demo-"));
try {
  const home = join(work, "home");
  const project = join(work, "polyglot");
  const db = join(work, "store", "memcards.db");
  cpSync(join(root, "fixtures", "repos", "polyglot"), project, { recursive: true });
  const transcripts = join(home, ".claude", "projects", "-demo");
  mkdirSync(transcripts, { recursive: true });
  const cli = (...args) =>
    execFileSync(
      process.execPath,
      [join(root, "dist", "cli.js"), "--root", project, "--db", db, "--embedder", "offline", ...args],
      {
        cwd: project,
        env: { ...process.env, HOME: home, MEMCARDS_HOME: join(home, ".memcards"), MEMCARDS_LOG_LEVEL: "error" },
        encoding: "utf8",
      },
    );
  cli("index");
  const fixtures = join(root, "test", "fixtures", "transcripts");
  for (const f of readdirSync(fixtures).filter((n) => n !== "README.md")) {
    cpSync(join(fixtures, f), join(transcripts, f));
    cli("compress", join(transcripts, f), "--keep", "2");
  }
  const cards = JSON.parse(cli("cards", "fix the area computation in pyproj/shapes/geometry.py", "--json"));
  const ids = (cards.cards ?? []).map((c) => c.id);
  if (ids.length > 1) cli("outcome", "--helped", ids[0], "--not-helpful", ids[1]);
  writeFileSync(
    join(dirname(db), "hooks.log"),
    [
      "2026-11-20T10:00:00.000Z SessionStart demo-session injected the project brief (4 units), 1234 chars",
      "2026-11-20T10:01:00.000Z UserPromptSubmit demo-session injected 2 card(s), 812 chars",
      "2026-11-20T10:30:00.000Z PreCompact demo-session compressed 40 turns, 9000 → 800 tokens, probes 0.9",
      "",
    ].join("\n"),
  );
  process.stdout.write(cli("ui", "--screenshots", out));
} finally {
  rmSync(work, { recursive: true, force: true });
}
