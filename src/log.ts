// The one logger: everything goes to stderr, because stdout belongs to the MCP protocol.

export type LogLevel = "debug" | "info" | "warn" | "error" | "silent";

const order: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

export interface Logger {
  debug(msg: string, extra?: Record<string, unknown>): void;
  info(msg: string, extra?: Record<string, unknown>): void;
  warn(msg: string, extra?: Record<string, unknown>): void;
  error(msg: string, extra?: Record<string, unknown>): void;
}

/** Creates a logger writing `memcards <level>: msg` lines to the given sink (stderr by default). */
export function createLogger(
  level: LogLevel = "info",
  sink: (line: string) => void = (line) => process.stderr.write(line + "\n"),
): Logger {
  const emit = (lvl: Exclude<LogLevel, "silent">, msg: string, extra?: Record<string, unknown>) => {
    if (order[lvl] < order[level]) return;
    const tail = extra && Object.keys(extra).length > 0 ? " " + JSON.stringify(extra) : "";
    sink(`memcards ${lvl}: ${msg}${tail}`);
  };
  return {
    debug: (m, e) => emit("debug", m, e),
    info: (m, e) => emit("info", m, e),
    warn: (m, e) => emit("warn", m, e),
    error: (m, e) => emit("error", m, e),
  };
}

/** A logger that drops everything (tests, library use). */
export const silentLogger: Logger = createLogger("silent");
