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
import { goFormat, goPathEscape, goQueryEscape, goTimeString } from './goText.js';
import { GolinkTemplateError, parseGolinkTemplate, safePattern, type Arg, type Node, type Pipe } from './golinkTemplateParse.js';

export { goFormat, goPathEscape, goQueryEscape } from './goText.js';
export { GolinkTemplateError, isGolinkTemplate, parseGolinkTemplate, type GolinkTemplate } from './golinkTemplateParse.js';

export const OUTPUT_MAX = 8192;
export const MATCH_SUBJECT_MAX = 2048;

type Value = { kind: 'str'; s: string; dyn: boolean } | { kind: 'bool'; b: boolean } | { kind: 'time'; at: Date } | { kind: 'root' };

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
