/**
 * golink's destination templates (docs/links.md#golink-templates): the subset of Go's
 * text/template that tailscale/golink gives its links (`expandLink` and `expandFuncMap` in
 * its golink.go), run by a small interpreter of our own so that no other code ever runs.
 *
 * - Data: `.Path` (the whole rest of the visited path, any number of segments, decoded),
 *   `.User` (the signed-in visitor's email; nobody signed in: the visitor must sign in),
 *   `.Now` (UTC) with `.Now.Format "layout"`; `.` inside `with`.
 * - Actions: `{{pipeline}}`, `{{if}}`, `{{with}}`, `{{else}}`, `{{else if}}`, `{{else with}}`,
 *   `{{end}}`, `{{- -}}` trimming, pipes (`|`) and parentheses.
 * - Functions: golink's `PathEscape`, `QueryEscape`, `TrimPrefix`, `TrimSuffix`, `ToLower`,
 *   `ToUpper`, `Match`, and Go's `not`, `and`, `or`, `eq`, `ne`.
 *
 * Bounds: there is no loop, so a run is linear in the template; `Match` takes only a literal
 * pattern without backreferences, lookaround or nested repetition (so no backtracking can
 * explode) and tests at most MATCH_SUBJECT_MAX characters; output stops at OUTPUT_MAX.
 *
 * Every character of the output remembers whether the link's author wrote it or a value
 * (the visitor's path, their email, the time) put it there: a destination whose scheme or
 * host is not entirely the author's is refused (golinkDestination), the rule `$var`
 * templates keep (docs/links.md#placeholders-in-the-host).
 */

/** A golink template is a destination with a `{{` in it (golink's own test, `expandLink`). */
export function isGolinkTemplate(url: string): boolean {
  return url.includes('{{');
}

export const OUTPUT_MAX = 8192;
export const MATCH_SUBJECT_MAX = 2048;
const PATTERN_MAX = 256;

type Value = { kind: 'str'; s: string; dyn: boolean } | { kind: 'bool'; b: boolean } | { kind: 'time'; at: Date } | { kind: 'root' };

type Arg =
  | { t: 'field'; path: string[] } // [] is `.`
  | { t: 'str'; s: string }
  | { t: 'bool'; b: boolean }
  | { t: 'func'; name: string }
  | { t: 'pipe'; pipe: Pipe };
type Cmd = Arg[];
type Pipe = Cmd[];
type Node = { t: 'text'; s: string } | { t: 'print'; pipe: Pipe } | { t: 'if' | 'with'; pipe: Pipe; then: Node[]; otherwise: Node[] };

const FUNCS = new Set([
  'PathEscape',
  'QueryEscape',
  'TrimPrefix',
  'TrimSuffix',
  'ToLower',
  'ToUpper',
  'Match',
  'not',
  'and',
  'or',
  'eq',
  'ne',
]);
const ARITY: Record<string, number | null> = {
  PathEscape: 1,
  QueryEscape: 1,
  TrimPrefix: 2,
  TrimSuffix: 2,
  ToLower: 1,
  ToUpper: 1,
  Match: 2,
  not: 1,
  and: null,
  or: null,
  eq: 2,
  ne: 2,
};

/** A template that cannot be read, or a run that cannot finish; the message says why. */
export class GolinkTemplateError extends Error {}

// ---------------------------------------------------------------- parsing

const ACTION = /\{\{(-\s)?([\s\S]*?)(\s-)?\}\}/g;

interface Action {
  body: string;
}

