// A Claude Code session transcript (JSONL, the records Claude Code writes) built from a short script, so tests
// that need a long, realistic session with known facts need no data outside the repository.
import { randomUUID } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";

export type Step =
  | { user: string }
  | { assistant: string }
  | { edit: { file: string; old: string; new: string }; say?: string }
  | { write: { file: string; content: string }; say?: string }
  | { bash: { command: string; output: string; error?: boolean }; say?: string }
  | { read: { file: string; lines: string[] }; say?: string }
  | { tool: { name: string; input: Record<string, unknown>; output: string; error?: boolean }; say?: string }
  | { todos: { content: string; status: "pending" | "in_progress" | "completed" }[] };

export interface SessionOptions {
  sessionId?: string;
  cwd?: string;
}

/** The facts a summary of `developmentSession()` must keep, as short exact strings. */
export const SESSION_FACTS = {
  constraint: "Never edit config/prod.yaml",
  tool: "use pnpm, not npm",
  error: "TypeError: Cannot read properties of undefined (reading 'loc')",
  decision: "xmlbuilder2 instead of string concatenation",
  file: "src/sitemap/build.ts",
  next: "Add the sitemap link to robots.txt",
};

/** `rounds` rounds of the development session on `files` numbered files in turn: a long session. */
export function longSession(rounds: number, files = rounds): Step[] {
  return Array.from({ length: rounds }, (_, r) => developmentSession(r, r % files)).flat();
}

/** A realistic working session: a request with constraints, reads, edits, a failing and a passing test run. */
export function developmentSession(round = 0, file = round): Step[] {
  const n = file === 0 ? "" : `-${file}`;
  return [
    {
      user: `Add sitemap generation to the docs site${round ? ` (part ${round + 1})` : ""}. ${SESSION_FACTS.constraint}, and ${SESSION_FACTS.tool}.`,
    },
    {
      todos: [
        { content: "Write the sitemap builder", status: "in_progress" },
        { content: "Test the sitemap builder", status: "pending" },
        { content: SESSION_FACTS.next, status: "pending" },
      ],
    },
    {
      write: {
        file: `src/sitemap/build${n}.ts`,
        content:
          "import { create } from 'xmlbuilder2';\n\nexport function buildSitemap(pages: Page[]): string {\n  const root = create().ele('urlset');\n  for (const p of pages) root.ele('url').ele('loc').txt(p.url);\n  return root.end({ prettyPrint: true });\n}\n",
      },
      say: `I'll use ${SESSION_FACTS.decision} because it escapes URLs correctly.`,
    },
    {
      bash: {
        command: "pnpm test sitemap",
        output: `FAIL src/sitemap/build${n}.test.ts\n  ${SESSION_FACTS.error}\n    at buildSitemap (src/sitemap/build${n}.ts:5:52)`,
        error: true,
      },
      say: "Running the sitemap tests.",
    },
    {
      edit: {
        file: `src/sitemap/build${n}.ts`,
        old: "root.ele('url').ele('loc').txt(p.url);",
        new: "if (p.url) root.ele('url').ele('loc').txt(p.url);",
      },
      say: "Pages without a URL (drafts) have no loc; skipping them fixes the failure.",
    },
    {
      bash: { command: "pnpm test sitemap", output: "PASS src/sitemap/build.test.ts\nTests: 4 passed, 4 total" },
      say: "Re-running the tests.",
    },
    {
      todos: [
        { content: "Write the sitemap builder", status: "completed" },
        { content: "Test the sitemap builder", status: "completed" },
        { content: SESSION_FACTS.next, status: "pending" },
      ],
    },
    { assistant: `The sitemap builder is done and its tests pass. Next: ${SESSION_FACTS.next.toLowerCase()}.` },
  ];
}

/** The session as Claude Code JSONL text (one record a line, ending with a newline). */
export function claudeCodeSession(steps: readonly Step[], opts: SessionOptions = {}): string {
  const sessionId = opts.sessionId ?? "5e55a0e1-0000-4000-8000-000000000001";
  const cwd = opts.cwd ?? "/home/dev/docs-site";
  const lines: string[] = [];
  let parent: string | null = null;
  let clock = Date.parse("2026-03-02T09:00:00Z");
  const push = (type: "user" | "assistant", content: unknown, extra: Record<string, unknown> = {}) => {
    const uuid = randomUUID();
    clock += 7000;
    lines.push(
      JSON.stringify({
        parentUuid: parent,
        isSidechain: false,
        type,
        message: type === "assistant" ? { role: "assistant", type: "message", content } : { role: "user", content },
        uuid,
        timestamp: new Date(clock).toISOString(),
        sessionId,
        cwd,
        version: "2.1.101",
        gitBranch: "feature/sitemap",
        userType: "external",
        ...extra,
      }),
    );
    parent = uuid;
  };
  const tool = (name: string, input: Record<string, unknown>, result: string, isError = false, say?: string) => {
    const id = `toolu_${randomUUID().replace(/-/g, "").slice(0, 24)}`;
    push("assistant", [...(say ? [{ type: "text", text: say }] : []), { type: "tool_use", id, name, input }]);
    push("user", [{ type: "tool_result", tool_use_id: id, content: result, ...(isError ? { is_error: true } : {}) }]);
  };
  {
    for (const s of steps) {
      if ("user" in s) push("user", s.user);
      else if ("assistant" in s) push("assistant", [{ type: "text", text: s.assistant }]);
      else if ("edit" in s) {
        const path = `${cwd}/${s.edit.file}`;
        tool(
          "Edit",
          { file_path: path, old_string: s.edit.old, new_string: s.edit.new },
          `The file ${path} has been updated successfully.`,
          false,
          s.say,
        );
      } else if ("write" in s) {
        const path = `${cwd}/${s.write.file}`;
        tool(
          "Write",
          { file_path: path, content: s.write.content },
          `File created successfully at: ${path}`,
          false,
          s.say,
        );
      } else if ("bash" in s) {
        tool("Bash", { command: s.bash.command }, s.bash.output, s.bash.error ?? false, s.say);
      } else if ("read" in s) {
        // Read shows the file with numbered lines, as `cat -n` does: `     1→text`.
        const body = s.read.lines.map((l, i) => `${String(i + 1).padStart(6)}→${l}`).join("\n");
        tool("Read", { file_path: `${cwd}/${s.read.file}` }, body, false, s.say);
      } else if ("tool" in s) {
        tool(s.tool.name, s.tool.input, s.tool.output, s.tool.error ?? false, s.say);
      } else {
        tool(
          "TodoWrite",
          { todos: s.todos.map((t) => ({ ...t, activeForm: t.content })) },
          "Todos have been modified successfully.",
        );
      }
    }
  }
  return lines.join("\n") + "\n";
}

/** Writes a long development session into `dir` as `name` and returns its path. */
export function writeSession(dir: string, name: string, rounds = 40, opts: SessionOptions = {}): string {
  const path = join(dir, name);
  writeFileSync(path, claudeCodeSession(longSession(rounds, 6), { sessionId: randomUUID(), ...opts }));
  return path;
}
