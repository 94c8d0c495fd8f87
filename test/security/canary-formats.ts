// Small transcripts in every supported format, each carrying the same canary secrets in the user's text, a tool's
// output, an edited file's content and the edit operation itself (a `.env` file written and patched).
import { writeFileSync } from "node:fs";
import { join } from "node:path";

/** Every canary value holds this word; no output and no byte of the store may hold it, in any case. */
export const CANARY_WORD = "kanarie";

export const SECRETS = {
  mysql: "mysql://shop:KANARIEmy7731@db.internal:3306/shop",
  postgres: "postgresql://app:KANARIEpg8842@pg.internal/app",
  redis: "redis://:KANARIErd9953@cache.internal:6379/0",
  mongo: "mongodb+srv://svc:KANARIEmg1064@cluster0.example.net/prod",
  amqp: "amqp://guest:KANARIEmq2175@mq.internal:5672/",
  https: "https://deploy:KANARIEht3286@git.example.com/org/repo.git",
  anthropic: "sk-ant-api03-KANARIEant4397xYzAbCdEfGhIjKlMnOpQrStUv",
  openai: "sk-proj-KANARIEoai5408AbCdEfGhIjKlMnOpQrSt",
  github: "ghp_KANARIEgh6519AbCdEfGhIjKlMnOpQrStUvWx",
} as const;

/** Sentences that carry `key=value` and `key: value` secrets in prose, and the secrets in URLs. */
export const SENTENCES = [
  `Use API_KEY=KANARIEkv7620 for the staging run and never print it.`,
  `The database password: KANARIEpw8731 must stay out of the logs.`,
  `Set client_secret=KANARIEcs9842 in the CI settings, and the api_key: KANARIEak0953 too.`,
  `Connect with ${SECRETS.mysql} and the replica ${SECRETS.postgres}; the cache is ${SECRETS.redis}.`,
  `Atlas is at ${SECRETS.mongo}, the queue at ${SECRETS.amqp}, and push to ${SECRETS.https}.`,
  `Keys: ${SECRETS.anthropic} ${SECRETS.openai} ${SECRETS.github}`,
  `The admin password: kanarieonlyletters is plain words, my api key: KANARIEak1175 has a space in its name.`,
  `The root password is KANARIEis2286, set the token to KANARIEto3397 and the passphrase: \`KANARIEbq4408\`.`,
  `Run ./deploy --password KANARIEcl5519 --token KANARIEtk6620 against https://maps.example.com/api?key=KANARIEqk7731&z=3.`,
];

/** The body of a `.env` file. */
export const ENV_BODY = [
  `DATABASE_URL=${SECRETS.mysql}`,
  `REDIS_URL=${SECRETS.redis}`,
  `STRIPE_SECRET_KEY=KANARIEst1064`,
  `ANTHROPIC_API_KEY=${SECRETS.anthropic}`,
  `db_password=KANARIEdb2175`,
  `export SESSION_TOKEN="KANARIEse3286"`,
  `SMTP_PASS='KANARIEsm4397'`,
  `PORT=3000`,
].join("\n");

const USER_TEXT = `Please deploy the shop and never commit credentials. ${SENTENCES.join(" ")}`;
const TOOL_OUTPUT = `$ cat .env\n${ENV_BODY}\n$ ./deploy.sh\nError: connection refused for ${SECRETS.postgres}\nexit code 1`;
const PATCH = `*** Begin Patch\n*** Add File: .env\n${ENV_BODY.split("\n")
  .map((l) => `+${l}`)
  .join("\n")}\n*** End Patch`;

/** Harmless exchanges after the secrets, so that the hooks' kept recent messages leave them in the summarized span. */
const TAIL = [
  "Now check the logs.",
  "The logs are clean.",
  "Run the smoke test.",
  "The smoke test passed.",
  "Tag the release.",
  "Tagged v1.2.0.",
  "Update the changelog.",
  "The changelog lists the release.",
  "Close the ticket.",
  "The ticket is closed.",
];

type Writer = (dir: string, id: string) => string;

