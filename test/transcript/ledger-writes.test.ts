// Files Modified from shell commands and patches, in the shapes real clients record them: what a command writes
// (quotes, heredocs, cp/mv/tee/sed -i, paths with spaces), apply_patch moves, diff paths with spaces, Copilot's
// multi-replace lists, and calls the client reports as failed or refused (they change nothing).
import { describe, expect, it } from "vitest";

import { fileEvents, shellFiles } from "../../src/transcript/events/ledger.js";
import { parseText } from "../../src/transcript/formats/parse.js";
import type { TranscriptFormat } from "../../src/transcript/schema.js";

const events = (text: string, format: TranscriptFormat) => fileEvents(parseText(text, format).turns);
const paths = (text: string, format: TranscriptFormat): string[] => [
  ...new Set(events(text, format).map((e) => e.path)),
];

/** A Codex rollout: one exec_command per command (argv or string form), each with its output. */
function rollout(calls: { args: Record<string, unknown>; output?: string; exit?: number }[]): string {
  const item = (payload: Record<string, unknown>) => JSON.stringify({ type: "response_item", payload });
  const lines = [
    JSON.stringify({ type: "session_meta", payload: { id: "r1", cwd: "/repo" } }),
    item({ type: "message", role: "user", content: [{ type: "input_text", text: "set the project up" }] }),
  ];
  calls.forEach((c, k) => {
    lines.push(
      item({ type: "function_call", name: "exec_command", call_id: `c${k}`, arguments: JSON.stringify(c.args) }),
    );
    lines.push(
      item({
        type: "function_call_output",
        call_id: `c${k}`,
        output: JSON.stringify({ output: c.output ?? "", metadata: { exit_code: c.exit ?? 0 } }),
      }),
    );
  });
  return lines.join("\n");
}

describe("shell commands", () => {
  it("a redirect inside quotes is text; quoted paths with spaces are one file", () => {
    const text = rollout([
      { args: { cmd: "echo \"a > b.py\" && printf 'x; rm c.py' > notes.txt" } },
      { args: { command: ["bash", "-lc", 'cp src/a.py "my dir/b.py" && mv old.py new.py'] } },
      { args: { cmd: "echo 'node_modules/' | tee -a .gitignore && npm test 2>&1 | tee test.log" } },
      // The heredoc's body is the file's content: the `rm` line in it runs nothing.
      { args: { cmd: "cat > \"my dir/setup.py\" <<'EOF'\nimport os\nrm important.py > gone.py\nEOF" } },
      { args: { command: ["bash", "-lc", "sed -i '' -e 's/a/b/' \"src/my file.py\" && sed -n '1,5p' src/read.py"] } },
      { args: { cmd: "grep -rn x src > hits.txt; cat src/a.py > /tmp/copy.py; ls 2> err.txt" } },
    ]);
    expect(paths(text, "codex-rollout-jsonl")).toEqual([
      "notes.txt",
      "my dir/b.py",
      "old.py",
      "new.py",
      ".gitignore",
      "my dir/setup.py",
      "src/my file.py",
    ]);
  });

  it("each writer names its own file and op", () => {
    expect(shellFiles("cat <<'EOF' > LICENSE\nMIT\nEOF")).toEqual([{ path: "LICENSE", op: "written (shell)" }]);
    expect(shellFiles("cp -r docs/a.md docs/b.md site/")).toEqual([
      { path: "site/a.md", op: "copied from docs/a.md" },
      { path: "site/b.md", op: "copied from docs/b.md" },
    ]);
    expect(shellFiles('git mv "old name.md" "new name.md"').map((c) => c.op)).toEqual([
      "moved to new name.md",
      "moved from old name.md",
    ]);
    expect(shellFiles("perl -pi -e 's/a/b/' lib/X.pm")).toEqual([{ path: "lib/X.pm", op: "edited (perl -i)" }]);
    expect(shellFiles("cat <<EOF | sudo tee conf/app.yaml\nx: 1\nEOF")).toEqual([
      { path: "conf/app.yaml", op: "written (tee)" },
    ]);
    expect(shellFiles('python run.py > out.log 2>&1; echo "$(cat a.py)" | grep x')).toEqual([]);
  });

  it("Windows shells: backslash paths stay whole; PowerShell cmdlets write, copy, move and delete", () => {
    expect(shellFiles("del C:\\proj\\old.py && echo all > Makefile").map((c) => c.path)).toEqual([
      "C:\\proj\\old.py",
      "Makefile",
    ]);
    expect(shellFiles('Set-Content -Path "C:\\My Proj\\a.py" -Value "x"')).toEqual([
      { path: "C:\\My Proj\\a.py", op: "written (shell)" },
    ]);
    expect(shellFiles("Copy-Item -Path .env.example -Destination .env; Move-Item src\\a.ts src\\b.ts")).toEqual([
      { path: ".env", op: "copied from .env.example" },
      { path: "src\\a.ts", op: "moved to src\\b.ts" },
      { path: "src\\b.ts", op: "moved from src\\a.ts" },
    ]);
    expect(shellFiles("Remove-Item -Recurse -Force C:\\proj\\build; Get-Content a.py > b.txt")).toEqual([]);
  });
});

