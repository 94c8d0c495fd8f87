// The compact and before-edit prompts through a real MCP client.
import { describe, expect, it } from "vitest";

import { connect } from "../helpers/mcp.js";
import { tmpDir } from "../helpers/tmp.js";

describe("prompts", () => {
  it("lists compact and before-edit and fills them in", async () => {
    const c = await connect({ flags: { root: tmpDir(), embedder: "offline" }, env: { MEMCARDS_HOME: tmpDir() } });
    try {
      const list = await c.client.listPrompts();
      expect(list.prompts.map((p) => p.name).sort()).toEqual(["before-edit", "compact"]);
      const compact = await c.client.getPrompt({ name: "compact", arguments: { focus: "the parser bug" } });
      const text = (compact.messages[0]!.content as { text: string }).text;
      expect(text).toContain("compress_context");
      expect(text).toContain('focus "the parser bug"');
      const edit = await c.client.getPrompt({
        name: "before-edit",
        arguments: { task: "fix tokenize", files: "src/a.ts, src/b.ts" },
      });
      expect((edit.messages[0]!.content as { text: string }).text).toContain(
        'get_memory_cards with task "fix tokenize" and files ["src/a.ts","src/b.ts"]',
      );
    } finally {
      await c.close();
    }
  });
});