function claudeCode(dir: string, id: string): string {
  let n = 0;
  const rec = (type: "user" | "assistant", content: unknown, extra: Record<string, unknown> = {}) =>
    JSON.stringify({ type, uuid: `${id}-${++n}`, sessionId: id, cwd: dir, message: { role: type, content }, ...extra });
  const env = join(dir, ".env");
  const lines = [
    rec("user", USER_TEXT),
    rec("assistant", [
      { type: "text", text: "Reading the settings first." },
      {
        type: "tool_use",
        id: "b1",
        name: "Bash",
        input: { command: `cat .env && ./deploy.sh --url ${SECRETS.mysql}` },
      },
    ]),
    rec("user", [{ type: "tool_result", tool_use_id: "b1", content: TOOL_OUTPUT, is_error: true }]),
    rec("assistant", [
      { type: "tool_use", id: "w1", name: "Write", input: { file_path: env, content: ENV_BODY } },
      {
        type: "tool_use",
        id: "e1",
        name: "Edit",
        input: { file_path: env, old_string: "PORT=3000", new_string: `PORT=3000\nAPI_KEY=KANARIEkv7620` },
      },
    ]),
    rec("user", [{ type: "tool_result", tool_use_id: "w1", content: `File created successfully at: ${env}` }], {
      toolUseResult: { type: "create", filePath: env, content: ENV_BODY },
    }),
    rec(
      "user",
      [{ type: "tool_result", tool_use_id: "e1", content: `The file ${env} has been updated successfully.` }],
      {
        toolUseResult: {
          filePath: env,
          oldString: "PORT=3000",
          newString: `API_KEY=KANARIEkv7620`,
          originalFile: ENV_BODY,
        },
      },
    ),
    rec("assistant", `Done: the deploy uses ${SECRETS.mysql}; 3 tests passed.`),
    ...TAIL.map((t, i) => rec(i % 2 ? "assistant" : "user", t)),
  ];
  const path = join(dir, `${id}.jsonl`);
  writeFileSync(path, lines.join("\n") + "\n");
  return path;
}

function codexRollout(dir: string, id: string): string {
  const ts = "2025-11-18T09:41:07.412Z";
  const item = (payload: unknown) => JSON.stringify({ timestamp: ts, type: "response_item", payload });
  const lines = [
    JSON.stringify({
      timestamp: ts,
      type: "session_meta",
      payload: { id, timestamp: ts, cwd: dir, originator: "codex_cli_rs" },
    }),
    item({ type: "message", role: "user", content: [{ type: "input_text", text: USER_TEXT }] }),
    item({
      type: "function_call",
      name: "shell",
      call_id: "c1",
      arguments: JSON.stringify({ command: ["bash", "-lc", "cat .env"] }),
    }),
    item({
      type: "function_call_output",
      call_id: "c1",
      output: JSON.stringify({ output: TOOL_OUTPUT, metadata: { exit_code: 1, duration_seconds: 0.1 } }),
    }),
    item({ type: "custom_tool_call", name: "apply_patch", call_id: "c2", input: PATCH }),
    item({ type: "custom_tool_call_output", call_id: "c2", output: "Success. Updated the following files:\nA .env" }),
    item({
      type: "message",
      role: "assistant",
      content: [{ type: "output_text", text: `Deployed with ${SECRETS.mysql}.` }],
    }),
    ...TAIL.map((t, i) =>
      item({
        type: "message",
        role: i % 2 ? "assistant" : "user",
        content: [{ type: i % 2 ? "output_text" : "input_text", text: t }],
      }),
    ),
  ];
  const path = join(dir, `rollout-${id}.jsonl`);
  writeFileSync(path, lines.join("\n") + "\n");
  return path;
}