describe("patches", () => {
  it("apply_patch `*** Move to:` moves the source and writes the destination; a failed patch changes nothing", () => {
    const item = (payload: Record<string, unknown>) => JSON.stringify({ type: "response_item", payload });
    const text = [
      JSON.stringify({ type: "session_meta", payload: { id: "r1", cwd: "/repo" } }),
      item({ type: "message", role: "user", content: [{ type: "input_text", text: "rename it" }] }),
      item({
        type: "custom_tool_call",
        name: "apply_patch",
        call_id: "p1",
        input: "*** Begin Patch\n*** Update File: src/old.ts\n*** Move to: src/new.ts\n@@\n-a\n+b\n*** End Patch",
      }),
      item({
        type: "custom_tool_call_output",
        call_id: "p1",
        output: '{"output":"Success.","metadata":{"exit_code":0}}',
      }),
      item({
        type: "custom_tool_call",
        name: "apply_patch",
        call_id: "p2",
        input: "*** Begin Patch\n*** Update File: src/missing.ts\n@@\n-a\n+b\n*** End Patch",
      }),
      item({
        type: "custom_tool_call_output",
        call_id: "p2",
        output:
          '{"output":"apply_patch verification failed: Failed to find expected lines in src/missing.ts","metadata":{"exit_code":1}}',
      }),
    ].join("\n");
    expect(events(text, "codex-rollout-jsonl").map((e) => `${e.path}: ${e.op}`)).toEqual([
      "src/old.ts: moved to src/new.ts (patch)",
      "src/new.ts: moved from src/old.ts (patch)",
    ]);
  });

  it("Codex export: a failed apply_patch (no call id, its output in the same block) is no edit", () => {
    const block = (name: string, input: string, out: string) =>
      `#### Tool: ${name}\n\n\`\`\`text\n${input}\n\`\`\`\n\nOutput:\n\n\`\`\`text\n${out}\n\`\`\`\n\n`;
    const text =
      "# Codex Conversation Export\n\n## Metadata\n\n- Thread ID: t1\n- CWD: /repo\n\n### Turn 1: Fix\n\n#### 👤 User\n\nfix it\n\n" +
      block(
        "apply_patch",
        "*** Begin Patch\n*** Update File: src/a.ts\n@@\n-x\n+y\n*** End Patch",
        "apply_patch verification failed: Failed to find expected lines in src/a.ts",
      ) +
      block(
        "apply_patch",
        "*** Begin Patch\n*** Update File: src/b.ts\n@@\n-x\n+y\n*** End Patch",
        "Success. Updated the following files:\nM src/b.ts",
      );
    expect(paths(text, "codex-export-md")).toEqual(["src/b.ts"]);
  });

  it("SWE-agent: a submitted diff whose paths hold spaces names each file whole", () => {
    const traj = {
      history: [
        { role: "system", content: "sys" },
        { role: "user", content: "fix the bug" },
      ],
      info: {
        submission:
          "diff --git a/my dir/x y.py b/my dir/x y.py\nindex 1..2 100644\n--- a/my dir/x y.py\n+++ b/my dir/x y.py\n@@ -1 +1 @@\n-a\n+b\n" +
          "diff --git a/old file.txt b/old file.txt\ndeleted file mode 100644\n--- a/old file.txt\n+++ /dev/null\n",
      },
    };
    expect(paths(JSON.stringify(traj), "swe-agent-traj")).toEqual(["my dir/x y.py", "old file.txt"]);
  });
});

