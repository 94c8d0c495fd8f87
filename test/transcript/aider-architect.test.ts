// aider in architect mode with a reasoning model: the reasoning markup, the yes/no prompts the person answers, the
// architect's reply handed to the editor, and the edits aider applies at the end of the session.
import { describe, expect, it } from "vitest";

import { extractSections } from "../../src/transcript/extraction/extract.js";
import { mergeSections } from "../../src/transcript/extraction/merge.js";
import { parseText } from "../../src/transcript/formats/parse.js";

const fence = "```";
const HASH = "0f3c9a7e5b1d4c2a8e6f0b9d7c5a3e1f";

const REPLY = [
  "The crash comes from `load_config()` reading the file before the directory exists.",
  "",
  "1. In `app/config.py`, create the directory before opening the file.",
  "2. Keep the default path unchanged.",
];

/** An aider history of that shape, written for this test. */
const HISTORY = [
  "# aider chat started at 2025-06-01 10:00:00",
  "",
  "> aider --architect --model openai/local-reasoner  ",
  "> Aider v0.86.1  ",
  "> Git repo: .git with 40 files  ",
  "",
  "#### The app crashes on first start: FileNotFoundError for ~/.config/demo/settings.toml. Please fix it.  ",
  "",
  "> app/config.py  ",
  "",
  "#### Add file to the chat? (Y)es/(N)o/(A)ll/(S)kip all/(D)on't ask again [Yes]: y  ",
  "",
  `<thinking-content-${HASH}>`,
  "",
  "The user reports a crash. The config directory might not exist on a first start.",
  "",
  `</thinking-content-${HASH}>`,
  "",
  ...REPLY,
  "",
  "> Tokens: 3.1k sent, 420 received.  ",
  "",
  ...REPLY.map((l) => (l ? `#### ${l}  ` : "####   ")),
  "",
  `<thinking-content-${HASH}>`,
  "",
  "I need to add a mkdir call before the open.",
  "",
  `</thinking-content-${HASH}>`,
  "",
  "app/config.py",
  `${fence}python`,
  "<<<<<<< SEARCH",
  "    with open(path) as f:",
  "=======",
  "    path.parent.mkdir(parents=True, exist_ok=True)",
  "    with open(path) as f:",
  ">>>>>>> REPLACE",
  fence,
  "",
  "> Tokens: 2.0k sent, 150 received.  ",
  "> Committing app/config.py before applying edits.  ",
  "> Commit 1111111 chore: save work in progress  ",
  "> Applied edit to app/config.py  ",
  "> Commit 2222222 fix: create the config directory before reading settings  ",
  "",
].join("\n");

describe("aider architect mode", () => {
  const t = parseText(HISTORY, "aider-md");

  it("leaves the reasoning markup out of the replies", () => {
    const said = t.turns.filter((x) => x.role === "assistant").map((x) => x.text);
    expect(said.length).toBe(2);
    for (const s of said) expect(s).not.toMatch(/thinking-content|might not exist|I need to add/);
    expect(said[0]).toMatch(/^The crash comes from/);
  });

  it("keeps reasoning markup that sits in the code a reply shows or edits", () => {
    const code = [
      "      <details>",
      "        <summary>Reasoning</summary>",
      "        {msg.reasoning}",
      "      </details>",
      '      <p>{msg.text.replace("<think>", "")}</p>',
    ];
    const history = [
      "# aider chat started at 2025-01-01 10:00:00",
      "",
      "#### show the model's reasoning in a collapsible block",
      "",
      "<think>The component is small.</think>",
      "",
      "src/Message.tsx",
      `${fence}tsx`,
      "<<<<<<< SEARCH",
      "      <p>{msg.text}</p>",
      "=======",
      ...code,
      ">>>>>>> REPLACE",
      fence,
      "",
      "> Applied edit to src/Message.tsx",
    ].join("\n");
    const reply = parseText(history, "aider-md").turns.find((t) => t.role === "assistant")!;
    expect(reply.text).toContain(code.join("\n"));
    expect(reply.text).not.toContain("The component is small.");
  });

  it("reads answers to aider's yes/no prompts and the editor handoff as the client's, not the person's", () => {
    const users = t.turns.filter((x) => x.role === "user");
    expect(users.map((u) => [u.kind, u.text.slice(0, 20)])).toEqual([
      ["message", "The app crashes on f"],
      ["meta", "Add file to the chat"],
      ["meta", "The crash comes from"],
    ]);
  });

  it("keeps a person's message that quotes a yes/no prompt, and reads a prompt line of any length in one pass", () => {
    const quoted = "Should the prompt read (Y)es/(N)o [Yes]: instead";
    const long = `(Y)es/(N)o ${"[".repeat(200_000)}`;
    const history = [
      "# aider chat started at 2025-01-01 10:00:00",
      "",
      `#### ${quoted}`,
      "",
      "ok",
      "",
      `#### ${long}`,
      "",
      "ok",
    ];
    const users = parseText(history.join("\n"), "aider-md").turns.filter((t) => t.role === "user");
    expect(users.map((t) => [t.kind, t.text])).toEqual([
      ["message", quoted],
      ["message", long],
    ]);
  });

  it("lists the file aider applied an edit to, also when the edit is among the kept last turns", () => {
    const all = extractSections(t.turns, {});
    expect(Object.keys(all.files)).toEqual(["app/config.py"]);
    const last = t.turns.findIndex((x) => x.tool_calls.some((c) => c.name === "aider_edit"));
    const kept = extractSections(t.turns.slice(0, last - 1), { after: t.turns.slice(last - 1) });
    expect(kept.files["app/config.py"]?.map((f) => f.op)).toEqual(["applied edit"]);
  });

  it("lists an edit once when the span that kept it and the span that summarizes it are merged", () => {
    const last = t.turns.findIndex((x) => x.tool_calls.some((c) => c.name === "aider_edit"));
    const first = extractSections(t.turns.slice(0, last - 1), { after: t.turns.slice(last - 1) });
    const second = extractSections(t.turns.slice(last - 1), {});
    expect(mergeSections(first, second).files["app/config.py"]?.map((f) => f.op)).toEqual(["applied edit"]);
  });
});
