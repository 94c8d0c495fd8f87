// What a shell command writes, read from its words: a small lexer that honours quotes, heredocs, `$(…)` and
// redirections (no expansion), so that `echo "a > b.py"` is one word and `cat > "my dir/a.py" <<EOF` writes a file.
import type { FileChange } from "./ledger.js";

/** Extensions of files people edit; a token without one is only a file when a tool field names it. */
const FILE_EXT =
  /\.(?:[cm]?[jt]sx?|py|pyi|ipynb|json|jsonc|ya?ml|toml|ini|cfg|conf|config|env|properties|lock|md|mdx|mdc|rst|txt|csv|tsv|sql|prisma|graphql|gql|proto|html?|css|scss|sass|less|vue|svelte|astro|sh|bash|zsh|fish|ps1|psm1|bat|cmd|go|mod|sum|rs|java|kt|kts|gradle|scala|swift|m|mm|c|cc|cpp|cxx|h|hh|hpp|cs|csproj|sln|xaml|fs|vb|rb|erb|php|pl|pm|lua|r|dart|ex|exs|erl|hs|ml|clj|tf|tfvars|hcl|xml|plist|svg|png|jpe?g|gif|ico|webp|pdf|al|sol|zig|nim|jl|vim|el|dockerfile|example|sample|template|tpl|j2|njk|hbs|ejs|pug|db|sqlite|log|patch|diff)$/i;

/** Files known by name alone. */
const NAMED_FILES =
  /^(?:Makefile|GNUmakefile|Dockerfile|Containerfile|Procfile|Gemfile|Rakefile|Jenkinsfile|Vagrantfile|Brewfile|Justfile|Caddyfile|LICENSE|NOTICE|CODEOWNERS|README|CHANGELOG|AUTHORS)$/;

/**
 * A token that names a file: a path with a known extension or a dotfile, never a code expression. `spaced` accepts
 * spaces inside it (a shell word that was quoted is one path).
 */
