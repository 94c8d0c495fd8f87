// Secrets never reach the store or a result: provider keys and tokens, bare AWS secret keys, private keys, JWTs,
// credentials in URLs, Authorization headers, secret assignments (`.env`, code, config, prose); `<private>…</private>`
// spans are dropped whole. Every pattern is bounded or unambiguous, so redaction is linear in the input, and a
// replacement keeps the line count (line numbers of indexed code stay right).
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

type Replacer = (match: string, ...args: unknown[]) => string;
/** A pattern, its replacement, and optionally a substring without which the pattern cannot match (a fast skip). */
type Rule = [RegExp, string | Replacer, string?];

/** A marker for a multi-line match that keeps its line breaks. */
const keepLines = (marker: string, match: string): string => marker + "\n".repeat(match.split("\n").length - 1);

/** Values a secret-named key takes in code that are not secrets: types, literals, references to elsewhere. */
const NOT_A_SECRET =
  /^(?:string|str|bytes|number|int|integer|float|bool|boolean|any|unknown|object|none|null|nil|undefined|true|false|optional|required|secret|token|password|string\[\]|env|environ|process|os|self|this|cls|ctx|config|settings|void|never|redacted|hidden|masked|changeme|\*+|x+|\.\.\.|<[^>]*>)$/i;