function tokenize(body: string): string[] {
  const tokens: string[] = [];
  let i = 0;
  while (i < body.length) {
    const c = body[i]!;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if (c === '|' || c === '(' || c === ')') {
      tokens.push(c);
      i++;
      continue;
    }
    if (c === '"') {
      let j = i + 1;
      while (j < body.length && body[j] !== '"') j += body[j] === '\\' ? 2 : 1;
      if (j >= body.length) throw new GolinkTemplateError('unterminated string in a template action');
      tokens.push(body.slice(i, j + 1));
      i = j + 1;
      continue;
    }
    if (c === '`') {
      const j = body.indexOf('`', i + 1);
      if (j === -1) throw new GolinkTemplateError('unterminated raw string in a template action');
      tokens.push(body.slice(i, j + 1));
      i = j + 1;
      continue;
    }
    const m = /^[^\s|()"`]+/.exec(body.slice(i))!;
    tokens.push(m[0]);
    i += m[0].length;
  }
  return tokens;
}

function stringLiteral(token: string): string {
  if (token.startsWith('`')) return token.slice(1, -1);
  try {
    return JSON.parse(token) as string;
  } catch {
    throw new GolinkTemplateError(`unsupported escape in the string ${token}`);
  }
}

class PipeParser {
  private at = 0;
  constructor(private readonly tokens: string[]) {}

  pipe(closing: string | null): Pipe {
    const cmds: Pipe = [];
    let cmd: Cmd = [];
    while (this.at < this.tokens.length) {
      const tok = this.tokens[this.at]!;
      if (tok === closing) break;
      this.at++;
      if (tok === '|') {
        if (cmd.length === 0) throw new GolinkTemplateError('missing command before |');
        cmds.push(cmd);
        cmd = [];
      } else if (tok === '(') {
        const inner = this.pipe(')');
        if (this.tokens[this.at] !== ')') throw new GolinkTemplateError('unclosed ( in a template action');
        this.at++;
        cmd.push({ t: 'pipe', pipe: inner });
      } else if (tok === ')') throw new GolinkTemplateError('unexpected ) in a template action');
      else cmd.push(operand(tok));
    }
    if (cmd.length === 0) throw new GolinkTemplateError(cmds.length === 0 ? 'empty template action' : 'missing command after |');
    cmds.push(cmd);
    return cmds;
  }

  done(): boolean {
    return this.at >= this.tokens.length;
  }
}

function operand(tok: string): Arg {
  if (tok.startsWith('"') || tok.startsWith('`')) return { t: 'str', s: stringLiteral(tok) };
  if (tok === 'true' || tok === 'false') return { t: 'bool', b: tok === 'true' };
  if (tok === '.') return { t: 'field', path: [] };
  if (/^(\.[A-Za-z_][A-Za-z0-9_]*)+$/.test(tok)) {
    const path = tok.slice(1).split('.');
    // golink's data has these fields and nothing else; golink itself finds out only when a visit fails.
    const known =
      path.length === 1 ? ['Path', 'User', 'Now'].includes(path[0]!) : path.length === 2 && path[0] === 'Now' && path[1] === 'Format';
    if (!known) throw new GolinkTemplateError(`can't evaluate field ${path.find((f) => !['Path', 'User', 'Now'].includes(f)) ?? path[1]}`);
    return { t: 'field', path };
  }
  if (FUNCS.has(tok)) return { t: 'func', name: tok };
  if (/^\$/.test(tok)) throw new GolinkTemplateError(`template variables such as ${tok} are not supported`);
  throw new GolinkTemplateError(`function "${tok}" not defined`);
}

function parsePipe(body: string): Pipe {
  const parser = new PipeParser(tokenize(body));
  const pipe = parser.pipe(null);
  if (!parser.done()) throw new GolinkTemplateError('unexpected ) in a template action');
  checkPipe(pipe);
  return pipe;
}

/** Write-time checks of what a run would otherwise only find out: arity and Match's pattern. */
function checkPipe(pipe: Pipe): void {
  pipe.forEach((cmd, i) => {
    const head = cmd[0]!;
    for (const arg of cmd) if (arg.t === 'pipe') checkPipe(arg.pipe);
    if (head.t !== 'func') {
      if (cmd.length > 1 && !(head.t === 'field' && head.path.at(-1) === 'Format')) {
        throw new GolinkTemplateError(`cannot give arguments to a non-function`);
      }
      if (i > 0 && !(head.t === 'field' && head.path.at(-1) === 'Format')) throw new GolinkTemplateError('cannot pipe into a non-function');
      return;
    }
    const given = cmd.length - 1 + (i > 0 ? 1 : 0);
    const want = ARITY[head.name];
    if (want === null ? given < 1 : given !== want) {
      throw new GolinkTemplateError(`wrong number of arguments for ${head.name}: want ${want ?? 'at least 1'}, got ${given}`);
    }
    if (head.name === 'Match') {
      const pattern = cmd[1];
      if (pattern?.t !== 'str') throw new GolinkTemplateError('Match takes a literal pattern as its first argument');
      safePattern(pattern.s);
    }
  });
}

/**
 * Match patterns are RE2 in golink; JavaScript's engine backtracks, so only patterns that
 * cannot backtrack without bound are taken: no backreference, no lookaround, no repeated
 * group that itself repeats or alternates.
 */
function safePattern(pattern: string): RegExp {
  if (pattern.length > PATTERN_MAX) throw new GolinkTemplateError(`a Match pattern may be at most ${PATTERN_MAX} characters`);
  if (/\\[1-9k]|\(\?[=!<]/.test(pattern)) throw new GolinkTemplateError('Match patterns may not use backreferences or lookaround');
  // For each open group, whether it repeats or alternates inside.
  const groups: boolean[] = [];
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\') {
      i++;
      continue;
    }
    if (c === '[') {
      const close = pattern.indexOf(']', i + 2);
      i = close === -1 ? pattern.length : close;
      continue;
    }
    if (c === '(') groups.push(false);
    else if (c === ')') {
      const inner = groups.pop() ?? false;
      if (inner && /^[*+?{]/.test(pattern.slice(i + 1)))
        throw new GolinkTemplateError('Match patterns may not repeat a group that repeats');
      if (groups.length > 0 && inner) groups[groups.length - 1] = true;
    } else if (/[*+?{|]/.test(c) && groups.length > 0) groups[groups.length - 1] = true;
  }
  try {
    return new RegExp(pattern, 'u');
  } catch {
    throw new GolinkTemplateError(`Match pattern ${JSON.stringify(pattern)} is not a valid regular expression`);
  }
}

/** A parsed template; parse once per template text (parseGolinkTemplate memoises). */
export interface GolinkTemplate {
  nodes: Node[];
  /** Whether it reads `.User` anywhere, so the resolver knows it needs the visitor's email. */
  usesUser: boolean;
}

function parse(src: string): GolinkTemplate {
  const pieces: Array<string | Action> = [];
  let at = 0;
  // Whether the last action ended in ` -}}`, which trims the text after it.
  let trimNext = false;
  for (const m of src.matchAll(ACTION)) {
    let text = src.slice(at, m.index);
    if (m[1] !== undefined) text = text.replace(/\s+$/, '');
    if (trimNext) text = text.replace(/^\s+/, '');
    pieces.push(text, { body: m[2]!.trim() });
    trimNext = m[3] !== undefined;
    at = m.index + m[0].length;
  }
  let tail = src.slice(at);
  if (trimNext) tail = tail.replace(/^\s+/, '');
  if (tail.includes('{{')) throw new GolinkTemplateError('unclosed action: a {{ without its }}');
  pieces.push(tail);

  let i = 0;
  const usesUser = /\.User\b/.test(src);
  // Reads nodes up to an `else` or `end`, which it leaves for the caller.
  const block = (): { nodes: Node[]; stop: string | null } => {
    const nodes: Node[] = [];
    while (i < pieces.length) {
      const piece = pieces[i++]!;
      if (typeof piece === 'string') {
        if (piece !== '') nodes.push({ t: 'text', s: piece });
        continue;
      }
      const body = piece.body;
      if (body.startsWith('/*')) continue;
      const keyword = /^(if|with|else|end|range|template|define|block)\b/.exec(body)?.[1];
      if (keyword === 'end' || keyword === 'else') return { nodes, stop: body };
      if (keyword === 'if' || keyword === 'with') nodes.push(conditional(keyword, body.slice(keyword.length)));
      else if (keyword !== undefined) throw new GolinkTemplateError(`{{${keyword}}} is not supported in golink templates`);
      else nodes.push({ t: 'print', pipe: parsePipe(body) });
    }
    return { nodes, stop: null };
  };
  const conditional = (t: 'if' | 'with', rest: string): Node => {
    const pipe = parsePipe(rest);
    const then = block();
    if (then.stop === null) throw new GolinkTemplateError(`unexpected end of template: {{${t}}} without {{end}}`);
    if (then.stop === 'end') return { t, pipe, then: then.nodes, otherwise: [] };
    const elseRest = then.stop.slice('else'.length).trim();
    if (elseRest === '') {
      const otherwise = block();
      if (otherwise.stop !== 'end') throw new GolinkTemplateError(`{{else}} of {{${t}}} without {{end}}`);
      return { t, pipe, then: then.nodes, otherwise: otherwise.nodes };
    }
    const chained = /^(if|with)\b/.exec(elseRest)?.[1] as 'if' | 'with' | undefined;
    if (!chained) throw new GolinkTemplateError(`unexpected {{${then.stop}}}`);
    // `{{else if x}}…{{end}}` is `{{else}}{{if x}}…{{end}}{{end}}` sharing the one end.
    return { t, pipe, then: then.nodes, otherwise: [conditional(chained, elseRest.slice(chained.length))] };
  };
  const top = block();
  if (top.stop !== null) throw new GolinkTemplateError(`unexpected {{${top.stop}}}`);
  return { nodes: top.nodes, usesUser };
}

const MEMO_SIZE = 1_000;
const memo = new Map<string, GolinkTemplate>();

/** The template parsed, remembered per text (a template's text never changes meaning). Throws GolinkTemplateError. */
export function parseGolinkTemplate(src: string): GolinkTemplate {
  let parsed = memo.get(src);
  if (parsed === undefined) {
    parsed = parse(src);
    if (memo.size >= MEMO_SIZE) memo.clear();
    memo.set(src, parsed);
  }
  return parsed;
}

// ---------------------------------------------------------------- running

/** What a run knows of the visit. `user` null: nobody is signed in. */
export interface GolinkEnv {
  path: string;
  user: string | null;
  now: Date;
}

/** A stretch of output and whether a value (rather than the link's author) wrote it. */
interface Piece {
  s: string;
  dyn: boolean;
}

class NeedsUser extends Error {}

const str = (s: string, dyn: boolean): Value => ({ kind: 'str', s, dyn });

function truthy(v: Value): boolean {
  if (v.kind === 'str') return v.s !== '';
  if (v.kind === 'bool') return v.b;
  return true;
}

function text(v: Value): Piece {
  if (v.kind === 'str') return { s: v.s, dyn: v.dyn };
  if (v.kind === 'bool') return { s: String(v.b), dyn: false };
  if (v.kind === 'time') return { s: goTimeString(v.at), dyn: true };
  throw new GolinkTemplateError('cannot print the whole template data');
}

function asString(v: Value, fn: string): { s: string; dyn: boolean } {
  if (v.kind !== 'str') throw new GolinkTemplateError(`${fn} expects a string`);
  return v;
}

function field(base: Value, name: string, env: GolinkEnv): Value {
  if (base.kind === 'root') {
    if (name === 'Path') return str(env.path, true);
    if (name === 'Now') return { kind: 'time', at: env.now };
    if (name === 'User') {
      if (env.user === null) throw new NeedsUser();
      return str(env.user, true);
    }
  }
  throw new GolinkTemplateError(`can't evaluate field ${name}`);
}

function call(name: string, args: Value[]): Value {
  const s = (i: number) => asString(args[i]!, name);
  switch (name) {
    case 'PathEscape':
      return str(goPathEscape(s(0).s), s(0).dyn);
    case 'QueryEscape':
      return str(goQueryEscape(s(0).s), s(0).dyn);
    case 'ToLower':
      return str(s(0).s.toLowerCase(), s(0).dyn);
    case 'ToUpper':
      return str(s(0).s.toUpperCase(), s(0).dyn);
    case 'TrimPrefix': {
      const [v, p] = [s(0), s(1)];
      return str(p.s !== '' && v.s.startsWith(p.s) ? v.s.slice(p.s.length) : v.s, v.dyn || p.dyn);
    }
    case 'TrimSuffix': {
      const [v, p] = [s(0), s(1)];
      return str(p.s !== '' && v.s.endsWith(p.s) ? v.s.slice(0, -p.s.length) : v.s, v.dyn || p.dyn);
    }
    case 'Match': {
      const subject = s(1).s;
      if (subject.length > MATCH_SUBJECT_MAX) return { kind: 'bool', b: false };
      return { kind: 'bool', b: safePattern(s(0).s).test(subject) };
    }
    case 'not':
      return { kind: 'bool', b: !truthy(args[0]!) };
    case 'and':
      return args.find((a) => !truthy(a)) ?? args[args.length - 1]!;
    case 'or':
      return args.find(truthy) ?? args[args.length - 1]!;
    case 'eq':
    case 'ne': {
      const [a, b] = [text(args[0]!).s, text(args[1]!).s];
      return { kind: 'bool', b: (a === b) === (name === 'eq') };
    }
  }
  throw new GolinkTemplateError(`function "${name}" not defined`);
}

function evalPipe(pipe: Pipe, dot: Value, env: GolinkEnv): Value {
  let last: Value | undefined;
  for (const cmd of pipe) {
    const head = cmd[0]!;
    const args = cmd.slice(1).map((a) => evalArg(a, dot, env));
    if (last !== undefined) args.push(last);
    if (head.t === 'func') last = call(head.name, args);
    else if (head.t === 'field' && head.path.at(-1) === 'Format' && head.path.length > 0) {
      const time = evalArg({ t: 'field', path: head.path.slice(0, -1) }, dot, env);
      const layout = args[0];
      if (time.kind !== 'time' || args.length !== 1 || layout?.kind !== 'str')
        throw new GolinkTemplateError('Format takes one layout string, on .Now');
      last = str(goFormat(time.at, layout.s), true);
    } else last = evalArg(head, dot, env);
  }
  return last!;
}

function evalArg(arg: Arg, dot: Value, env: GolinkEnv): Value {
  switch (arg.t) {
    case 'str':
      return str(arg.s, false);
    case 'bool':
      return { kind: 'bool', b: arg.b };
    case 'pipe':
      return evalPipe(arg.pipe, dot, env);
    case 'func':
      return call(arg.name, []);
    case 'field': {
      if (arg.path[0] === 'Format') throw new GolinkTemplateError('Format needs a layout');
      let v = arg.path.length > 0 && dot.kind !== 'root' ? field(dot, arg.path[0]!, env) : dot;
      for (const [i, name] of arg.path.entries()) if (i > 0 || dot.kind === 'root') v = field(v, name, env);
      return v;
    }
  }
}

function run(nodes: readonly Node[], dot: Value, env: GolinkEnv, out: Piece[], size: { n: number }): void {
  for (const node of nodes) {
    if (node.t === 'text' || node.t === 'print') {
      const piece = node.t === 'text' ? { s: node.s, dyn: false } : text(evalPipe(node.pipe, dot, env));
      size.n += piece.s.length;
      if (size.n > OUTPUT_MAX) throw new GolinkTemplateError(`the destination would be longer than ${OUTPUT_MAX} characters`);
      out.push(piece);
      continue;
    }
    const v = evalPipe(node.pipe, dot, env);
    if (truthy(v)) run(node.then, node.t === 'with' ? v : dot, env, out, size);
    else run(node.otherwise, dot, env, out, size);
  }
}

/** What a run comes to: a destination, a visitor who must sign in first, or an error to answer with. */
export type GolinkExpansion = { kind: 'destination'; url: string } | { kind: 'login' } | { kind: 'error'; message: string };

/**
 * Runs a golink template for one visit. The result is a destination only when its scheme and
 * host are the author's (absolute http or https), or it is a path on this server (`/meet/x`;
 * golink's relative destinations).
 */
export function expandGolinkTemplate(src: string, env: GolinkEnv): GolinkExpansion {
  const out: Piece[] = [];
  try {
    run(parseGolinkTemplate(src).nodes, { kind: 'root' }, env, out, { n: 0 });
  } catch (e) {
    if (e instanceof NeedsUser) return { kind: 'login' };
    if (e instanceof GolinkTemplateError) return { kind: 'error', message: e.message };
    throw e;
  }
  const url = golinkDestination(out);
  return url === null
    ? { kind: 'error', message: 'the destination’s scheme and host must be written in the link itself' }
    : { kind: 'destination', url };
}

const ABSOLUTE = /^(https?:\/\/)([^/\\?#]*)/i;

/**
 * The output as a destination, or null when a value could decide where it goes: the scheme
 * and authority are the author's, except that values may add to the host name in front of
 * a literal domain (`http://{{.Path}}.example/`), as `$var` templates may
 * (docs/links.md#placeholders-in-the-host), and then only with host-name characters.
 */
function golinkDestination(pieces: readonly Piece[]): string | null {
  let raw = '';
  const dyn: boolean[] = [];
  for (const p of pieces) {
    raw += p.s;
    for (let i = 0; i < p.s.length; i++) dyn.push(p.dyn);
  }
  const lead = raw.length - raw.trimStart().length;
  const url = raw.trim();
  const isDyn = (i: number) => dyn[lead + i] === true;
  const absolute = ABSOLUTE.exec(url);
  if (absolute) {
    const hostStart = absolute[1]!.length;
    const end = hostStart + absolute[2]!.length;
    for (let i = 0; i < hostStart; i++) if (isDyn(i)) return null;
    let last = -1;
    for (let i = hostStart; i < end; i++) {
      if (!isDyn(i)) continue;
      if (!/[A-Za-z0-9.-]/.test(url[i]!)) return null;
      last = i;
    }
    if (last !== -1 && !/^\.[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.?(?::\d+)?$/.test(url.slice(last + 1, end))) return null;
    try {
      const parsed = new URL(url);
      return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? url : null;
    } catch {
      return null;
    }
  }
  // golink's relative destinations lead to another go link on this server: `rel` is `/rel`.
  const path = url.startsWith('/') ? url : `/${url}`;
  const shift = path.length - url.length;
  // The leading `/` and the character after it are the author's, so no value makes `//host`.
  for (let i = 0; i < Math.min(2, path.length); i++) if (i >= shift && isDyn(i - shift)) return null;
  if (/^\/[/\\]/.test(path) || /^[^/?#]*:/.test(url)) return null;
  try {
    return new URL(path, 'http://host.invalid').host === 'host.invalid' ? path : null;
  } catch {
    return null;
  }
}

// ---------------------------------------------------------------- Go's library, as golink calls it

const UNRESERVED = /[A-Za-z0-9\-_.~]/;

function escapeWith(s: string, keep: RegExp, space: string): string {
  let out = '';
  for (const ch of s) {
    if (ch.length === 1 && keep.test(ch)) out += ch;
    else if (ch === ' ' && space !== '') out += space;
    else for (const byte of Buffer.from(ch, 'utf8')) out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** Go's url.PathEscape: a path segment, `/` escaped, `$&+:=@` kept. */
export function goPathEscape(s: string): string {
  return escapeWith(s, /[A-Za-z0-9\-_.~$&+:=@]/, '');
}

/** Go's url.QueryEscape: a query value, space as `+`. */
export function goQueryEscape(s: string): string {
  return escapeWith(s, UNRESERVED, '+');
}

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const pad = (n: number, w: number, c = '0') => String(n).padStart(w, c);

/** Go's time.Format for a UTC time: its reference-time layout (`01-02-2006`, `Jan 2 15:04`). */
export function goFormat(at: Date, layout: string): string {
  const hour12 = at.getUTCHours() % 12 === 0 ? 12 : at.getUTCHours() % 12;
  const nanos = String(at.getUTCMilliseconds() * 1_000_000).padStart(9, '0');
  // Tried in this order at each position, as Go's nextStdChunk does.
  const chunks: Array<[string | RegExp, (m: string) => string]> = [
    ['January', () => MONTHS[at.getUTCMonth()]!],
    ['Jan', () => MONTHS[at.getUTCMonth()]!.slice(0, 3)],
    ['Monday', () => DAYS[at.getUTCDay()]!],
    ['Mon', () => DAYS[at.getUTCDay()]!.slice(0, 3)],
    ['MST', () => 'UTC'],
    ['2006', () => pad(at.getUTCFullYear(), 4)],
    ['002', () => pad(dayOfYear(at), 3)],
    ['01', () => pad(at.getUTCMonth() + 1, 2)],
    ['02', () => pad(at.getUTCDate(), 2)],
    ['03', () => pad(hour12, 2)],
    ['04', () => pad(at.getUTCMinutes(), 2)],
    ['05', () => pad(at.getUTCSeconds(), 2)],
    ['06', () => pad(at.getUTCFullYear() % 100, 2)],
    ['15', () => String(at.getUTCHours())],
    ['1', () => String(at.getUTCMonth() + 1)],
    ['_2', () => pad(at.getUTCDate(), 2, ' ')],
    ['2', () => String(at.getUTCDate())],
    ['3', () => String(hour12)],
    ['4', () => String(at.getUTCMinutes())],
    ['5', () => String(at.getUTCSeconds())],
    ['PM', () => (at.getUTCHours() >= 12 ? 'PM' : 'AM')],
    ['pm', () => (at.getUTCHours() >= 12 ? 'pm' : 'am')],
    [/^Z(?:07:00:00|070000|07:00|0700|07)/, () => 'Z'],
    [/^-(?:07:00:00|070000|07:00|0700|07)/, (m) => m.replace(/07|00/g, '00').replace(/^-/, '+')],
    [
      /^[.,](?:0+|9+)(?![0-9])/,
      (m) =>
        m.charAt(1) === '0' ? m.charAt(0) + nanos.slice(0, m.length - 1) : trimmedFraction(m.charAt(0), nanos.slice(0, m.length - 1)),
    ],
  ];
  let out = '';
  let i = 0;
  outer: while (i < layout.length) {
    const rest = layout.slice(i);
    for (const [token, value] of chunks) {
      const m = typeof token === 'string' ? (rest.startsWith(token) ? token : null) : (token.exec(rest)?.[0] ?? null);
      if (m !== null) {
        out += value(m);
        i += m.length;
        continue outer;
      }
    }
    out += layout[i];
    i++;
  }
  return out;
}

function trimmedFraction(sep: string, digits: string): string {
  const kept = digits.replace(/0+$/, '');
  return kept === '' ? '' : sep + kept;
}

function dayOfYear(at: Date): number {
  return Math.floor((at.getTime() - Date.UTC(at.getUTCFullYear(), 0, 1)) / 86_400_000) + 1;
}

/** Go's Time.String for a UTC time, what `{{.Now}}` prints. */
function goTimeString(at: Date): string {
  return goFormat(at, '2006-01-02 15:04:05.999999999 -0700 MST');
}
