// A real MCP SDK client connected to memcards over the in-memory transport.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { CreateMessageRequestSchema, ListRootsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import type { jsonSchemaValidator } from "@modelcontextprotocol/sdk/validation";

import { createAppCache } from "../../src/app-cache.js";
import type { ConfigFlags } from "../../src/config.js";
import { resolveConfig } from "../../src/config.js";
import { silentLogger } from "../../src/log.js";
import { createServer } from "../../src/server.js";

export interface Connected {
  client: Client;
  close(): Promise<void>;
}

/** Connects a client; `roots` (file:// URIs) are offered through the roots capability when given. */
export async function connect(
  opts: {
    flags?: ConfigFlags;
    env?: NodeJS.ProcessEnv;
    roots?: string[];
    cwd?: string;
    /** Offer sampling and answer each createMessage request's text with this. */
    sampling?: (prompt: string) => string | Promise<string>;
    /** The client's JSON Schema validator for tool results (default: the SDK's Ajv one). */
    validator?: jsonSchemaValidator;
  } = {},
): Promise<Connected> {
  const config = resolveConfig(opts.flags ?? {}, { ...process.env, ...opts.env });
  const apps = createAppCache(config, silentLogger);
  const server = createServer({ config, apps, logger: silentLogger, version: "test", cwd: opts.cwd ?? "/" });
  const client = new Client(
    { name: "memcards-test", version: "1.0.0" },
    {
      capabilities: { ...(opts.roots ? { roots: {} } : {}), ...(opts.sampling ? { sampling: {} } : {}) },
      ...(opts.validator ? { jsonSchemaValidator: opts.validator } : {}),
    },
  );
  if (opts.sampling) {
    const answer = opts.sampling;
    client.setRequestHandler(CreateMessageRequestSchema, async (req) => {
      const first = req.params.messages[0]?.content;
      const prompt = first && !Array.isArray(first) && first.type === "text" ? first.text : "";
      return { role: "assistant", model: "test-judge", content: { type: "text", text: await answer(prompt) } };
    });
  }
  if (opts.roots) {
    const roots = opts.roots;
    client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: roots.map((uri) => ({ uri })) }));
  }
  const [a, b] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(a), client.connect(b)]);
  return {
    client,
    async close() {
      await client.close();
      await server.close();
      await apps.closeAll();
    },
  };
}

/** The text of a tool result's first content block. */
export function textOf(result: unknown): string {
  const content = (result as { content?: { type: string; text?: string }[] }).content ?? [];
  return content.find((c) => c.type === "text")?.text ?? "";
}
