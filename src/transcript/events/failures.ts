// Failures the session really hit: failed tool results, error lines of tool output, errors the person pasted, and
// client errors (an unknown skill). Never file contents a read showed, command bookkeeping, warnings or documents.
import type { Failure, ToolCall, ToolResult, Turn } from "../../conversation/schema.js";
import { signature } from "../../text/signature.js";
import { humanPart } from "../extraction/human.js";
import { clipWords } from "../rendering/clip.js";
import { commandText, displayPath, fileEvents } from "./ledger.js";

/** A line that reports an error, in any tool's or runtime's words. */
const ERROR_LINE = new RegExp(
  [
    String.raw`\b[A-Z][\w.]*(?:Error|Exception|Failed|Failure)\b(?:\s*\[[\w-]+\])?\s*[:(]`,
    String.raw`\b[A-Z][\w.]*(?:Error|Exception)$`,
    String.raw`\bTraceback \(most recent call last\)`,
    String.raw`(?:^|\s)(?:error|ERROR|Error)(?:\[\w+\])?(?:\s+[A-Z]{1,4}\d{3,5})?\s*:`,
    String.raw`\berror [A-Z]{1,4}\d{3,5}\b`,
    String.raw`^(?:npm ERR!|npm error|fatal:|panic:|FATAL\b)`,
    String.raw`^\s*(?:FAIL|FAILED|✗|×|✖)\s`,
    String.raw`\b[1-9]\d* (?:failed|failing|errors?)\b`,
    String.raw`\b(?:command not found|No such file or directory|Permission denied|Segmentation fault|Connection refused)\b`,
    String.raw`\b(?:is not defined|has no attribute|does not exist|is not a function|is not iterable|not supported|is not recognized)\b`,
    String.raw`\b(?:Uncaught|Unhandled)\b`,
    String.raw`\b(?:timed out|ECONNREFUSED|EADDRINUSE|ENOENT|EACCES|ERR_[A-Z_]+)\b`,
    String.raw`\b[45]\d\d (?:Method Not Allowed|Not Found|Forbidden|Unauthorized|Bad Request|Internal Server Error)\b`,
    String.raw`\b(?:[Ee]xit(?:ed)? (?:code|status)|exited with code)\s*:?\s*[1-9]`,
    String.raw`\b(?:rejected|denied|refused|blocked by)\b`,
    String.raw`\bnot found\b`,
    String.raw`^\S+:\d+(?::\d+)?:\s+[EF]\d{3,4}\s`,
    // Runtimes, compilers, test runners and build tools in their own words.
    String.raw`^\s*--- FAIL: \S`, // go test
    String.raw`\bpanicked at\b|^test \S+ \.\.\. FAILED$|^test result: FAILED\b`, // Rust, cargo test
    String.raw`^g?make(?:\[\d+\])?: \*\*\* .*\bError \d+`, // make
    String.raw`^\[[\w .-]*\bError\] Line \d+:`, // an editor's diagnostic after a save: `[ts Error] Line 3: …`
    String.raw`^\s*\d+:\d+\s+error\s{2,}\S`, // ESLint's stylish lines: `12:5  error  …`
    String.raw`^\s*● (?:.+ › .+|Test suite failed to run)`, // Jest
    String.raw`\bException in thread "|\bBUILD (?:FAILED|FAILURE)\b|^FAILURE: |\bExecution failed for task\b`, // Java, Ant, Gradle, Maven
    String.raw`\bundefined reference to\b|\bcore dumped\b`, // the linker, a crash
  ].join("|"),
);
/**
 * Words of inability (`Cannot find module`, `Unable to initialize`): an error when the line reads as a message, but
 * also the words of prose, plans and questions ("those statements cannot both be true", "I can't find the page?").
 */
