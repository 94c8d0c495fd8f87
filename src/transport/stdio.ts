// stdio framing in front of the SDK's transport: a line longer than the message cap is dropped as it streams in
// and answered with a JSON-RPC error, so the session goes on (the SDK's own reader closes the transport on an
// oversized line and leaves the process deaf).
import { type Readable, Transform, type TransformCallback, type Writable } from "node:stream";

import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { JSONRPCMessage, RequestId } from "@modelcontextprotocol/sdk/types.js";

import type { Logger } from "../log.js";

const NEWLINE = 0x0a;
/** How much of a dropped line's start and end is kept to find its id. */
const KEEP = 1024;

/** The id of a JSON-RPC request from the start or the end of its line, when it sits at the top level there. */
export function recoverId(head: string, tail: string): RequestId | undefined {
  const value = String.raw`(-?\d{1,15}|"(?:[^"\\]|\\.){0,200}")`;
  // `{"jsonrpc":"2.0","id":7,...`: the id before any nested object.
  const first = new RegExp(String.raw`^\s*\{[^{}]*?(?<!\\)"id"\s*:\s*${value}`).exec(head);
  // `...,"id":7}`: SDK clients write the id last; a single closing brace means the top level.
  const last = new RegExp(String.raw`(?<!\\)"id"\s*:\s*${value}\s*\}\s*$`).exec(tail.slice(-KEEP));
  const raw = first?.[1] ?? last?.[1];
  if (raw === undefined) return undefined;
  try {
    return JSON.parse(raw) as RequestId;
  } catch {
    return undefined;
  }
}

/** Passes complete lines of at most `max` bytes; reports longer ones (size, head, tail) and drops them. */
export class LineLimit extends Transform {
  private parts: Buffer[] = [];
  private size = 0;
  private dropping = false;
  private head = "";
  private tail: Buffer = Buffer.alloc(0);

  constructor(
    private readonly max: number,
    private readonly onOversize: (line: { bytes: number; head: string; tail: string }) => void,
  ) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    let start = 0;
    while (start < chunk.length) {
      const nl = chunk.indexOf(NEWLINE, start);
      const piece = chunk.subarray(start, nl === -1 ? chunk.length : nl);
      if (!this.dropping && this.size + piece.length > this.max) {
        // Over the cap: keep only the line's ends, to answer with its id, and stop buffering it.
        const sofar = Buffer.concat([...this.parts, piece]);
        this.head = sofar.subarray(0, KEEP).toString("utf8");
        this.tail = Buffer.from(sofar.subarray(-KEEP));
        this.parts = [];
        this.dropping = true;
        this.size += piece.length;
      } else if (this.dropping) {
        this.size += piece.length;
        this.tail = Buffer.from(Buffer.concat([this.tail, piece]).subarray(-KEEP));
      } else {
        this.parts.push(piece);
        this.size += piece.length;
      }
      if (nl === -1) break;
      if (this.dropping) {
        this.onOversize({ bytes: this.size, head: this.head, tail: this.tail.toString("utf8") });
      } else {
        this.parts.push(Buffer.from([NEWLINE]));
        this.push(Buffer.concat(this.parts));
      }
      this.parts = [];
      this.size = 0;
      this.dropping = false;
      this.head = "";
      this.tail = Buffer.alloc(0);
      start = nl + 1;
    }
    done();
  }
}

/**
 * The server's stdio transport with a per-message cap: an oversized request is answered with a JSON-RPC
 * error carrying its id (when it can be read from the line's ends; otherwise it is logged) and the next
 * message is read as usual.
 */
export function boundedStdioTransport(opts: {
  maxBytes: number;
  logger: Logger;
  stdin?: Readable;
  stdout?: Writable;
}): StdioServerTransport {
  const stdin = opts.stdin ?? process.stdin;
  const limit = new LineLimit(opts.maxBytes, ({ bytes, head, tail }) => {
    const id = recoverId(head, tail);
    const message = `message of ${bytes} bytes is over the ${opts.maxBytes}-byte limit and was not read; send less (for compress_context, pass transcript_path instead of messages)`;
    opts.logger.warn(`refused a stdio message: ${message}`, { id: id ?? null });
    if (id === undefined) return;
    const reply: JSONRPCMessage = { jsonrpc: "2.0", id, error: { code: -32600, message } };
    transport.send(reply).catch((err: unknown) => opts.logger.warn(`reply failed: ${(err as Error).message}`));
  });
  // Lines reaching the SDK are at most maxBytes long: its own buffer limit never trips.
  const transport = new StdioServerTransport(limit, opts.stdout ?? process.stdout, {
    maxBufferSize: opts.maxBytes * 2 + 1,
  });
  stdin.pipe(limit);
  return transport;
}
