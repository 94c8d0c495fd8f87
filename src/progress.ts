// A one-line progress display for the CLI on stderr (redrawn on a TTY; otherwise a line at each new phase and
// every few seconds in between).

export interface ProgressLine {
  /** Shows `text`; off a TTY, a `phase` other than the last shown one prints at once. */
  update(text: string, phase?: string): void;
  done(text?: string): void;
}

/** Creates a progress line on stderr; silent when `enabled` is false. */
export function createProgressLine(enabled = true): ProgressLine {
  const tty = process.stderr.isTTY;
  let last = 0;
  let shown = false;
  let lastPhase: string | undefined;
  return {
    update(text, phase) {
      if (!enabled) return;
      const now = Date.now();
      if (tty) {
        if (now - last < 80) return;
        process.stderr.write(`\r\x1b[K${text}`);
        shown = true;
      } else {
        if (now - last < 3000 && (phase === undefined || phase === lastPhase)) return;
        process.stderr.write(text + "\n");
        lastPhase = phase;
      }
      last = now;
    },
    done(text) {
      if (!enabled) return;
      if (tty && shown) process.stderr.write("\r\x1b[K");
      if (text) process.stderr.write(text + "\n");
    },
  };
}

/** `[#####.....] 120/1511 files` */
export function bar(done: number, total: number, width = 24): string {
  const frac = total > 0 ? Math.min(1, done / total) : 0;
  const n = Math.round(frac * width);
  return `[${"#".repeat(n)}${".".repeat(width - n)}]`;
}