const INABILITY = /\b(?:[Ff]ailed to|[Uu]nable to|[Cc]annot|[Cc]ould not|[Cc]an't)\s+\w+/;
/**
 * The message shape of an inability: a capitalized message (`Unable to …`, `"Failed to reload …`), or one after a
 * `source:` prefix (`dir: cannot access …`).
 */
const INABILITY_MESSAGE =
  /(?:^|[:"'`[(]\s*|\s-\s)(?:Failed to|Unable to|Cannot|Could not|Can't)\b|^[^\s:][^:]{0,60}:\s*(?:failed to|unable to|cannot|could not|can't)\b/;
/** The person saying what they cannot do ("I can't find role center"): a request or a question, not an error. */
const PERSONAL = /\bI\b[^.?!]{0,40}?\b(?:can'?t|cannot|could ?n[o']t|am unable to|was unable to)\b/;
/** Prose about what could go wrong (a review comment, a plan): `If listen() fails …`, `… can crash the process`. */
const HYPOTHETICAL =
  /\b(?:[Ii]f|[Uu]nless|[Oo]therwise)\b[^.;]{0,80}\b(?:fails?|rejects?|throws?|errors? out|crash(?:es)?)\b|\b(?:can|could|may|might|would|will)\s+(?:either\s+)?(?:crash|fail|throw|break)\b/;

/** Whether a line's words of inability read as an error message rather than prose, a plan or a question. */
function inabilityMessage(line: string): boolean {
  if (INABILITY_MESSAGE.test(line)) return true;
  // A short sentence of its own (`The requested operation cannot be performed in this context.`), not the person's.
  return (
    /^[A-Z0-9]/.test(line) && line.split(/\s+/).length <= 20 && !line.trimEnd().endsWith("?") && !PERSONAL.test(line)
  );
}

/** A named exception, a traceback or an error code: enough on its own. */
const STRONG =
  /\b[A-Z]\w*(?:Error|Exception)\b|\bTraceback\b|\bUncaught\b|\bERR_[A-Z_]+\b|\berror [A-Z]{1,4}\d{3,5}\b|^\s*FAIL(?:ED)?\b|\bpanic:|^\s*--- FAIL: |\bpanicked at\b|\berror\[E\d{4}\]|^\s*● \S|\bException in thread\b|\bSegmentation fault\b|\bcore dumped\b/;

/** The longest line the error rules look at. */
const MAX_LINE = 2000;

/** A named exception or error code with its message: `KeyError: 'id'`, `error TS2322: …`. */
const NAMED = /\b[A-Z][\w.]*(?:Error|Exception|Failed|Failure)\b\s*(?:\[[\w-]+\])?\s*:|\berror [A-Z]{1,4}\d{3,5}\b/;
/** A tool call the person declined (Claude Code, Cline): their choice, not an error. */
const DECLINED =
  /\b[Tt]he user (?:denied|rejected|declined)\b|\bdoesn't want to proceed with this tool use\b|\btool use was rejected\b/;

/** Whether a tool result says the person declined the call. */
export function isDeclined(output: string): boolean {
  return DECLINED.test(output.slice(0, 400));
}

/** Lines that carry error words without reporting an error the session hit. */
const NOT_ERROR: RegExp[] = [
  /^\s*\d+(?:\s*[→│|\t]|:\s| {2,}\S)/, // numbered source lines of a file read, nl, grep -n
  /^\s*\d+\s+\d+\s*[│|]/, // side-by-side diff line numbers
  /^[^\s:]*[./\\][^\s:]*:\d+[:-](?!\d*:?\s*(?:-\s+)?(?:error|Error|ERROR|fatal|[EF]\d{3,4}\s))/, // grep hits (path:line:), not lint errors
  /^(?:Chunk ID|Wall time|Original token count|Process (?:exited|running)|Output|Exit code: 0|Total output lines)\b/i, // exec bookkeeping
  /^\s*(?:npm|yarn|pnpm)\s+(?:warn|WARN|notice)\b/, // package manager warnings
  /^\s*(?:[Ww]arn(?:ing)?|WARN(?:ING)?|DeprecationWarning|deprecated)\b/,
  DECLINED, // a declined operation: the person's choice, kept among the blockers

  /^[+-](?![+-])|^@@ /, // diff lines
  /^\s*(?:\/\/|#(?!\s*\d)|\*|\/\*|<!--)/, // comments
  /^\s*(?:public|private|protected|internal|readonly|static|const|let|var|def|class|import|from|export|return|throw|raise|if|elif|else|except|catch|try|function|async|await|assert|expect|print|console\.|logger\.|log\.|self\.|this\.)\b/, // code
  /[;{([]\s*$/, // code
  /\blambda\b[\w\s,*]*:/, // code
  /^\s*"[\w-]+":\s*(?!")/, // JSON members (not `"error": "message"`)
  /^\s*(?:[-*•]|\d+\.)\s/, // bullets and numbered items of documents and plans
  /^\s*(?:at |File "|\^|~|\.\.\.|-{3,}\s*$)/, // stack frames and rules
  /^\s*\|.*\|\s*$/, // table rows
  /^\s*<\/?[a-zA-Z][\w-]*(?:\s[^>]*)?>/, // markup
  /^(?:Repo-map can't include|Added .* to (?:the chat|read-only files))/, // aider's own status lines
  /^\s*[a-z_]\w*\s*[?]?:\s*(?:str|int|float|bool|dict|list|string|number|boolean|Optional\[|Any\b|None\b)/, // typed fields
  /^\s*(?:echo|printf|write-host)\b/i, // messages a script prints
  /\(0 errors?,|^\s*0 errors?\b/, // lint summaries without errors
  /^(?:npm (?:ERR!|error)|error|Error|ERROR|fatal)\s*:?\s*(?:$|To see|A complete log|npm run|\s{2,})/, // empty or continuation lines
  /^Exit code \d+\s*$/, // the exit line of a failed command: its message is the next line
  /^\s*(?:code|errno|syscall|address|port|path|stack):\s/, // fields of a printed error object
];
/** Tools whose successful output is file or search content: nothing in it is an error the session hit. */
const READ_TOOLS =
  /^(?:read|read_file|readfile|view|view_file|open|open_file|cat|notebookread|grep|glob|ls|list_dir|list_files|search|grep_search|file_search|codebase_search|find|webfetch|web_fetch|websearch|web_search|fetch|read_many_files|search_files|copilot_readfile|copilot_findtextinfiles)$/i;
/** Shell commands that only show content (a file, a search, history). */
const READ_COMMANDS =
  /^\s*(?:cd\s+\S+\s*&&\s*)?(?:cat|nl|head|tail|less|sed\s+-n|grep|rg|ag|find|ls|tree|git\s+(?:show|log|diff|blame|grep)|wc|awk|jq|type|Get-Content)\b/;

interface Hit {
  line: string;
  role: "user" | "tool" | "assistant";
  /** File names the surrounding output mentions (a traceback's frames): what a fix would touch. */
  files: string[];
}

function cleanLine(raw: string): string {
  return raw
    .replace(/<\/?tool_use_error>/g, "")
    .replace(/^[^\t\n]*\t[^\t\n]*\t\d{4}-\d\d-\d\dT[\d:.]+Z\s*/, "") // CI log prefix: job, step, time
    .replace(/^\d{4}-\d\d-\d\dT[\d:.]+Z\s+/, "")
    .replace(/^#{1,6}\s+/, "")
    .replace(/^>\s?/, "")
    .trim()
    .replace(/^[-*•]\s+(?=\[[\w .-]*\b(?:Error|error|ERROR)\])/, "") // an editor's diagnostic: `- [eslint Error] …`
    .replace(/^[-*•]\s+(?=[EF]\d{3,4}\s+[A-Z]\w*(?:Error|Exception):)/, ""); // a linter's listed error: `- E999 SyntaxError: …`
}

function isErrorLine(line: string, strongOnly: boolean): boolean {
  if (line.length < 6 || line.length > 4000) return false;
  if (NOT_ERROR.some((re) => re.test(line))) return false;
  // What could fail, in a sentence of prose, is not a failure; a named exception with its message still is.
  if (!NAMED.test(line) && HYPOTHETICAL.test(line) && line.split(/\s+/).length >= 12) return false;
  const error = ERROR_LINE.test(line) || (INABILITY.test(line) && inabilityMessage(line));
  return strongOnly ? STRONG.test(line) && error : error;
}

/** Where in a long log line the error is: the kept window starts shortly before it. */
function window(line: string): string {
  if (line.length <= 220) return line;
  const first = Math.min(ERROR_LINE.exec(line)?.index ?? Infinity, INABILITY.exec(line)?.index ?? Infinity);
  const at = STRONG.exec(line)?.index ?? (Number.isFinite(first) ? first : 0);
  // Start at a word: the last space at least 40 characters before the error.
  const start = at > 60 ? line.lastIndexOf(" ", at - 40) + 1 : 0;
  return `${start > 0 ? "…" : ""}${clipWords(line.slice(start), 220)}`;
}

const FILE_NAME = /[\w@-][\w.@-]*\.(?:[a-z]{1,5}x?|ya?ml|json|toml)\b/gi;
/** A run of the characters a file name is made of. */
const NAME_RUN = /[\w.@-]+/g;

function filesIn(text: string): string[] {
  // Matched run by run: FILE_NAME backtracks over a whole run from each of its characters, so one long run (a
  // base64 blob, a line of x) would cost its length squared. A run over 256 characters is no file name.
  const runs = (text.slice(0, 20_000).match(NAME_RUN) ?? []).filter((r) => r.length <= 256);
  return [...new Set(runs.flatMap((r) => [...r.matchAll(FILE_NAME)].map((m) => m[0].toLowerCase())))];
}

/** Error lines of a text, named exceptions first, at most `max`. */
function errorLines(text: string, max: number, strongOnly: boolean): string[] {
  const lines = text.split("\n").map(cleanLine);
  const picked: string[] = [...recordMessages(lines)].slice(0, max);
  // Named exceptions with their message first, then other strong lines, then the rest.
  const named = (l: string) => NAMED.test(l);
  // A closing tally or exit line goes last: the lines that say what failed come first.
  const tally = (l: string) => TALLY.test(l);
  const ordered = [
    ...lines.filter((l) => named(l) && !tally(l)),
    ...lines.filter((l) => !named(l) && STRONG.test(l) && !tally(l)),
    ...lines.filter((l) => !STRONG.test(l) && !tally(l)),
    ...lines.filter(tally),
  ];
  for (const l of ordered) {
    if (picked.length >= max) break;
    if (isErrorLine(l, strongOnly) && !picked.includes(l)) picked.push(l);
  }
  return picked;
}

/**
 * PowerShell prints an error record as the message, then `+ CategoryInfo : ParserError …`: the message is the
 * last line above the record that is not its position (`At line:1 char:31`, `+ cd x && y`, `+ ~~`).
 */
function recordMessages(lines: string[]): string[] {
  const out: string[] = [];
  lines.forEach((l, i) => {
    if (!/^\+\s*CategoryInfo\s*:/.test(l)) return;
    for (let j = i - 1; j >= Math.max(0, i - 6); j--) {
      const m = lines[j]!.replace(/X$/, "").trim();
      if (!m || /^\+|^At (?:line|[A-Z]:|\S+:\d+)/.test(m)) continue;
      if (m.length >= 6 && !out.includes(m)) out.push(m);
      break;
    }
  });
  return out;
}

/** Most lines of the output are numbered: a file listing, whatever the tool. */
function isListing(output: string): boolean {
  const ls = output.split("\n").filter((l) => l.trim());
  if (ls.length < 3) return false;
  return ls.filter((l) => NOT_ERROR[0]!.test(l)).length / ls.length > 0.5;
}

function resultHits(r: ToolResult, call: ToolCall | undefined): Hit[] {
  const files = filesIn(r.output);
  const name = call?.name ?? r.name ?? "";
  if (!r.is_error) {
    const cmd = call ? commandText(call.input) : "";
    // A log the session's own processes wrote holds errors it hit; any other file shown holds only content.
    const log =
      /\.log\b/.test(cmd) ||
      (/\blogs?\b/.test(cmd) && !/\bgit\b[^|;&\n]*\blog\b/.test(cmd)) ||
      /\.log$/.test(String(call?.input.file_path ?? ""));
    if (!log && (READ_TOOLS.test(name) || READ_COMMANDS.test(cmd))) return [];
    // A numbered listing (a file an edit tool echoes back) holds errors only in the tool's own unnumbered lines.
    const listing = !log && isListing(r.output);
    return errorLines(r.output, listing ? 2 : 4, listing).map((l) => ({ line: window(l), role: "tool", files }));
  }
  const lines = errorLines(r.output, 3, false);
  if (lines.length === 0) {
    // A failed call whose message names no error word ("File has not been read yet"): the message, when the
    // output is a short message and its first line a sentence. The output of a command that exited non-zero
    // after printing a listing or a file, or an edit echoed back, is not a message.
    const message = r.output
      .split("\n")
      .map(cleanLine)
      .filter((l) => l.length > 3 && !/^(?:Exit code|Chunk ID|Wall time|Process exited)\b/i.test(l));
    const first = message[0];
    const short = message.length <= 2 || humanPart(first ?? "").injected === "client-error";
    if (first && short && /\S+\s+\S+\s+\S+/.test(first) && !NOT_ERROR.some((re) => re.test(first))) lines.push(first);
  }
  return lines.map((l) => ({ line: window(l), role: "tool", files }));
}

/** Whether a tool result reports a failure: an error flag, or an error line the failure rules find in its output. */
export function resultFailed(r: ToolResult, call: ToolCall | undefined): boolean {
  return r.is_error || resultHits(r, call).length > 0;
}

/** A line of what the person typed reports an error: a named exception or code, or the words of one. */
const USER_REPORT =
  /\berror [A-Z]{1,4}\d{3,5}\b|\bTraceback\b|\b(?:getting|get|got|see|seeing|throws?|gives?|shows?|received?)\b[^.]{0,30}\b(?:error|exception)\b|(?:error|exception)\s*[:"`]|^[\w./-]+\.(?:m?[jt]sx?|cjs|py|rb|go|rs|java|cs|php):\d+(?::\d+)?\s+\S/i;
/** The person saying something does not work: a failure, unless it is their own inability or a question. */
const USER_BROKEN =
  /\b(?:doesn'?t|does not|didn'?t|isn'?t|is not|won'?t|can'?t|cannot)\s+(?:work|load|start|build|compile|run|show(?:ing)? up|find|open)\b|\bnothing happen/i;

/**
 * A sentence of the person's that reports a failure in words without an error message: not a question, and not
 * what they themselves cannot do or find ("I can't find role center", "I can't do that right now").
 */
function brokenSentence(s: string): boolean {
  const t = s.trim();
  if (t.endsWith("?") || PERSONAL.test(t)) return false;
  return USER_BROKEN.test(t) || isErrorLine(t, false);
}

function userHits(text: string): Hit[] {
  const human = humanPart(text).text;
  if (!human) return [];
  const files = filesIn(human);
  const out: Hit[] = [];
  // Lines longer than any error line are prose or pasted data: the line rules below are not run over them.
  const lines = human
    .split("\n")
    .filter((x) => x.length <= MAX_LINE)
    .map(cleanLine);
  // A pasted traceback: its named exceptions first, the chain's other lines after.
  for (const l of [...lines.filter((x) => NAMED.test(x)), ...lines.filter((x) => !NAMED.test(x))]) {
    if (out.length >= 4 || l.length < 6) continue;
    if (NOT_ERROR.some((re) => re.test(l))) continue;
    // "Now I am getting this error:" only introduces the error on the next line.
    if (/\berror\s*:?\s*$/i.test(l) && l.length < 60) continue;
    const report =
      NAMED.test(l) ||
      USER_REPORT.test(l) ||
      isErrorLine(l, true) ||
      l.split(/(?<=[.?!])\s+/).some((s) => brokenSentence(s));
    if (report) out.push({ line: window(l), role: "user", files });
  }
  return out;
}

/** The agent saying its change resolves an error: a claim about a fix, not an error it hit. */
const FIX_CLAIM =
  /\b(?:should|will|would|to|this|that|which)\s+(?:now\s+)?(?:resolve|fix|address|eliminate|prevent|avoid|handle)s?\b[^.]{0,80}\b(?:error|exception|issue|warning)s?\b/i;

/** The agent naming the kind of an error the session hit: `The error is a syntax error from …`. */
const AGENT_DIAGNOSIS =
  /^(?:The|This) (?:error|exception|crash|failure) (?:is|was) an? (?:[\w-]+ ){0,2}(?:error|exception)\b/i;

/** An exception the agent quotes with its message (`NameError: name 'Union' is not defined`): it was hit. */
const AGENT_QUOTED = /\b[A-Z][\w.]*(?:Error|Exception)\s*:\s*\S|\berror [A-Z]{1,4}\d{3,5}\b/;
/** An exception the agent only names: kept as the bare name, unless it names code (a method, a raise, a handler). */
const AGENT_NAMED =
  /`?\b([A-Z]\w*(?:Error|Exception))\b`?(?!`?\s*(?:method|function|class|type|property|field|procedure|handler|mapping|\(|\.\w))/g;
const CODE_TALK =
  /\b(?:raises?|raising|raised by default|throws?|throwing|catch(?:es|ing)?|except|handle[sd]?|handling|maps?|mapping|subclass|extends?|define[sd]?|import(?:s|ed|ing)?)\s+(?:an?\s+|the\s+)?`?$/i;

/** A name that starts with a verb names a routine that logs or handles errors, not an exception class. */
const ROUTINE_NAME =
  /^(?:Log|Handle|Throw|Raise|Report|Show|Set|Get|Clear|Check|Print|On|Emit|Send|Write|Track|Display|Notify|Capture|Add|Create)(?:[A-Z]\w*)?(?:Error|Exception)$/;
/** The rest of a sentence that lists code names and says what they are: "`, `LogSetupError` methods were …". */
const CODE_LIST =
  /^`?(?:\s*,\s*(?:and\s+|or\s+)?`?\w+`?)*\s*,?\s*(?:and|or)?\s*`?\w*`?\s*(?:methods?|functions?|procedures?|routines?|handlers?|classes|types|fields|properties|triggers?)\b/;

function agentHits(text: string): Hit[] {
  const out: Hit[] = [];
  let fenced = false;
  for (const raw of prose(text).split("\n")) {
    if (/^\s*(?:```|~~~)/.test(raw)) fenced = !fenced;
    const l = cleanLine(raw);
    if (out.length >= 2 || l.length < 6 || l.length > 400 || NOT_ERROR.some((re) => re.test(l))) continue;
    if (FIX_CLAIM.test(l)) continue;
    if (!fenced && AGENT_DIAGNOSIS.test(l)) {
      out.push({ line: window(clipWords(l, 220)), role: "assistant", files: filesIn(l) });
      continue;
    }
    if (AGENT_QUOTED.test(l)) {
      const at = AGENT_QUOTED.exec(l)!.index;
      out.push({
        line: window(l.slice(Math.max(0, l.lastIndexOf(" ", at) + 1))),
        role: "assistant",
        files: filesIn(l),
      });
      continue;
    }
    // In a code block a bare exception name is code (an import, a handler), not an error the session hit.
    if (fenced) continue;
    for (const m of l.matchAll(AGENT_NAMED)) {
      if (out.length >= 2 || CODE_TALK.test(l.slice(0, m.index))) continue;
      // A routine (`LogError`, `HandleException`) or one of a list of code names (`LogError`, … methods) is code.
      if (ROUTINE_NAME.test(m[1]!) || CODE_LIST.test(l.slice(m.index! + m[0].length))) continue;
      out.push({ line: m[1]!, role: "assistant", files: [] });
    }
  }
  return out;
}

/** Fenced code and quoted blocks stay (the agent quotes errors there); markup tags go. */
function prose(text: string): string {
  return text.replace(/<\/?[a-z][\w-]*[^>]*>/gi, " ");
}

function category(line: string, role: Hit["role"]): Failure["category"] {
  if (role === "user") return "user-reported";
  if (/\b(?:test|assert|expect|FAIL|pytest|jest|vitest)\b|^\s*● /i.test(line)) return "test failure";
  if (
    /\b(?:build|compile|tsc|syntax|Turbopack|webpack|cargo|TS\d{4}|[A-Z]{2}\d{4}|make|undefined reference)\b|\berror\[E\d{4}\]|^\[(?:ts|typescript)\b[^\]]*\]/i.test(
      line,
    )
  )
    return "build error";
  if (/tool_use_error|rejected|not been read|Unknown skill|did not use a tool/i.test(line)) return "tool error";
  return "runtime error";
}

/** Lines that only say a run failed: an exit status, a test runner's closing tally, a rerun hint. */
const TALLY = new RegExp(
  String.raw`^\W*(?:${[
    String.raw`(?:process |command )?exit(?:ed)?(?: with)?(?: exit)? code:? -?\d+`,
    String.raw`(?:=+ )?\d+ (?:failed|errors?)\b[^\n]{0,80}\bin [\d.]+\s*m?s\b(?: =+)?`,
    String.raw`error: test failed, to rerun[^\n]*|Tests?:\s+\d+ failed[^\n]*|Test Suites:\s+\d+ failed[^\n]*`,
    String.raw`FAIL(?:\t\S+(?:\t[\d.]+s)?|\s+\S+\s+[\d.]+s)?|test result: FAILED\b[^\n]*|error: could not compile\b[^\n]*`, // go, cargo
    String.raw`g?make(?:\[\d+\])?: \*\*\* [^\n]*\bError \d+[^\n]*|collect2: error: ld returned[^\n]*`, // make, the linker
    String.raw`BUILD (?:FAILED|FAILURE)\b[^\n]*|FAILURE: Build failed[^\n]*`, // Ant, Maven, Gradle
    String.raw`✖ \d+ problems?\b[^\n]*|Found \d+ errors?\b[^\n]*|npm (?:ERR!|error) (?:code|errno) \S+`, // ESLint, tsc, npm
  ].join("|")})\W*$`,
  "i",
);

/** How many turns after a failure an edit may come and still count as its fix. */
export const FIX_WINDOW = 12;

type Open = Failure & { at: number; lastAt: number; files: Set<string> };

/** Failures of a span, merged by signature, each with the nearby later edit that plausibly fixed it. */
export function failures(turns: Turn[], cwd: string | undefined): Failure[] {
  const bySig = new Map<string, Open>();
  const callById = new Map<string, ToolCall>();
  const add = (t: Turn, i: number, h: Hit): void => {
    const sig = signature(h.line);
    if (sig.length < 5) return;
    const f = bySig.get(sig);
    if (f) {
      f.count++;
      f.last_turn = t.id;
      f.lastAt = i;
      for (const x of h.files) f.files.add(x);
      return;
    }
    bySig.set(sig, {
      signature: sig,
      text: h.line,
      category: category(h.line, h.role),
      turn: t.id,
      last_turn: t.id,
      count: 1,
      at: i,
      lastAt: i,
      files: new Set(h.files),
    });
  };
  let prevCalls: ToolCall[] = [];
  turns.forEach((t, i) => {
    for (const c of t.tool_calls) if (c.id) callById.set(c.id, c);
    if (t.kind === "meta" && t.role === "user" && !t.sidechain) {
      // The client answering the person with an error (an unknown skill): a failure, not an instruction.
      const kind = humanPart(t.text).injected;
      const first = t.text.trim().split("\n")[0]!.trim();
      if (kind === "client-error" && first) add(t, i, { line: clipWords(first, 220), role: "tool", files: [] });
      return;
    }
    if (t.kind !== "message") return;
    if (t.role === "user" && !t.sidechain) for (const h of userHits(t.text)) add(t, i, h);
    if (t.role === "assistant" && !t.sidechain) for (const h of agentHits(t.text)) add(t, i, h);
    t.tool_results.forEach((r, k) => {
      const call = (r.call_id ? callById.get(r.call_id) : undefined) ?? t.tool_calls[k] ?? prevCalls[k] ?? prevCalls[0];
      // A run's closing tally or exit status only repeats that it failed: kept when the output says nothing more.
      const hits = resultHits(r, call);
      const specific = hits.filter((h) => !TALLY.test(h.line));
      for (const h of specific.length > 0 ? specific : hits) add(t, i, h);
    });
    if (t.tool_calls.length > 0) prevCalls = t.tool_calls;
  });
  const edits = fileEvents(turns);
  const index = new Map(turns.map((t, i) => [t.id, i]));
  const out: Failure[] = [];
  const all = [...bySig.values()];
  for (const f of all) {
    // An exception the agent only named is dropped when a fuller line already reports it.
    if (/^[A-Z]\w*(?:Error|Exception)$/.test(f.text) && all.some((g) => g !== f && g.text.includes(f.text))) continue;
    const mentioned = new Set([...f.files, ...filesIn(f.text)]);
    // A fix is an edit after the failure's last occurrence, close by, to a file the failure names.
    const fix = edits.find((e) => {
      const at = index.get(e.turn) ?? -1;
      if (at <= f.lastAt || at > f.lastAt + FIX_WINDOW) return false;
      const base = e.path.split(/[/\\]/).pop()!.toLowerCase();
      return mentioned.has(base);
    });
    const { at: _a, lastAt: _l, files: _f, ...rest } = f;
    out.push({
      ...rest,
      ...(fix ? { remediation: `then ${displayPath(fix.path, cwd)} was ${fix.op.split(":")[0]} (${fix.turn})` } : {}),
    });
  }
  return out;
}

/** Scores a failure for the budget: strong signals, repeats and user reports first. */
export function failureWeight(f: Failure): number {
  let w = Math.log2(1 + f.count);
  if (STRONG.test(f.text)) w += 2;
  if (f.category === "user-reported") w += 1.5;
  if (f.category === "test failure" || f.category === "build error") w += 0.5;
  return w;
}

/** A line that only looks like an error: code, content, bookkeeping, a warning. */
export function isNoiseLine(line: string): boolean {
  const l = cleanLine(line);
  return NOT_ERROR.some((re) => re.test(l));
}

/** A line that reads as an error with its message (`KeyError: 'id'`, `error TS2322: …`), not code or content. */
export function isQuotedError(line: string): boolean {
  const l = cleanLine(line);
  return NAMED.test(l) && !NOT_ERROR.some((re) => re.test(l));
}
