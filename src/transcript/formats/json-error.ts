// Where a JSON document goes wrong, as a line and column: parse errors name the place, never the file's bytes.

const SCALAR = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null/y;
const WS = new Set([" ", "\t", "\n", "\r"]);
const ESCAPES = new Set(['"', "\\", "/", "b", "f", "n", "r", "t"]);

/** Offset of the first JSON syntax error in `text` (`text.length` when it ends early), or -1 when it is valid. */
export function jsonErrorOffset(text: string): number {
  const n = text.length;
  let i = 0;
  const stack: string[] = [];
  const ws = () => {
    while (i < n && WS.has(text[i]!)) i++;
  };
  // Reads a string starting at `"`; false leaves `i` at the fault.
  const str = (): boolean => {
    i++;
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 34) {
        i++;
        return true;
      }
      if (c < 32) return false;
      if (c === 92) {
        const e = text[i + 1];
        if (e === "u") {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) return false;
          i += 6;
        } else if (e !== undefined && ESCAPES.has(e)) i += 2;
        else return false;
      } else i++;
    }
    return false;
  };
  // Reads `"key":` inside an object; false leaves `i` at the fault.
  const key = (): boolean => {
    if (text[i] !== '"' || !str()) return false;
    ws();
    if (text[i] !== ":") return false;
    i++;
    return true;
  };
  let expectValue = true;
  for (;;) {
    ws();
    if (expectValue) {
      if (i >= n) return n;
      const c = text[i];
      if (c === "[" || c === "{") {
        stack.push(c);
        i++;
        ws();
        if (text[i] === (c === "[" ? "]" : "}")) {
          stack.pop();
          i++;
          expectValue = false;
        } else if (c === "{" && !key()) return i;
        continue;
      }
      if (c === '"') {
        if (!str()) return i;
      } else {
        SCALAR.lastIndex = i;
        if (!SCALAR.test(text)) return i;
        i = SCALAR.lastIndex;
      }
      expectValue = false;
      continue;
    }
    const top = stack[stack.length - 1];
    if (top === undefined) return i < n ? i : -1;
    if (i >= n) return n;
    if (text[i] === ",") {
      i++;
      ws();
      if (top === "{" && !key()) return i;
      expectValue = true;
    } else if (text[i] === (top === "[" ? "]" : "}")) {
      stack.pop();
      i++;
    } else return i;
  }
}

/** What is wrong with JSON text that failed to parse, by place only: "line 3, column 7" or "it ends early". */
export function jsonProblem(text: string): string {
  const at = jsonErrorOffset(text);
  if (at < 0) return "not valid JSON";
  if (at >= text.length) return `not valid JSON: it ends early (line ${text.split("\n").length})`;
  const before = text.slice(0, at);
  const line = before.split("\n").length;
  const column = at - before.lastIndexOf("\n");
  return `not valid JSON at line ${line}, column ${column}`;
}