function codexExport(dir: string, id: string): string {
  const text = [
    "# Codex Conversation Export",
    "",
    "## Metadata",
    "",
    `- Thread ID: ${id}`,
    `- CWD: ${dir}`,
    "",
    "## Transcript",
    "",
    "### Turn 1: deploy",
    "",
    "#### 👤 User Prompt",
    "",
    USER_TEXT,
    "",
    "#### 🤖 gpt-5.4 (medium)",
    "",
    "Reading the settings.",
    "",
    "#### Tool: exec_command",
    "",
    "```sh",
    `cat .env && ./deploy.sh --url ${SECRETS.mysql}`,
    "```",
    "",
    "Output:",
    "",
    "```text",
    TOOL_OUTPUT,
    "```",
    "",
    "#### Tool: apply_patch",
    "",
    "```text",
    PATCH,
    "```",
    "",
    "Output:",
    "",
    "```text",
    "Success. Updated the following files:\nA .env",
    "```",
    "",
    "#### 🤖 gpt-5.4 (medium)",
    "",
    `Deployed with ${SECRETS.mysql}.`,
    "",
    ...TAIL.flatMap((t, i) => [i % 2 ? "#### 🤖 gpt-5.4 (medium)" : "#### 👤 User Prompt", "", t, ""]),
  ].join("\n");
  const path = join(dir, `${id}-codex-export.md`);
  writeFileSync(path, text);
  return path;
}

function sweAgent(dir: string, id: string): string {
  const diff = `diff --git a/.env b/.env\nnew file mode 100644\n--- /dev/null\n+++ b/.env\n@@ -0,0 +1,8 @@\n${ENV_BODY.split(
    "\n",
  )
    .map((l) => `+${l}`)
    .join("\n")}\n`;
  const traj = {
    environment: "swe_main",
    trajectory: [
      {
        action: "cat .env\n",
        observation: TOOL_OUTPUT,
        response: "Reading the settings.",
        thought: "Reading the settings.",
      },
      {
        action: `create .env\n`,
        observation: "[File: /repo/.env (1 lines total)]",
        response: "Creating the settings.",
        thought: "Creating the settings.",
      },
      {
        action: `edit 1:1\n${ENV_BODY}\nend_of_edit\n`,
        observation: `[File: /repo/.env (8 lines total)]\n${ENV_BODY}`,
        response: `Set ${SECRETS.mysql}.`,
        thought: `Set ${SECRETS.mysql}.`,
      },
      ...TAIL.map((t) => ({ action: "ls\n", observation: t, response: t, thought: t })),
      { action: "submit\n", observation: diff, response: "Submitting.", thought: "Submitting." },
    ],
    history: [
      { role: "system", content: "SETTING: You are an autonomous programmer.", agent: "main" },
      { role: "user", content: USER_TEXT, agent: "main" },
      {
        role: "assistant",
        content: "Reading the settings.",
        thought: "Reading the settings.",
        action: "cat .env\n",
        agent: "main",
      },
      { role: "user", content: TOOL_OUTPUT, agent: "main" },
      {
        role: "assistant",
        content: "Editing.",
        thought: "Editing.",
        action: `edit 1:1\n${ENV_BODY}\nend_of_edit\n`,
        agent: "main",
      },
      { role: "user", content: ENV_BODY, agent: "main" },
      ...TAIL.map((t, i) => ({
        role: i % 2 ? "user" : "assistant",
        content: t,
        agent: "main",
        ...(i % 2 ? {} : { action: "ls\n", thought: t }),
      })),
    ],
    info: { submission: diff, exit_status: "submitted" },
  };
  const path = join(dir, `${id}.traj`);
  writeFileSync(path, JSON.stringify(traj, null, 2));
  return path;
}

