// `memcards eval toolsize`: what memcards' tools/list (and the server instructions) cost in every session's
// context, counted with a real tokenizer over exactly what a client receives.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";

import { createAppCache } from "../src/app-cache.js";
import type { Config } from "../src/config.js";
import { silentLogger } from "../src/log.js";
import { createServer } from "../src/server.js";
import { countTokens } from "../src/text/tokens.js";

export interface ToolSize {
  total: number;
  instructions: number;
  tools: { name: string; tokens: number }[];
}

export async function measureToolSize(config: Config, version: string): Promise<ToolSize> {
  const apps = createAppCache(config, silentLogger);
  const server = createServer({ config, apps, logger: silentLogger, version, cwd: process.cwd() });
  const client = new Client({ name: "memcards-toolsize", version });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(a), client.connect(b)]);
  try {
    const list = await client.listTools();
    const tools = list.tools.map((t) => ({ name: t.name, tokens: countTokens(JSON.stringify(t)) }));
    const instructions = countTokens(client.getInstructions() ?? "");
    return { total: tools.reduce((n, t) => n + t.tokens, 0) + instructions, instructions, tools };
  } finally {
    await client.close();
    await server.close();
    await apps.closeAll();
  }
}

export function renderToolSize(s: ToolSize): string {
  return [
    `tools/list and instructions: ${s.total} tokens (cl100k) in every session`,
    `  instructions: ${s.instructions}`,
    ...s.tools.sort((x, y) => y.tokens - x.tokens).map((t) => `  ${t.name}: ${t.tokens}`),
  ].join("\n");
}
