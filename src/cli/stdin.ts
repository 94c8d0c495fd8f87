// Reading a hook's JSON from stdin without ever hanging on an open pipe.

/** Reads stdin to the end, or gives up after `ms` (a hook must never hang on an open pipe). */
export function readStdin(ms: number): Promise<string> {
  if (process.stdin.isTTY) return Promise.resolve("");
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const done = () => resolve(Buffer.concat(chunks).toString("utf8"));
    const timer = setTimeout(() => {
      process.stdin.pause();
      done();
    }, ms);
    const end = () => {
      clearTimeout(timer);
      done();
    };
    process.stdin.on("data", (c: Buffer) => chunks.push(c));
    process.stdin.on("end", end);
    process.stdin.on("error", end);
  });
}