function specStory(dir: string, id: string): string {
  const env = join(dir, ".env");
  const text = [
    "<!-- Generated by SpecStory, Markdown v2.1.0 -->",
    "",
    "# 2026-03-31 02:12:16Z",
    "",
    `<!-- Claude Code Session ${id} (2026-03-31 02:12:16Z) -->`,
    "",
    "_**User (2026-03-31 02:12:16Z)**_",
    "",
    USER_TEXT,
    "",
    "---",
    "",
    "_**Agent (claude-sonnet-4-6 2026-03-31 02:12:30Z)**_",
    "",
    '<tool-use data-tool-type="shell" data-tool-name="Bash"><details>',
    "<summary>Tool use: **Bash**</summary>",
    "",
    "```bash",
    `cat .env && ./deploy.sh --url ${SECRETS.mysql}`,
    "```",
    "",
    "```text",
    TOOL_OUTPUT,
    "```",
    "</details></tool-use>",
    "",
    '<tool-use data-tool-type="write" data-tool-name="Write"><details>',
    "<summary>Tool use: **Write**</summary>",
    "",
    "```env",
    ENV_BODY,
    "```",
    "",
    "```text",
    `File created successfully at: ${env}`,
    "```",
    "</details></tool-use>",
    "",
    '<tool-use data-tool-type="write" data-tool-name="Edit"><details>',
    "<summary>Tool use: **Edit**</summary>",
    "",
    "```diff",
    "-PORT=3000",
    "+API_KEY=KANARIEkv7620",
    "```",
    "",
    "```text",
    `The file ${env} has been updated successfully.`,
    "```",
    "</details></tool-use>",
    "",
    `Deployed with ${SECRETS.mysql}.`,
    "",
    ...TAIL.flatMap((t, i) => [
      "---",
      "",
      i % 2 ? "_**Agent (claude-sonnet-4-6 2026-03-31 02:20:00Z)**_" : "_**User (2026-03-31 02:19:00Z)**_",
      "",
      t,
      "",
    ]),
  ].join("\n");
  const path = join(dir, `${id}-specstory.md`);
  writeFileSync(path, text);
  return path;
}

function aider(dir: string, id: string): string {
  const text = [
    "",
    "# aider chat started at 2026-01-02 10:00:00",
    "",
    "> Aider v0.86.1",
    "",
    `#### ${USER_TEXT}`,
    "",
    "I'll write the settings file.",
    "",
    ".env",
    "```",
    "<<<<<<< SEARCH",
    "PORT=3000",
    "=======",
    ENV_BODY,
    ">>>>>>> REPLACE",
    "```",
    "",
    "> Tokens: 7.2k sent, 789 received.",
    "> Applied edit to .env",
    "> Commit 8ce02d8 chore: settings",
    "",
    "#### /run cat .env",
    "",
    ...TOOL_OUTPUT.split("\n").map((l) => `> ${l}  `),
    "",
    `#### Deploy with ${SECRETS.https} now`,
    "",
    `Deployed with ${SECRETS.mysql}.`,
    "",
    ...TAIL.flatMap((t, i) => (i % 2 ? [t, ""] : [`#### ${t}`, ""])),
  ].join("\n");
  const path = join(dir, `${id}.aider.chat.history.md`);
  writeFileSync(path, text);
  return path;
}

function messagesJson(dir: string, id: string): string {
  const msgs = [
    { role: "user", content: USER_TEXT },
    { role: "assistant", content: `Writing .env:\n${ENV_BODY}` },
    { role: "tool", content: TOOL_OUTPUT },
    { role: "assistant", content: `Deployed with ${SECRETS.mysql}.` },
    ...TAIL.map((t, i) => ({ role: i % 2 ? "assistant" : "user", content: t })),
  ];
  const path = join(dir, `${id}-messages.json`);
  writeFileSync(path, JSON.stringify(msgs, null, 2));
  return path;
}

function cline(dir: string, id: string): string {
  const env = "<environment_details>\n# VSCode Visible Files\n.env\n</environment_details>";
  const text = [
    "**User:**",
    "",
    `<task>\n${USER_TEXT}\n</task>`,
    env,
    "",
    "---",
    "",
    "**Assistant:**",
    "",
    `<execute_command>\n<command>cat .env && ./deploy.sh --url ${SECRETS.mysql}</command>\n</execute_command>`,
    "",
    "---",
    "",
    "**User:**",
    "",
    `[execute_command for 'cat .env'] Result:\nCommand executed.\nOutput:\n${TOOL_OUTPUT}`,
    env,
    "",
    "---",
    "",
    "**Assistant:**",
    "",
    `<write_to_file>\n<path>.env</path>\n<content>\n${ENV_BODY}\n</content>\n</write_to_file>`,
    "",
    "---",
    "",
    "**User:**",
    "",
    `[write_to_file for '.env'] Result:\nThe content was successfully saved to .env.\n\nHere is the full, updated content of the file that was saved:\n\n<final_file_content path=".env">\n${ENV_BODY}\n</final_file_content>`,
    env,
    "",
    "---",
    "",
    "**Assistant:**",
    "",
    `Deployed with ${SECRETS.mysql}.`,
    ...TAIL.flatMap((t, i) => ["", "---", "", i % 2 ? "**Assistant:**" : "**User:**", "", t]),
    "",
  ].join("\n");
  const path = join(dir, `${id}-cline.md`);
  writeFileSync(path, text);
  return path;
}

