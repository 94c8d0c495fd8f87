// Prompts: `compact` (compress, then continue from the summary) and `before-edit` (cards before touching files).
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";

export function registerPrompts(server: McpServer): void {
  server.registerPrompt(
    "compact",
    {
      title: "Compact this conversation with memcards",
      description: "Compress the conversation into an anchored summary and continue from it.",
      argsSchema: {
        transcript_path: z.string().optional().describe("this session's transcript file, if you know it"),
        focus: z.string().optional().describe("what to keep first"),
      },
    },
    ({ transcript_path, focus }) => ({
      messages: [
        {
          role: "user",
          content: {
            type: "text",
            text: [
              "Call the memcards tool compress_context",
              transcript_path
                ? `with transcript_path "${transcript_path}"`
                : "(it finds this session's transcript itself)",
              focus ? `and focus "${focus}"` : "",
              ". Then continue the work from the returned summary: keep its User Constraints, do not redo what Completed lists, start from Next Steps.",
            ]
              .filter(Boolean)
              .join(" "),
          },
        },
      ],
    }),
  );
  server.registerPrompt(
    "before-edit",
    {
      title: "Memory cards before an edit",
      description: "Get the few pieces of context most likely to change the next edit.",
      argsSchema: {
        task: z.string().describe("what you are about to change and why (issue text, stack trace)"),
        files: z.string().optional().describe("comma-separated paths you plan to touch"),
      },
    },
    ({ task, files }) => ({
      messages: [
        {
          role: "user",
          content: {
            type: "text",
            text: `Before editing, call the memcards tool get_memory_cards with task ${JSON.stringify(task)}${
              files
                ? ` and files ${JSON.stringify(
                    files
                      .split(",")
                      .map((f) => f.trim())
                      .filter(Boolean),
                  )}`
                : ""
            }. Follow each card's "do" line, respect rule and constraint cards, run the test cards after the edit, and report which cards helped with record_outcome.`,
          },
        },
      ],
    }),
  );
}