describe("SWE-agent edits the client rejected", () => {
  it("an edit whose lint check failed, or a str_replace that found nothing, changed nothing", () => {
    const traj = {
      trajectory: [
        {
          action: "open src/a.py",
          observation: "[File: /repo/src/a.py (10 lines total)]\n(Open file: /repo/src/a.py)",
        },
        {
          action: "edit 3:3\n  broken(\nend_of_edit",
          observation:
            "Your proposed edit has introduced new syntax error(s). Please understand the fixes and retry your edit commmand.\n\nERRORS:\n- E999 SyntaxError\n\nYour changes have NOT been applied.",
        },
        {
          action: "str_replace_editor str_replace /repo/src/c.py --old_str x --new_str y",
          observation: "No replacement was performed, old_str `x` did not appear verbatim in /repo/src/c.py.",
        },
        { action: "open src/b.py", observation: "[File: /repo/src/b.py (5 lines total)]\n(Open file: /repo/src/b.py)" },
        { action: "edit 1:1\nfixed = True\nend_of_edit", observation: "File updated." },
      ],
    };
    expect(paths(JSON.stringify(traj), "swe-agent-traj")).toEqual(["/repo/src/b.py"]);
  });
});

describe("Copilot multi-replace and refused calls", () => {
  it("copilot_multiReplaceString names every file of its replacements list (JSON input)", () => {
    const V2 = "<!-- Generated by SpecStory, Markdown v2.1.0 -->\n\n# 2026-01-05 10:00:00Z\n\n";
    const replacements = JSON.stringify([
      { explanation: "one", filePath: "/w/src/a.ts", oldString: "x", newString: "y" },
      { explanation: "two", filePath: "/w/src/b.ts", oldString: "x", newString: "y" },
      { explanation: "three", filePath: "/w/src/a.ts", oldString: "p", newString: "q" },
    ]);
    const text =
      V2 +
      "_**User (2026-01-05 10:00:00Z)**_\n\nrename the helper\n\n---\n\n" +
      "_**Agent (model 2026-01-05 10:00:05Z)**_\n\n" +
      '<tool-use data-tool-type="write" data-tool-name="copilot_multiReplaceString"><details>\n' +
      "<summary>Tool use: **copilot_multiReplaceString**</summary>\n\n**Input:**\n\n- replacements:\n\n" +
      `\`\`\`json\n${replacements}\n\`\`\`\n\n</details></tool-use>\n\n`;
    expect(paths(text, "specstory-md")).toEqual(["/w/src/a.ts", "/w/src/b.ts"]);
  });

  it("Claude Code: a refused Bash command writes nothing; one that ran does", () => {
    const line = (o: Record<string, unknown>) => JSON.stringify({ sessionId: "s1", cwd: "/repo", ...o });
    const use = (id: string, command: string) =>
      line({
        type: "assistant",
        uuid: `a${id}`,
        message: { role: "assistant", content: [{ type: "tool_use", id, name: "Bash", input: { command } }] },
      });
    const result = (id: string, content: string, is_error: boolean) =>
      line({
        type: "user",
        uuid: `u${id}`,
        message: { role: "user", content: [{ type: "tool_result", tool_use_id: id, content, is_error }] },
      });
    const text = [
      line({ type: "user", uuid: "u0", message: { role: "user", content: "use UNRANKED as the fallback" } }),
      use("b1", "sed -i '' 's/\"\"/\"UNRANKED\"/g' /repo/cogs/leaderboard.py"),
      result(
        "b1",
        "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file).",
        true,
      ),
      use("b2", "cp /repo/.env.example /repo/.env.local && npm run build"),
      result("b2", "Error: build failed", true),
    ].join("\n");
    expect(paths(text, "claude-code-jsonl")).toEqual(["/repo/.env.local"]);
  });
});