function blackbox(dir: string, id: string): string {
  let n = 0;
  const msg = (role: "User" | "Assistant", body: string) =>
    [`## ${role === "User" ? "💬" : "🤖"} ${role} #${++n}`, "", "_2026-03-02 09:14:05Z_", "", body, ""].join("\n");
  const text = [
    "---",
    `title: "deploy"`,
    `source: "Blackbox AI"`,
    "---",
    "",
    "# deploy",
    "",
    `**Session ID**: \`${id}\``,
    "",
    "---",
    "",
    msg("User", `<task>\n${USER_TEXT}\n</task>`),
    msg(
      "Assistant",
      `<execute_command>\n<command>cat .env && ./deploy.sh --url ${SECRETS.mysql}</command>\n</execute_command>`,
    ),
    msg("User", `[execute_command for 'cat .env'] Result:\n\nCommand executed.\nOutput:\n${TOOL_OUTPUT}`),
    msg("Assistant", `<create_file>\n<path>.env</path>\n<content>\n${ENV_BODY}\n</content>\n</create_file>`),
    msg("User", "[create_file for '.env'] Result:\n\nThe content was successfully saved to .env."),
    msg("Assistant", `Deployed with ${SECRETS.mysql}.`),
    ...TAIL.map((t, i) => msg(i % 2 ? "Assistant" : "User", t)),
  ].join("\n");
  const path = join(dir, `${id}-blackbox.md`);
  writeFileSync(path, text);
  return path;
}

function antigravity(dir: string, id: string): string {
  let step = 100;
  const rec = (source: string, type: string, content: string, extra: Record<string, unknown> = {}) =>
    JSON.stringify({
      step_index: step++,
      source,
      type,
      status: "DONE",
      created_at: "2026-05-11T16:00:00Z",
      content,
      ...extra,
    });
  const args = (o: Record<string, unknown>) =>
    Object.fromEntries(Object.entries(o).map(([k, v]) => [k, JSON.stringify(v)]));
  const env = join(dir, ".env");
  const lines = [
    rec("USER_EXPLICIT", "USER_INPUT", `<USER_REQUEST>\n${USER_TEXT}\n</USER_REQUEST>`),
    rec("MODEL", "PLANNER_RESPONSE", "I will read the settings.", {
      tool_calls: [
        {
          name: "run_command",
          args: args({ CommandLine: `cat .env && ./deploy.sh --url ${SECRETS.mysql}`, Cwd: dir }),
        },
      ],
    }),
    rec("MODEL", "RUN_COMMAND", `The command failed with exit code: 1\nOutput:\n${TOOL_OUTPUT}`),
    rec("MODEL", "PLANNER_RESPONSE", "I will write the settings file.", {
      tool_calls: [{ name: "write_to_file", args: args({ TargetFile: env, CodeContent: ENV_BODY, Overwrite: true }) }],
    }),
    rec(
      "MODEL",
      "CODE_ACTION",
      `Created file ${env} with requested content.\n[diff_block_start]\n${ENV_BODY.split("\n")
        .map((l) => `+${l}`)
        .join("\n")}\n[diff_block_end]`,
    ),
    rec("MODEL", "PLANNER_RESPONSE", `Deployed with ${SECRETS.mysql}.`),
    ...TAIL.map((t, i) =>
      i % 2
        ? rec("MODEL", "PLANNER_RESPONSE", t)
        : rec("USER_EXPLICIT", "USER_INPUT", `<USER_REQUEST>\n${t}\n</USER_REQUEST>`),
    ),
  ];
  const path = join(dir, `${id}-antigravity.jsonl`);
  writeFileSync(path, lines.join("\n") + "\n");
  return path;
}