export function looksLikeFile(token: string, spaced = false): boolean {
  const t = token.replace(/^["']|["']$/g, "");
  if (!t || t.length > 300 || (spaced ? /[\t\n*?$`(){}<>|;&=]/ : /[\s*?$`(){}<>|;&=]/).test(t)) return false;
  if (t.startsWith("-") || t === "/dev/null") return false;
  const base = t.split(/[/\\]/).pop() ?? "";
  if (/^\.[\w.-]+$/.test(base) && base.length > 2) return true; // .env, .gitignore, .env.local
  return FILE_EXT.test(base) || NAMED_FILES.test(base);
}

export interface Redirect {
  /** `>`, `>>`, `>|`, `<`, `<<`, `<<<`, `>&`, `<&`, `<>`. */
  op: string;
  /** The descriptor written before the operator (`2>`), `&` for `&>`, empty when none. */
  fd: string;
  target: string;
}

/** One simple command: its words (quotes removed), its redirections, whether a heredoc feeds it. */
export interface SimpleCommand {
  words: string[];
  redirects: Redirect[];
  heredoc: boolean;
  /** The command whose output a pipe feeds into this one. */
  pipedFrom?: SimpleCommand;
}

const ESCAPABLE = " \t\\'\"$`;&|<>()*?#!{}[]~";

/** The lexer's state while it reads one script: the command and word being built, and heredocs still to skip. */
interface Lexer {
  s: string;
  out: SimpleCommand[];
  cmd: SimpleCommand;
  word: string;
  /** Whether `word` has begun (a quoted empty string is a word). */
  has: boolean;
  pendingRedirect: { op: string; fd: string } | undefined;
  /** Delimiters of the heredocs opened on the current line, in order. */
  heredocs: string[];
}

/** Ends the word being read: the target of a pending redirection, else the command's next word. */
function endWord(lx: Lexer): void {
  if (!lx.has) return;
  if (lx.pendingRedirect) {
    if (lx.pendingRedirect.op === "<<" || lx.pendingRedirect.op === "<<-") {
      lx.heredocs.push(lx.word);
      lx.cmd.heredoc = true;
    }
    lx.cmd.redirects.push({ ...lx.pendingRedirect, target: lx.word });
    lx.pendingRedirect = undefined;
  } else lx.cmd.words.push(lx.word);
  lx.word = "";
  lx.has = false;
}

/** Ends the command being read (kept when it has a word or a redirection); `pipe`: the next one reads its output. */
function endCommand(lx: Lexer, pipe: boolean): void {
  endWord(lx);
  lx.pendingRedirect = undefined;
  const done = lx.cmd;
  if (done.words.length > 0 || done.redirects.length > 0) lx.out.push(done);
  lx.cmd = { words: [], redirects: [], heredoc: false, ...(pipe ? { pipedFrom: done } : {}) };
}

// Each step below reads from `i`, the character that starts its kind of token, and returns the index of the last
// character it consumed.

/** A newline ends the command; the bodies of heredocs it opened follow, up to their delimiter lines, and are skipped. */
function newline(lx: Lexer, i: number): number {
  const s = lx.s;
  endCommand(lx, false);
  for (const delim of lx.heredocs.splice(0)) {
    let j = i + 1;
    for (;;) {
      const nl = s.indexOf("\n", j);
      const line = s.slice(j, nl < 0 ? s.length : nl);
      if (line.trim() === delim || nl < 0) {
        i = nl < 0 ? s.length : nl;
        break;
      }
      j = nl + 1;
    }
  }
  return i;
}

/** A backslash escapes a character the shell would read; before any other it is a Windows path's separator. */
function backslash(lx: Lexer, i: number): number {
  const s = lx.s;
  if (s[i + 1] === "\n") i++;
  else if (i + 1 < s.length && ESCAPABLE.includes(s[i + 1]!)) lx.word += s[++i];
  else lx.word += "\\";
  lx.has = true;
  return i;
}

/** A `#` comment, to the end of its line. */
function comment(lx: Lexer, i: number): number {
  while (i + 1 < lx.s.length && lx.s[i + 1] !== "\n") i++;
  return i;
}

/** `'…'`: taken literally. */
function singleQuoted(lx: Lexer, i: number): number {
  const end = lx.s.indexOf("'", i + 1);
  lx.word += lx.s.slice(i + 1, end < 0 ? lx.s.length : end);
  lx.has = true;
  return end < 0 ? lx.s.length : end;
}

/** `"…"`: inside, a backslash escapes only a double quote, a backslash, a dollar, a backquote and a newline. */
function doubleQuoted(lx: Lexer, i: number): number {
  const s = lx.s;
  let j = i + 1;
  while (j < s.length && s[j] !== '"') {
    if (s[j] === "\\" && j + 1 < s.length && '"\\$`\n'.includes(s[j + 1]!)) j++;
    lx.word += s[j];
    j++;
  }
  lx.has = true;
  return j;
}

/** `` `…` `` or `$(…)`: a substitution is part of the word it sits in; its own operators separate nothing here. */
function substitution(lx: Lexer, i: number): number {
  const s = lx.s;
  const ch = s[i]!;
  let depth = 0;
  let j = i;
  for (; j < s.length; j++) {
    const c = s[j]!;
    if (ch === "`" && c === "`" && j > i) break;
    if (ch === "$") {
      if (c === "(") depth++;
      else if (c === ")" && --depth === 0) break;
    }
  }
  lx.word += s.slice(i, j + 1);
  lx.has = true;
  return j;
}

/** A redirection operator (`>`, `2>>`, `&>`, `<<-`, …): the next word is its target. */
function redirect(lx: Lexer, i: number): number {
  let fd = "";
  if (lx.s[i] === "&") {
    fd = "&";
    i++;
  } else if (lx.has && /^\d+$/.test(lx.word)) {
    fd = lx.word;
    lx.word = "";
    lx.has = false;
  }
  endWord(lx);
  const op = /^(?:<<<|<<-|<<|<>|<&|<|>>|>\||>&|>)/.exec(lx.s.slice(i, i + 3))![0];
  lx.pendingRedirect = { op, fd };
  return i + op.length - 1;
}

/** Reads the token that starts at `i`; returns the index of the last character it consumed. */
function step(lx: Lexer, i: number): number {
  const s = lx.s;
  const ch = s[i]!;
  if (ch === "\n") return newline(lx, i);
  if (ch === " " || ch === "\t" || ch === "\r") {
    endWord(lx);
    return i;
  }
  if (ch === "\\") return backslash(lx, i);
  if (ch === "#" && !lx.has) return comment(lx, i);
  if (ch === "'") return singleQuoted(lx, i);
  if (ch === '"') return doubleQuoted(lx, i);
  if (ch === "`" || (ch === "$" && s[i + 1] === "(")) return substitution(lx, i);
  const two = s.slice(i, i + 2);
  if (two === "&&" || two === "||" || two === ";;" || two === "|&") {
    endCommand(lx, two === "|&");
    return i + 1;
  }
  if (ch === ";" || ch === "|" || ch === "(" || ch === ")" || (ch === "&" && s[i + 1] !== ">")) {
    endCommand(lx, ch === "|");
    return i;
  }
  if (ch === ">" || ch === "<" || (ch === "&" && s[i + 1] === ">")) return redirect(lx, i);
  lx.word += ch;
  lx.has = true;
  return i;
}

/** Splits a script into simple commands. Heredoc bodies are content, skipped; `#` comments are dropped. */
export function commands(script: string): SimpleCommand[] {
  const lx: Lexer = {
    s: script,
    out: [],
    cmd: { words: [], redirects: [], heredoc: false },
    word: "",
    has: false,
    pendingRedirect: undefined,
    heredocs: [],
  };
  for (let i = 0; i < script.length; i++) i = step(lx, i);
  endCommand(lx, false);
  return lx.out;
}

/** Words that only put their arguments or a heredoc on stdout: redirecting them writes what the agent authored. */
const WRITERS = new Set(["cat", "echo", "printf"]);
const SHELLS = new Set(["bash", "sh", "zsh", "dash"]);
const base = (w: string): string => w.split("/").pop() ?? w;
const fileArg = (w: string): boolean => looksLikeFile(w, true);

/** The command's own words: `sudo` (with its options), `env`, `command` and leading `NAME=value` assignments dropped. */
function own(words: string[]): string[] {
  let k = 0;
  let sudo = false;
  for (; k < words.length; k++) {
    const w = words[k]!;
    if (w === "sudo" || w === "env" || w === "command") sudo ||= w === "sudo";
    else if (!/^[A-Za-z_]\w*=/.test(w) && !(sudo && w.startsWith("-"))) break;
  }
  return words.slice(k);
}

/** The files `sed -i`/`perl -i` edit: options (with `-e`/`-f` taking a value) and the script skipped. */
function inPlaceFiles(args: string[], scriptFirst: boolean): string[] {
  const files: string[] = [];
  let script = false;
  for (let k = 0; k < args.length; k++) {
    const a = args[k]!;
    if (a === "-e" || a === "-f" || a === "--expression" || a === "--file") {
      script = true;
      k++;
    } else if (a === "-i" && args[k + 1] === "")
      k++; // BSD sed's empty backup suffix
    else if (a.startsWith("-")) {
      if (/^-[a-zA-Z]*[ef]$/.test(a)) {
        script = true;
        k++;
      }
    } else if (scriptFirst && !script) script = true;
    else files.push(a);
  }
  return files.filter(fileArg);
}

/** Where `cp`/`mv` put each source: the target when it names a file, else inside the target folder. */
function placed(args: string[]): { from: string; to: string }[] {
  const a = args.filter((x) => !x.startsWith("-"));
  if (a.length < 2) return [];
  const target = a[a.length - 1]!;
  const sources = a.slice(0, -1);
  if (sources.length === 1 && fileArg(target) && !target.endsWith("/")) return [{ from: sources[0]!, to: target }];
  if (target !== "." && !target.endsWith("/")) return [];
  const dir = target === "." ? "" : target;
  return sources.filter(fileArg).map((s) => ({ from: s, to: `${dir}${base(s)}` }));
}

/** File changes one simple command makes that are visible from the command itself. */
/** PowerShell cmdlets and cmd.exe commands that do what a POSIX command does. */
const ALIASES: Record<string, string> = {
  "remove-item": "rm",
  del: "rm",
  erase: "rm",
  "move-item": "mv",
  move: "mv",
  "copy-item": "cp",
  copy: "cp",
};

function commandFiles(c: SimpleCommand, out: FileChange[], depth: number): void {
  const w = own(c.words);
  const raw = base(w[0] ?? "");
  const name = ALIASES[raw.toLowerCase()] ?? raw;
  const args = w.slice(1);
  // `bash -lc "script"`: the script is commands too.
  if (SHELLS.has(name) && depth < 3) {
    const at = args.findIndex((a) => /^-[a-z]*c[a-z]*$/.test(a));
    if (at >= 0 && args[at + 1] !== undefined)
      for (const inner of commands(args[at + 1]!)) commandFiles(inner, out, depth + 1);
    return;
  }
  if (WRITERS.has(name)) {
    for (const r of c.redirects) {
      if (!/^(?:>|>>|>\|)$/.test(r.op) || (r.fd !== "" && r.fd !== "1")) continue;
      // A heredoc names its target plainly (`cat > LICENSE <<EOF`); other redirects need a file-like name.
      const plain = c.heredoc && /^[\w~][\w./~ -]*$/.test(r.target);
      if (plain || fileArg(r.target)) out.push({ path: r.target, op: "written (shell)" });
    }
  } else if (/^(?:set-content|add-content)$/i.test(name)) {
    // PowerShell writes the content it is given: the file is `-Path X` or the first positional file.
    const at = args.findIndex((a) => /^-(?:Path|LiteralPath|FilePath)$/i.test(a));
    const target = at >= 0 ? args[at + 1] : args.find((a) => !a.startsWith("-") && fileArg(a));
    if (target && fileArg(target)) out.push({ path: target, op: "written (shell)" });
  } else if (name === "tee") {
    // `tee` writes what the agent authored (a heredoc, an echo); fed a command's output it saves a log.
    const fed = c.pipedFrom && WRITERS.has(base(own(c.pipedFrom.words)[0] ?? ""));
    if (c.heredoc || fed)
      for (const a of args) if (!a.startsWith("-") && fileArg(a)) out.push({ path: a, op: "written (tee)" });
  } else if (name === "sed" && args.some((a) => /^-[a-zA-Z]*i/.test(a) || a.startsWith("--in-place"))) {
    for (const f of inPlaceFiles(args, true)) out.push({ path: f, op: "edited (sed -i)" });
  } else if (name === "perl" && args.some((a) => /^-[a-zA-Z]*i/.test(a))) {
    for (const f of inPlaceFiles(args, !args.some((a) => /^-[a-zA-Z]*e$/.test(a))))
      out.push({ path: f, op: "edited (perl -i)" });
  } else if (name === "rm" || (name === "git" && args[0] === "rm")) {
    for (const a of args.slice(name === "git" ? 1 : 0)) if (fileArg(a)) out.push({ path: a, op: "deleted" });
  } else if (name === "mv" || (name === "git" && args[0] === "mv")) {
    const a = args.slice(name === "git" ? 1 : 0);
    const moves = placed(a);
    for (const m of moves) {
      if (!fileArg(m.from)) continue;
      out.push({ path: m.from, op: `moved to ${m.to}` });
      out.push({ path: m.to, op: `moved from ${m.from}` });
    }
    // `mv a.py build`: the source is gone wherever it went.
    const plain = a.filter((x) => !x.startsWith("-"));
    if (moves.length === 0 && plain.length === 2 && fileArg(plain[0]!))
      out.push({ path: plain[0]!, op: `moved to ${plain[1]}` });
  } else if (name === "cp") {
    for (const m of placed(args)) if (fileArg(m.from)) out.push({ path: m.to, op: `copied from ${m.from}` });
  }
}

/** File changes a shell command makes that are visible from the command itself. */
export function shellFiles(cmd: string): FileChange[] {
  const out: FileChange[] = [];
  for (const c of commands(cmd)) commandFiles(c, out, 0);
  // Scratch files (logs, PR bodies) are not the session's work.
  return out.filter((c) => !/^(?:\/tmp|\/var\/tmp|\/private\/tmp|\/dev)\//.test(c.path));
}

/** A git command that reports the working tree (not history): `git status`, `git diff --stat` of no revision. */
export function workingTreeReport(cmd: string): boolean {
  for (const c of commands(cmd)) {
    const w = c.words;
    const at = w.indexOf("git");
    if (at < 0) continue;
    const args = w.slice(at + 1).filter((a) => a !== "--no-pager" && !a.startsWith("-c"));
    if (args[0] === "status") return true;
    if (args[0] === "diff") {
      const opts = args.slice(1);
      if (!opts.some((a) => /^--(stat|name-only|name-status|numstat|shortstat)\b/.test(a))) continue;
      // Any revision (a sha, a branch, A..B, HEAD~1) makes it history; `--` starts the paths.
      const dashdash = opts.indexOf("--");
      const revs = (dashdash >= 0 ? opts.slice(0, dashdash) : opts).filter((a) => !a.startsWith("-"));
      if (revs.length === 0) return true;
    }
  }
  return false;
}
