import { Memo } from './memo.js';

/**
 * Reading a golink template (domain/golinkTemplate.ts says what the language is): its
 * actions tokenized and parsed into nodes once per text, with the checks a write can make
 * before any visit (arity, and that a Match pattern cannot backtrack without bound).
 */

/** A golink template is a destination with a `{{` in it (golink's own test, `expandLink`). */
export function isGolinkTemplate(url: string): boolean {
  return url.includes('{{');
}

const PATTERN_MAX = 256;

export type Arg =
  | { t: 'field'; path: string[] } // [] is `.`
  | { t: 'str'; s: string }
  | { t: 'bool'; b: boolean }
  | { t: 'func'; name: string }
  | { t: 'pipe'; pipe: Pipe };
export type Cmd = Arg[];
export type Pipe = Cmd[];
export type Node =
  { t: 'text'; s: string } | { t: 'print'; pipe: Pipe } | { t: 'if' | 'with'; pipe: Pipe; then: Node[]; otherwise: Node[] };

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
export function safePattern(pattern: string): RegExp {
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
const memo = new Memo<string, GolinkTemplate>(MEMO_SIZE);

/** The template parsed, remembered per text (a template's text never changes meaning). Throws GolinkTemplateError. */
export function parseGolinkTemplate(src: string): GolinkTemplate {
  let parsed = memo.get(src);
  if (parsed === undefined) {
    parsed = memo.set(src, parse(src));
  }
  return parsed;
}