function replit(dir: string, id: string): string {
  let mem = 1;
  const memory = (messages: unknown[]) => JSON.stringify({ memory_id: mem++, messages });
  const text = (t: string) => [{ type: "text", text: t }];
  const lines = [
    memory([{ role: "user", content: text(`<user_message>\n${USER_TEXT}\n</user_message>`) }]),
    memory([
      {
        role: "assistant",
        content: [],
        tool_calls: [
          { type: "tool", name: "bash", arguments: { command: `cat .env && ./deploy.sh --url ${SECRETS.mysql}` } },
        ],
      },
      {
        role: "tool",
        content: text(
          `Command exited with reason: \`Exited\` and exit code: \`1\`\nThe output was\n\`\`\`\n${TOOL_OUTPUT}\n\`\`\``,
        ),
        is_error: true,
      },
    ]),
    memory([
      {
        role: "assistant",
        content: [],
        tool_calls: [{ type: "tool", name: "write", arguments: { file_path: ".env", content: ENV_BODY } }],
      },
      { role: "tool", content: text("File created successfully at: .env") },
    ]),
    memory([
      {
        role: "assistant",
        content: [],
        tool_calls: [
          {
            type: "tool",
            name: "edit",
            arguments: { file_path: ".env", old_string: "PORT=3000", new_string: "API_KEY=KANARIEkv7620" },
          },
        ],
      },
      {
        role: "tool",
        content: text(
          `The file .env has been edited. Here's the result of running \`cat -n\` on a snippet of .env:\n     1→API_KEY=KANARIEkv7620`,
        ),
      },
    ]),
    memory([{ role: "assistant", content: text(`Deployed with ${SECRETS.mysql}.`) }]),
    ...TAIL.map((t, i) =>
      memory([
        i % 2
          ? { role: "assistant", content: text(t) }
          : { role: "user", content: text(`<user_message>\n${t}\n</user_message>`) },
      ]),
    ),
  ];
  const path = join(dir, `${id}-replit.jsonl`);
  writeFileSync(path, lines.join("\n") + "\n");
  return path;
}

/** A markdown export with emoji role headings and `Tool Use` / `Tool Result` blocks (format `markdown-chat`). */
function markdownChat(dir: string, id: string): string {
  const fence = "```";
  const msg = (role: string, body: string) => [
    "",
    "---",
    "",
    `### ${role === "user" ? "👤 User" : "🤖 Assistant"}`,
    "",
    body,
  ];
  const use = (name: string, input: Record<string, unknown>) =>
    `🔧 **Tool Use: ${name}**\n${fence}json\n${JSON.stringify(input, null, 2)}\n${fence}`;
  const result = (out: string) => `📊 **Tool Result:**\n${fence}\n${out}\n${fence}`;
  const text = [
    "# Session Export",
    "",
    `**Session token:** ${SECRETS.github}`,
    ...msg("user", USER_TEXT),
    ...msg("assistant", use("Bash", { command: `cat .env && ./deploy.sh --url ${SECRETS.mysql}` })),
    ...msg("user", result(TOOL_OUTPUT)),
    ...msg("assistant", use("Write", { file_path: ".env", content: ENV_BODY })),
    ...msg("user", result("File created successfully at: .env")),
    ...msg("assistant", `Deployed with ${SECRETS.mysql}.`),
    ...TAIL.flatMap((t, i) => msg(i % 2 ? "assistant" : "user", t)),
    "",
  ].join("\n");
  const path = join(dir, `${id}-markdown-chat.md`);
  writeFileSync(path, text);
  return path;
}

/** One writer per supported format, by the format compress_context detects. */
export const FORMAT_WRITERS: Record<string, Writer> = {
  "claude-code-jsonl": claudeCode,
  "codex-rollout-jsonl": codexRollout,
  "codex-export-md": codexExport,
  "swe-agent-traj": sweAgent,
  "specstory-md": specStory,
  "aider-md": aider,
  "messages-json": messagesJson,
  "cline-md": cline,
  "blackbox-md": blackbox,
  "antigravity-jsonl": antigravity,
  "replit-agent-jsonl": replit,
  "markdown-chat": markdownChat,
};
