// defineTool: one MCP tool as data (name, schemas, annotations, run) and the one way every tool is registered.
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type { ServerNotification, ServerRequest } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";

import { AppError } from "../errors.js";
import { fromWire, toWire, wireSchema } from "../text/case.js";
import type { ToolDeps } from "./context.js";
import { guard, ok } from "./result.js";

/** All four hints, always declared: clients decide on them whether to ask before a call. */
export interface Annotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/** The request a tool runs in: its abort signal, progress token and notification channel. */
export type ToolRequest = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** What a tool's run returns: markdown for the model, and the structured object its output schema describes (camelCase). */
export interface ToolReply<O extends z.ZodObject> {
  text: string;
  data: z.input<O>;
}

/** One domain call, rendered; thrown errors become `isError` results. */
export type ToolRun<I extends z.ZodObject, O extends z.ZodObject> = (
  args: z.output<I>,
  deps: ToolDeps,
  request: ToolRequest,
) => Promise<ToolReply<O>> | ToolReply<O>;

export interface ToolSpec<I extends z.ZodObject, O extends z.ZodObject> {
  name: string;
  title: string;
  description: string;
  /** The arguments, camelCase as the domain names them; the wire's snake_case schema is derived from it. */
  input: I;
  /**
   * The shape of `structuredContent`, camelCase (published in snake_case, derived from it); no defaults or
   * transforms (it describes, never fills in).
   */
  output: O;
  annotations: Annotations;
  /**
   * The run, loaded on the tool's first call (a dynamic import of its `.run.js` module), so that listing the tools
   * loads no domain code; or `run` itself.
   */
  load?: () => Promise<ToolRun<I, O>>;
  run?: ToolRun<I, O>;
}

export interface Tool {
  name: string;
  /** The input schema as published (snake_case). */
  input: z.ZodObject;
  /** The output schema as published (snake_case): the tool's own plus `truncated`. */
  output: z.ZodObject;
  register(server: McpServer, deps: ToolDeps): void;
}

/**
 * Set only when a result was too large and optional fields were left out (result.ts), naming them; declared
 * on every output schema so that a cut result still validates.
 */
const Truncated = { truncated: z.string().optional() };

/**
 * A tool: registered with its input and output schemas and all four annotations, its result bounded. The edge
 * between the wire's snake_case and the inside's camelCase: arguments are renamed before `run`, results after.
 */
export function defineTool<I extends z.ZodObject, O extends z.ZodObject>(spec: ToolSpec<I, O>): Tool {
  const input = wireSchema(spec.input);
  const output = wireSchema(spec.output).extend(Truncated);
  let loading: Promise<ToolRun<I, O>> | undefined;
  const runOf = (): Promise<ToolRun<I, O>> | ToolRun<I, O> => {
    if (spec.run) return spec.run;
    if (!spec.load) throw new AppError("INTERNAL", `${spec.name} has neither run nor load`);
    loading ??= spec.load();
    // A failed load is tried again on the next call rather than kept.
    loading.catch(() => (loading = undefined));
    return loading;
  };
  const optional = Object.entries(output.shape)
    .filter(([, field]) => (field as z.ZodType).safeParse(undefined).success)
    .map(([key]) => key);
  return {
    name: spec.name,
    input,
    output,
    register(server, deps) {
      server.registerTool(
        spec.name,
        {
          title: spec.title,
          description: spec.description,
          inputSchema: input as z.ZodObject,
          outputSchema: output,
          annotations: spec.annotations,
        },
        (args, request) =>
          guard(async () => {
            const run = await runOf();
            const r = await run(fromWire(spec.input, args), deps, request);
            // What leaves is the declared shape: keys the schema does not name are dropped here, not sent.
            const data = spec.output.safeParse(r.data);
            if (!data.success)
              throw new AppError(
                "INTERNAL",
                `${spec.name} built a result outside its output schema: ${z.prettifyError(data.error)}`,
              );
            return ok(r.text, toWire(spec.output, data.data) as Record<string, unknown>, optional);
          }, deps.logger),
      );
    },
  };
}
