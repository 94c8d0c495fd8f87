// Errors and reverts read from commands, not from text that only mentions them: a clean run of another file whose
// name ends like the failing one settles nothing, and a file written by a heredoc is not a run.
import { describe, expect, it } from "vitest";

import { extractSections } from "../../src/transcript/extract.js";
import { parseText } from "../../src/transcript/parse.js";
import { claudeCodeSession, type Step } from "../helpers/session.js";

const sectionsOf = (steps: Step[]) => {
  const t = parseText(claudeCodeSession(steps), "claude-code-jsonl");
  return extractSections(t.turns, { cwd: t.cwd });
};

const failing = {
  command: "mypy src/app.py",
  output: 'src/app.py:3: error: Name "cfg" is not defined  [name-defined]\nFound 1 error in 1 file',
  error: true,
};

describe("an error and the clean runs after it", () => {
  it("a clean run of a different file whose name ends with the failing one leaves it open", () => {
    const s = sectionsOf([
      { user: "Start the app." },
      { bash: failing },
      { bash: { command: "python -m myapp.py --check", output: "ok" } },
    ]);
    const f = s.failures.find((x) => x.text.includes("is not defined"))!;
    expect(f).toBeDefined();
    expect(f.resolved).toBeUndefined();
  });

  it("a heredoc that writes the failing file is not a clean run of it", () => {
    const s = sectionsOf([
      { user: "Start the app." },
      { bash: failing },
      { bash: { command: "cat > notes.md <<'EOF'\nrun mypy on app.py again later\nEOF", output: "" } },
    ]);
    const f = s.failures.find((x) => x.text.includes("is not defined"))!;
    expect(f.resolved).toBeUndefined();
  });

  it("a later clean run of the same file still resolves it", () => {
    const s = sectionsOf([
      { user: "Start the app." },
      { bash: failing },
      { bash: { command: "python src/app.py", output: "ok" } },
    ]);
    expect(s.failures.find((x) => x.text.includes("is not defined"))!.resolved).toBeDefined();
  });
});