const REDACTED = /^\[(?:redacted|private)/;

/** A bare value after `name =` / `name:` that is code (a type, a reference, a call), not a literal secret. */
function codeValue(value: string, sep: string): boolean {
  if (REDACTED.test(value) || NOT_A_SECRET.test(value)) return true;
  if (/^[A-Za-z_$][\w$]*(?:[?!]?\.[\w$]+)+$/.test(value)) return true; // config.token, extra._meta?.token
  if (/^[A-Za-z_$][\w$]*(?:\.[\w$]+)*[([<]/.test(value)) return true; // get_token(), Optional[str], Map<…>
  if (sep.includes(":") && /^[A-Z][A-Za-z]*$/.test(value)) return true; // a type annotation: `secret: Buffer`
  if (/^\d{1,5}$/.test(value)) return true; // counts and limits (max_token = 100)
  if (/^\$\{?[A-Za-z_]\w*\}?$/.test(value)) return true; // ${OTHER_VAR}
  if (/^(?:\$\{\{|\$\(|%[A-Za-z_]\w*%$)/.test(value)) return true; // ${{ secrets.X }}, $(cmd), %VAR%
  return false;
}

/** Where a run of closing punctuation at the end of `s` starts (a loop: a `[…]+$` regex rescans from each position). */
function trailingPunctuationStart(s: string): number {
  let end = s.length;
  while (end > 0 && ")]}>.,:!?".includes(s[end - 1]!)) end--;
  return end;
}

/** Character classes of a bare 40-character token: random base64 switches class on most characters. */
function classOf(c: string): number {
  if (c >= "a" && c <= "z") return 0;
  if (c >= "A" && c <= "Z") return 1;
  if (c >= "0" && c <= "9") return 2;
  return 3;
}

/**
 * A bare 40-character AWS secret access key: lower, upper and digits mixed the way random base64 is (many class
 * switches, no long lower-case word), or less strictly right after an AWS or secret label. Git SHAs (hex, one
 * case), identifiers and paths (long lower-case words) are left alone.
 */
function looksLikeAwsSecret(s: string, before: string): boolean {
  if (!/[a-z]/.test(s) || !/[A-Z]/.test(s) || !/[0-9]/.test(s)) return false;
  if (/^[0-9a-fA-F]+$/.test(s)) return false;
  let switches = 0;
  let run = 0;
  let longestLower = 0;
  for (let i = 0; i < s.length; i++) {
    const c = classOf(s[i]!);
    if (i > 0 && c !== classOf(s[i - 1]!)) switches++;
    run = c === 0 ? run + 1 : 0;
    longestLower = Math.max(longestLower, run);
  }
  if (/aws|secret/i.test(before)) return switches >= 10;
  return switches >= 21 || (switches >= 16 && longestLower <= 6);
}

// The part of a key name that marks its value secret; the name must end with it (`password_reset_view` is code).
const SECRET_NAME =
  "(?:secret|token|passw(?:or)?d|passphrase|pwd|(?<![a-z])pass(?![a-z])|(?<![a-z])_?auth(?![a-z])|(?:api|access|private|secret|auth|signing|encryption|master|client|account)[ _-]?key|apikey)(?:[_-](?:base|value|hash|b64|base64|enc|encoded|raw))?";

/** A head (`password: `, `pwd=`) whose name is a password's: in prose its value is taken even when plain words. */
const PASSWORD_HEAD = /(?:passw(?:or)?d|passphrase|pwd)\\?["']?[ \t]{0,20}(?:=>|:=|[:=])[ \t]{0,20}`?$/i;

/** A value that looks made up rather than a word: a digit, a symbol inside, or a capital after its first letter. */
/** Names of encodings, hashes and ciphers that a comment about a password mentions (`base64`, `sha256`, `argon2id`). */
const ALGORITHM =
  /^(?:base(?:16|32|58|64)(?:url)?|sha-?(?:1|224|256|384|512)|sha3-?(?:224|256|384|512)|md[45]|utf-?(?:8|16|32)|argon2(?:id|i|d)?|pbkdf2(?:-sha\d+)?|blake[23][bs]?|crc32c?|aes-?(?:128|192|256)(?:-[a-z]{3})?|hmac-?sha-?\d+|ed25519|x25519|x509|rsa-?\d{3,4}|latin-?1|iso-?8859-?1)$/i;

const madeUp = (v: string): boolean => /[0-9]|[^A-Za-z0-9-]|.[A-Z]/.test(v);

/**
 * A quoted value, also when the quotes are escaped (a secret inside a JSON string): opening quote, value, closing
 * quote for `"…"`, then the same three groups for `'…'`. The value ends at the first closing quote.
 */
const QUOTED = String.raw`(\\?")((?:[^"\\\r\n]|\\[^"\r\n]){1,500}?)(\\?")|(\\?')((?:[^'\\\r\n]|\\[^'\r\n]){1,500}?)(\\?')`;

/** The replacement of a quoted value (escaped quotes stay escaped) or undefined when no quoted value matched. */
function quoted(g: unknown[]): { open: string; value: string; close: string } | undefined {
  const [dqo, dq, dqc, sqo, sq, sqc] = g;
  if (typeof dq === "string") return { open: String(dqo), value: dq, close: String(dqc) };
  if (typeof sq === "string") return { open: String(sqo), value: sq, close: String(sqc) };
  return undefined;
}

const RULES: Rule[] = [
  // An unclosed private key (cut off): the header and the base64 lines after it.
  [
    /-----BEGIN [A-Z ]{0,40}PRIVATE KEY(?: BLOCK)?-----(?:\r?\n(?:[A-Za-z0-9+/=]{8,}|[A-Za-z-]{1,40}: [^\r\n]{0,200}|))*/g,
    (m) => keepLines("[redacted private key]", m),
  ],
  // Distinctive prefixes are taken wherever they stand, glued to a word or not (`deploy_sk-ant-…`, `Bogusghp_…`).
  [
    /(?:(?<![A-Za-z0-9])|(?<=\\[nrt]))sk-ant-[A-Za-z0-9_-]{20,}|sk-ant-[a-z]{2,8}\d{2}-[A-Za-z0-9_-]{20,}/g,
    "[redacted anthropic key]",
  ],
  [/(?:(?<![A-Za-z0-9])|(?<=\\[nrt]))sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}/g, "[redacted openai key]"],
  [/(?<![A-Za-z0-9_])gh[pousr]_[A-Za-z0-9]{30,}|gh[pousr]_[A-Za-z0-9]{36,}/g, "[redacted github token]"],
  [/github_pat_[A-Za-z0-9_]{30,}/g, "[redacted github token]"],
  [/(?<![A-Za-z0-9])(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}(?![A-Za-z0-9])/g, "[redacted aws key]"],
  [/(?:(?<![A-Za-z0-9])|(?<=\\[nrt]))(?:xox[abeprs]|xapp)-[A-Za-z0-9-]{10,}/g, "[redacted slack token]"],
  [/(?:(?<![A-Za-z0-9])|(?<=\\[nrt]))AIza[0-9A-Za-z_-]{35}(?![A-Za-z0-9_-])/g, "[redacted google key]"],
  [
    /(?:(?<![A-Za-z0-9])|(?<=\\[nrt]))(?:gsk|glpat|glptt|npm|hf|dop_v1|(?:sk|rk|pk)_(?:live|test))[_-][A-Za-z0-9_-]{20,}/g,
    "[redacted token]",
  ],
  [/(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g, "[redacted jwt]"],
  [/(?:(?<![A-Za-z0-9])|(?<=\\[nrt]))pypi-[A-Za-z0-9_-]{40,}/g, "[redacted pypi token]"],
  [/(?:(?<![A-Za-z0-9])|(?<=\\[nrt]))GOCSPX-[A-Za-z0-9_-]{20,}/g, "[redacted google oauth secret]"],
  [/(?<![0-9])[0-9]{8,10}:AA[A-Za-z0-9_-]{30,40}(?![A-Za-z0-9_-])/g, "[redacted telegram token]"],
  [/(?:(?<![A-Za-z0-9])|(?<=\\[nrt]))shp(?:at|ss|ca|pa)_[A-Za-z0-9]{24,}/g, "[redacted shopify token]"],
  [/AGE-SECRET-KEY-1[0-9A-Z]{40,}/g, "[redacted age key]"],
  [/(?:(?<![A-Za-z0-9])|(?<=\\[nrt]))hv[sbr]\.[A-Za-z0-9_-]{20,}/g, "[redacted vault token]"],
  // A Discord bot token: the bot's numeric id in base64, a timestamp, an HMAC.
  [
    /(?<![A-Za-z0-9_-])[MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6,7}\.[A-Za-z0-9_-]{27,40}(?![A-Za-z0-9_-])/g,
    (m) =>
      /^\d{15,22}$/.test(Buffer.from(m.slice(0, m.indexOf(".")), "base64").toString("latin1"))
        ? "[redacted discord token]"
        : m,
  ],
  // Twilio: an account or API key SID, and the 32-hex auth token or secret passed right after it.
  [/(?:(?<![A-Za-z0-9])|(?<=\\[nrt]))(?:AC|SK)[0-9a-f]{32}(?![A-Za-z0-9])/g, "[redacted twilio sid]"],
  [
    /(\[redacted twilio sid\](?:\\{0,3}["'`])?[ \t]{0,20}[,:][ \t]{0,20}(?:\\{0,3}["'`])?)[0-9a-f]{32}(?![A-Za-z0-9])/g,
    "$1[redacted]",
    "[redacted twilio sid]",
  ],
  // A token as a URL's user name (no password): https://<token>@github.com.
  [
    /(?<![A-Za-z0-9+.-])([a-z][a-z0-9+.-]{0,30}:\/\/)([A-Za-z0-9_~+-]{20,256})@/gi,
    (m, scheme, user) =>
      /[0-9]/.test(String(user)) && /[A-Za-z]/.test(String(user)) ? `${String(scheme)}[redacted]@` : m,
    "://",
  ],
  // scheme://user:password@host for every scheme (mysql, postgres, redis, mongodb+srv, amqp, https…).
  [
    /(?<![A-Za-z0-9+.-])([a-z][a-z0-9+.-]{0,30}:\/\/)([^\s:/@"'<>]{0,256}):([^\s/"'<>]{1,256})@/gi,
    (m, scheme, user, pass) => (REDACTED.test(String(pass)) ? m : `${String(scheme)}${String(user)}:[redacted]@`),
    "://",
  ],
  // Authorization: Bearer …, Basic …, Token …
  [
    /\b(authorization["']?\s{0,20}[:=]\s{0,20}["']?(?:(?:bearer|basic|token|digest)\s{1,20})?)([^\s"',;]{6,2000})/gi,
    (m, head, value) => {
      const v = String(value);
      // `Authorization: Bearer <token>` and `Authorization: Bearer …` name the header; they hold no secret.
      if (REDACTED.test(v) || /^(?:bearer|basic|token|digest)$/i.test(v) || /^[<{$]/.test(v)) return m;
      return `${String(head)}[redacted]`;
    },
  ],
  [
    /\b((?:bearer|basic)\s{1,20})([A-Za-z0-9._~+/-]{16,2000}=*)/gi,
    (m, head, value) => (/\d/.test(String(value)) && !REDACTED.test(String(value)) ? `${String(head)}[redacted]` : m),
  ],
  // `.env` lines: an upper-case name holding a secret word anywhere, indented or exported.
  [
    new RegExp(
      String.raw`^([ \t]*(?:export[ \t]+)?[A-Z0-9_]{0,60}(?:SECRET|TOKEN|PASSWORD|PASSWD|PASS(?![A-Z])|_AUTH(?![A-Z])|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY|CREDENTIALS?)[A-Z0-9_]{0,60}[ \t]*=[ \t]*)(?:${QUOTED}|([^\s"'#]{1,500}))`,
      "gm",
    ),
    (m, head, ...g) => {
      const q = quoted(g);
      const v = q ? q.value : String(g[6]);
      // Settings about secrets are not secrets: PASSWORD_MIN_LENGTH=8, TOKEN_URL=https://…, USE_TOKEN=true.
      if (REDACTED.test(v) || codeValue(v, "=") || /^(?:\d{1,9}|yes|no|on|off|https?:\/\/[^@\s]*)$/i.test(v)) return m;
      return q ? `${String(head)}${q.open}[redacted]${q.close}` : `${String(head)}[redacted]`;
    },
  ],
  // name = value, name: value, "name": "value", --name=value, ?name=value — anywhere in a line, any case.
  [
    new RegExp(
      String.raw`(${SECRET_NAME}\\?["']?[ \t]{0,20}(=>|:=|[:=])[ \t]{0,20}` +
        "`?" +
        String.raw`)(?:${QUOTED}|([^\s"'` +
        "`" +
        String.raw`,;&]{3,500}))`,
      "gi",
    ),
    (m, head, sep, ...g) => {
      const h = String(head);
      const q = quoted(g);
      if (q) {
        if (REDACTED.test(q.value) || NOT_A_SECRET.test(q.value) || q.value.trim().length < 3) return m;
        if (codeValue(q.value.trim(), String(sep))) return m; // "$TOKEN", "${{ secrets.X }}": a reference
        return `${h}${q.open}[redacted]${q.close}`;
      }
      // Trailing punctuation belongs to the sentence or the expression around it, not to the value.
      const raw = String(g[6]);
      const value = raw.slice(0, trailingPunctuationStart(raw));
      if (value.length < 3 || codeValue(value, String(sep))) return m;
      // Mid-sentence `a token: its hash` is prose; there only a value that looks made up (digits, symbols,
      // inner capitals) is taken for a secret. Config lines (`  password: x`) and `key=value` take any value.
      const at = Number(g[7]);
      const whole = String(g[8]);
      const before = whole.slice(Math.max(0, at - 200), at); // bounded: no rescans of a long line
      const line = before.slice(before.lastIndexOf("\n") + 1);
      const prose = /\s$/.test(h) && !/^[\s"'-]*[\w.-]*$/.test(line);
      // A password's value is taken in prose too (`the admin password: letmein`), unless it is a short word.
      if (prose && !madeUp(value) && !(PASSWORD_HEAD.test(h) && value.length >= 6)) return m;
      return `${h}[redacted]${raw.slice(value.length)}`;
    },
  ],
  // Prose: `the password is X`, `set the token to X`: only a value that looks made up (`the token is expired` stays).
  [
    /\b((?:passw(?:or)?d|passphrase|pwd|api[ _-]?key|secret[ _-]?key|access[ _-]?token|auth[ _-]?token|token|secret)[ \t]{1,5}(?:is|was|to|as)[ \t]{1,5}[`"']?)([^\s`"',;]{6,256})/gi,
    (m, head, raw) => {
      const r = String(raw);
      const value = r.slice(0, trailingPunctuationStart(r));
      if (value.length < 6 || !madeUp(value) || codeValue(value, "=") || !/[0-9]/.test(value)) return m;
      if (ALGORITHM.test(value)) return m; // `the password is base64 encoded`
      return `${String(head)}[redacted]${r.slice(value.length)}`;
    },
  ],
  // Command-line flags with the value after a space: `--password X`, `--token X`, `--api-key X`.
  [
    /((?:^|[\s(])--(?:password|passwd|passphrase|token|api-key|apikey|secret|client-secret|auth-token|access-token)[ \t]+["']?)([^\s"'`$-][^\s"'`]{2,255})/gim,
    (m, head, value) => (codeValue(String(value), "=") ? m : `${String(head)}[redacted]`),
  ],
  // Secrets in URL query strings: `?key=…`, `&sig=…`, `&X-Amz-Signature=…`.
  [
    /([?&](?:key|apikey|api_key|sig|signature|access_token|token|secret|password|passwd|client_secret|auth|x-amz-signature|x-amz-credential|x-amz-security-token)=)([^&#\s"'<>`]{6,2000})/gi,
    (m, head, value) =>
      REDACTED.test(String(value)) || /^\$\{?\w+\}?$/.test(String(value)) ? m : `${String(head)}[redacted]`,
  ],
  // A long quoted value after a secret name (a session token, a key file inlined): past the quoted rule's bound.
  [
    new RegExp(
      String.raw`(${SECRET_NAME}\\?["']?[ \t]{0,20}(?:=>|:=|[:=])[ \t]{0,20}\\?["'])([A-Za-z0-9+/=_.~%-]{400,})`,
      "gi",
    ),
    (_m, head) => `${String(head)}[redacted]`,
  ],
  // Credentials on command lines: curl -u user:pw, mysql -pPW, docker login -p PW.
  // (Only on HTTP clients' lines: `docker run -u 1000:1000` and `ps -u root:wheel` name users, not passwords.)
  [
    /(\b(?:curl|wget|http|https|xh)\b[^\r\n]{0,200}?[ \t](?:-u|--user)[ \t=]+["']?[^\s:"']{1,256}:)([^\s"']{1,256})/g,
    (_m, head) => `${String(head)}[redacted]`,
  ],
  [
    /((?:^|[\s;&|(])mysql(?:dump|admin)?[ \t][^\r\n]{0,200}?[ \t]-p)([^\s"']{1,256})/g,
    // -p3306:3306 is a port; -pretty a word: a password has a digit, a capital or a symbol, and is not all digits.
    (m, head, value) =>
      /^\d+(?::\d+)?$/.test(String(value)) || !/[0-9A-Z]|[^A-Za-z0-9]/.test(String(value))
        ? m
        : `${String(head)}[redacted]`,
  ],
  [
    /(\b(?:docker|podman|helm)[ \t]+(?:registry[ \t]+)?login\b[^\r\n]{0,200}?[ \t](?:-p|--password)(?:[ \t]+|=))([^\s"']{1,256})/g,
    (_m, head) => `${String(head)}[redacted]`,
  ],
  // sshpass -p PW, redis-cli -a PW: the password is the flag's value.
  [
    /((?:\b|(?<=\\[nrt]))sshpass\b[^\r\n]{0,100}?[ \t]-p[ \t]*(?:\\{0,3}["'])?)([^\s"'\\]{1,256})/g,
    (m, head, value) => (codeValue(String(value), "=") ? m : `${String(head)}[redacted]`),
    "sshpass",
  ],
  [
    /((?:\b|(?<=\\[nrt]))redis-cli\b[^\r\n]{0,200}?[ \t](?:-a|--pass)[ \t]+(?:\\{0,3}["'])?)([^\s"'\\]{1,256})/g,
    (m, head, value) => (codeValue(String(value), "=") ? m : `${String(head)}[redacted]`),
    "redis-cli",
  ],
  // .netrc: `machine host login user password PW` on one line, wherever it is quoted. Without a login field
  // (`machine learning password policy` is prose) only a made-up value is taken.
  [
    /((?:\b|(?<=\\[nrt]))(?:machine[ \t]+[^\s"'`\\]{1,253}|default)(?:[ \t]+(?:login|account)[ \t]+[^\s"'`\\]{1,256}){0,2}[ \t]+password[ \t]+)([^\s"'`\\]{1,256})/g,
    (m, head, value) => {
      const v = String(value);
      if (REDACTED.test(v) || codeValue(v, "=")) return m;
      if (!/[ \t](?:login|account)[ \t]/.test(String(head)) && !madeUp(v)) return m;
      return `${String(head)}[redacted]`;
    },
    "password",
  ],
  // ... or over several lines: a bare `password PW` line right below a `machine` or `login` line.
  [
    /(?:^|(?<=\\n))([ \t]*password[ \t]+)([^\s"'`\\]{1,256})/gm,
    (m, head, value, offset, whole) => {
      if (REDACTED.test(String(value)) || codeValue(String(value), "=")) return m;
      const at = Number(offset);
      const before = String(whole).slice(Math.max(0, at - 300), at);
      return /(?:^|\n|\\n)[ \t]*(?:machine|default|login)\b/.test(before) ? `${String(head)}[redacted]` : m;
    },
    "password",
  ],
  // A password in a code comment: `# prod db password Xy7…`, `// staging pwd Xy7…` (made-up values only).
  [
    /\b((?:passw(?:or)?d|passphrase|pwd)[ \t]{1,5}(?:(?:is|was|=|:|-)[ \t]{1,5})?["'`]?)([^\s"'`,;]{6,256})/gi,
    (m, head, raw, offset, whole) => {
      const r = String(raw);
      const value = r.slice(0, trailingPunctuationStart(r));
      if (value.length < 6 || !/[0-9]/.test(value) || !/[A-Za-z]/.test(value) || codeValue(value, "=")) return m;
      // `password is base64 encoded`, `passwd is sha256 hashed`: the name of an encoding or a hash, not a value.
      if (ALGORITHM.test(value)) return m;
      const at = Number(offset);
      const before = String(whole).slice(Math.max(0, at - 200), at);
      const line = before.slice(before.lastIndexOf("\n") + 1);
      if (!/(?:#|\/\/|\/\*|<!--|^[ \t]*(?:\*|--|;))/.test(line)) return m;
      return `${String(head)}[redacted]${r.slice(value.length)}`;
    },
  ],
  // Cookie headers carry session ids.
  [
    /\b((?:set-)?cookie["']?[ \t]{0,20}:[ \t]{0,20})([\w.-]{1,100}=[^\r\n]{0,4000})/gi,
    // Each `name=value` pair's value goes; code (`${sid}`, quotes) and prose around it stay.
    (_m, head, value) => `${String(head)}${String(value).replace(/([\w.-]{1,100}=)([^;\s"'`$]{6,})/g, "$1[redacted]")}`,
  ],
  // Webhook URLs are credentials; so are SendGrid keys.
  [/(hooks\.slack\.com\/(?:services|workflows|triggers)\/)[A-Za-z0-9/_-]{8,}/g, "$1[redacted]"],
  [/(discord(?:app)?\.com\/api\/webhooks\/\d{1,30}\/)[A-Za-z0-9_-]{8,}/g, "$1[redacted]"],
  [/(?<![A-Za-z0-9_-])SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}/g, "[redacted sendgrid key]"],
  // A bare AWS secret access key (40 base64 characters), wherever it stands.
  [
    /(?<![A-Za-z0-9/+=])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])/g,
    (m, offset, whole) => {
      const at = Number(offset);
      const before = String(whole).slice(Math.max(0, at - 60), at);
      return looksLikeAwsSecret(m, before) ? "[redacted aws secret]" : m;
    },
  ],
];

/** Prefixes of provider tokens, for a token split over string pieces or lines. */
const TOKEN_PREFIX = String.raw`(?:sk-ant-|sk-(?:proj-|svcacct-|admin-)?|gh[pousr]_|github_pat_|(?:AKIA|ASIA)|xox[abeprs]-|glpat-|hf_|npm_|pypi-|GOCSPX-|shp(?:at|ss|ca|pa)_|hv[sbr]\.|AIza|AGE-SECRET-KEY-1|(?:sk|rk)_live_)`;
/** Between two pieces of one string: `" + "`, `"\n  "` (implicit concatenation), `\` at a line end. */
const PIECE_SEP = String.raw`(?:\\{0,3}["'\`][ \t]{0,20}(?:\+|\.|&|\|\|)?[ \t]{0,20}(?:\\?(?:\r?\n|\\{1,2}n)[ \t]{0,40}(?:\+|\.|&)?[ \t]{0,20})?\\{0,3}["'\`]|(?:\\\r?\n|\\\\\\n)[ \t]{0,40})`;
const SPLIT_TOKEN = new RegExp(
  String.raw`(?<![A-Za-z0-9_-])${TOKEN_PREFIX}[A-Za-z0-9_-]{0,120}(?:${PIECE_SEP}[A-Za-z0-9_-]{1,120}){1,4}`,
  "g",
);

/** A token written in pieces (`"sk-ant-api03-Ab" +\n "Cd…"`, a `\` line continuation) goes whole, lines kept. */
function redactSplitTokens(text: string): string {
  return text.replace(SPLIT_TOKEN, (m) => {
    const body = m.replace(new RegExp(PIECE_SEP, "g"), "");
    return body.length >= 24 ? keepLines("[redacted split key]", m) : m;
  });
}

/** Whether decoded bytes are text (printable ASCII and line breaks), not binary. */
function isText(b: Buffer): boolean {
  let ok = 0;
  for (const c of b) if ((c >= 0x20 && c < 0x7f) || c === 0x0a || c === 0x0d || c === 0x09) ok++;
  return b.length >= 16 && ok === b.length;
}

/** A base64 run (standard or URL alphabet) long enough to hide a key, bounded so a huge blob costs one scan. */
const BASE64_RUN = /(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{24,4096}={0,2}(?![A-Za-z0-9+/_=-])/g;

/**
 * Base64 that decodes to text holding a secret (`echo c2stYW50… | base64 -d`, a key in a Kubernetes secret) goes
 * whole. Hashes, images and other binary decode to non-text and stay; so does base64 of text without a secret.
 */
function redactBase64(text: string): string {
  // A run seen before in this text is not decoded again (a pasted blob repeats its lines).
  const seen = new Map<string, string>();
  return text.replace(BASE64_RUN, (m) => {
    if (!/[0-9+/]/.test(m) && !(/[A-Z]/.test(m) && /[a-z]/.test(m))) return m;
    let out = seen.get(m);
    if (out === undefined) {
      const decoded = Buffer.from(m, "base64");
      const t = decoded.toString("latin1");
      out = isText(decoded) && redactPlain(t) !== t ? "[redacted base64 secret]" : m;
      if (seen.size < 10_000) seen.set(m, out);
    }
    return out;
  });
}

// A backslash escape may itself be escaped (inside a JSON string, once or twice): `\\x67`.
const ESCAPE = String.raw`\\{1,4}u[0-9a-fA-F]{4}|\\{1,4}u\{[0-9a-fA-F]{1,6}\}|\\{1,4}x[0-9a-fA-F]{2}|&#[0-9]{1,7};|&#[xX][0-9a-fA-F]{1,6};|%[0-9a-fA-F]{2}`;
/** A run of token characters and escapes (`\u0073`, `\x67`, `&#115;`, `%73`). */
const ESCAPED_RUN = new RegExp(String.raw`(?:${ESCAPE}|[A-Za-z0-9_+/=.-]){16,2000}`, "g");
const ONE_ESCAPE = new RegExp(ESCAPE, "g");

function unescapeOne(escape: string): string {
  const e = escape.replace(/^\\+/, "\\");
  const hex = e.startsWith("&#x") || e.startsWith("&#X") ? e.slice(3, -1) : e.startsWith("\\u{") ? e.slice(3, -1) : "";
  const code = hex
    ? parseInt(hex, 16)
    : e.startsWith("&#")
      ? parseInt(e.slice(2, -1), 10)
      : parseInt(e.startsWith("%") ? e.slice(1) : e.slice(2), 16);
  return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : "";
}

/** A secret hidden behind escapes (`\u0073k-ant-…`, `&#115;k-ant-…`, `\x67\x68\x70_…`) goes whole. */
function redactEscaped(text: string): string {
  return text.replace(ESCAPED_RUN, (m) => {
    ONE_ESCAPE.lastIndex = 0;
    if (!ONE_ESCAPE.test(m)) return m;
    const decoded = m.replace(ONE_ESCAPE, unescapeOne);
    // What the rules catch without decoding is theirs; only a secret that decoding reveals is taken here.
    if (redactPlain(decoded) === decoded || redactPlain(m) !== m) return m;
    return "[redacted escaped secret]";
  });
}

/**
 * Replaces `open…close` spans (case-insensitive, non-nested) in one linear pass: each search starts where the
 * last ended, and a missing close ends the search, so many unclosed opens cost no more than one.
 */
function replaceSpans(text: string, open: RegExp, close: RegExp, marker: string): string {
  let out = "";
  let pos = 0;
  for (;;) {
    open.lastIndex = pos;
    const o = open.exec(text);
    if (!o) break;
    close.lastIndex = o.index + o[0].length;
    const c = close.exec(text);
    if (!c) break;
    const end = c.index + c[0].length;
    out += text.slice(pos, o.index) + keepLines(marker, text.slice(o.index, end));
    pos = end;
  }
  return pos === 0 ? text : out + text.slice(pos);
}

/**
 * Short texts that redaction left unchanged, remembered so a text seen again (a field name, a path, a card line
 * in every result) is not checked again. Only texts without a secret are kept; bounded, emptied when full.
 */
const clean = new Set<string>();
const CLEAN_MAX = 8192;
const CLEAN_CHARS = 512;

/** Text with every recognised secret replaced by a marker. Idempotent; never changes the number of lines. */
export function redact(text: string): string {
  if (text.length > CLEAN_CHARS) return redactText(text, true);
  if (clean.has(text)) return text;
  const out = redactText(text, true);
  if (out === text) {
    if (clean.size >= CLEAN_MAX) clean.clear();
    clean.add(text);
  }
  return out;
}

let rulesId: string | undefined;

/**
 * An identity of these rules (a hash of this module's code): what was checked with other rules, such as a path
 * indexed by an earlier version, is checked again.
 */
export function redactionRulesId(): string {
  return (rulesId ??= createHash("sha1")
    .update(readFileSync(fileURLToPath(import.meta.url)))
    .digest("hex"));
}

/** The rules alone, without decoding base64 or escapes (what a decoded run is checked with). */
function redactPlain(text: string): string {
  return redactText(text, false);
}

function redactText(text: string, decode: boolean): string {
  if (!text) return text;
  // Markers already in the text (an earlier redaction, a user quoting one) are set aside, so the pass below that
  // drops a long token's tail after a new marker never touches what follows an old one.
  const held = text.includes("[redacted]");
  let out = held ? text.replaceAll("[redacted]", HELD) : text;
  out = replaceSpans(out, /<private>/gi, /<\/private>/gi, "[private]");
  out = replaceSpans(
    out,
    /-----BEGIN [A-Z ]{0,40}PRIVATE KEY(?: BLOCK)?-----/g,
    /-----END [A-Z ]{0,40}PRIVATE KEY(?: BLOCK)?-----/g,
    "[redacted private key]",
  );
  if (decode) {
    out = redactSplitTokens(out);
    if (/\\[ux]|&#|%[0-9a-fA-F]{2}/.test(out)) out = redactEscaped(out);
    out = redactBase64(out);
  }
  for (const [re, rep, gate] of RULES) {
    if (gate !== undefined && !out.includes(gate)) continue;
    out = typeof rep === "string" ? out.replace(re, rep) : out.replace(re, rep);
  }
  // A value longer than a rule's bound leaves its tail right after the marker: that tail goes too.
  if (out.includes("[redacted]")) {
    out = out.replace(/\[redacted\](?:[A-Za-z0-9+/=_~%-]|\.(?=[A-Za-z0-9]))+/g, "[redacted]");
  }
  return held ? out.replaceAll(HELD, "[redacted]") : out;
}

/** Stands in for a marker that was in the text before this redaction (private-use characters). */
const HELD = "\uE000redacted\uE001";

/** A key whose string value is a secret whatever it looks like: `{"password": "Zq8vLmN2pQ"}`, `apiKey`, `cookie`. */
const SECRET_KEY =
  /(?:secret|token|passw(?:or)?d|pwd|^pass|authorization|credentials?|api[_-]?key|private[_-]?key|access[_-]?key|cookie)$/i;

/** Nesting past this depth is not walked: it is replaced whole (no store or result needs it, and recursion would). */
const MAX_DEPTH = 64;

/** A copy of a JSON-like value with every string in it redacted (keys too), and the values of secret-named keys. */
export function redactDeep<T>(value: T, depth = 0): T {
  if (typeof value === "string") return redact(value) as T;
  if (depth >= MAX_DEPTH && value && typeof value === "object") return "[nested too deep]" as T;
  if (Array.isArray(value)) return value.map((v: unknown) => redactDeep(v, depth + 1)) as T;
  if (value && typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const secret = typeof v === "string" && SECRET_KEY.test(k) && v.trim().length >= 3 && !codeValue(v.trim(), "=");
      out[redact(k)] = secret ? "[redacted]" : redactDeep(v, depth + 1);
    }
    return out as T;
  }
  return value;
}

/** A JSON document with every string in it redacted; text that is not JSON is redacted as text. */
export function redactJson(json: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    return redact(json);
  }
  return JSON.stringify(redactDeep(parsed));
}
