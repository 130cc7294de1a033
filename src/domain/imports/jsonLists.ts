/**
 * The rows of a whole-document JSON export (Shlink's, Slash's, Trotto's
 * lists…), read as the text arrives: only the list that holds the links is
 * walked, each of its members is cut out of the text and handed to
 * `JSON.parse` on its own, and everything else in the document is parsed
 * only to be checked and dropped. So what is held at once is one chunk and
 * one member, never the whole file or its whole object graph, and no single
 * step blocks for longer than one chunk takes; yet a document broken anywhere
 * (a stray comma after the last row) is still refused whole, since the end of
 * the text is reached before a caller's first pass says the file is sound.
 */

/** Where a list of rows sits: object keys from the top, `'*'` for any member of an array. */
export type JsonListPath = readonly string[];

export interface JsonListsSpec {
  /** The places a list of rows may be (`[]` is the document itself). */
  paths: readonly JsonListPath[];
  /** Which containers count as a list there: arrays, or objects too (their values, in document order). */
  objects?: boolean;
  /** Several documents one after another (pages saved one per line). */
  several?: boolean;
}

/** The text is not JSON (or ends before its document does). */
export class JsonSyntaxError extends Error {
  constructor() {
    super('not valid JSON');
  }
}

/** A document that is JSON but has no list where its tool puts one. */
export class JsonShapeError extends Error {
  constructor(readonly rowsBefore: number) {
    super('no list of rows where the tool writes it');
  }
}

type Kind = 'object' | 'array';

interface Frame {
  kind: Kind;
  path: string[];
  /** Its members are the rows. */
  list: boolean;
  /** What comes next: a key, a colon, a value, or a comma / the end. */
  state: 'first' | 'key' | 'colon' | 'value' | 'next';
  key: string;
}

/** A value being cut out of the text, possibly across chunks. */
interface Capture {
  pieces: string[];
  /** 's' a string, 'c' an object or array, 'l' a number or literal. */
  shape: 's' | 'c' | 'l';
  depth: number;
  inString: boolean;
  /** The last character read was a backslash inside a string. */
  escaped: boolean;
  /** A member of a list (emitted) or anything else (checked, then dropped). */
  row: boolean;
}

const WHITESPACE = /[^ \t\n\r]/g;
const STRUCTURE = /[{}[\]"]/g;
const STRING_END = /["\\]/g;
const LITERAL_END = /[,\]} \t\n\r]/g;

const parse = (text: string): unknown => {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new JsonSyntaxError();
  }
};

/**
 * The members of the lists `spec` names, in document order. Throws
 * JsonSyntaxError for text that is not JSON, and JsonShapeError for a
 * document with no such list (after the rows of earlier documents).
 */
export async function* jsonListMembers(chunks: AsyncIterable<string>, spec: JsonListsSpec): AsyncIterable<unknown> {
  const lists = spec.paths;
  const matches = (path: readonly string[], pattern: JsonListPath): boolean =>
    path.length === pattern.length && pattern.every((p, i) => p === '*' || p === path[i]);
  const leadsTo = (path: readonly string[]): boolean =>
    lists.some((pattern) => pattern.length > path.length && path.every((p, i) => pattern[i] === '*' || pattern[i] === p));

  let buf = '';
  let pos = 0;
  let first = true;
  const stack: Frame[] = [];
  /** A document has begun and not ended. */
  let open = false;
  let documents = 0;
  let foundInDocument = false;
  let rows = 0;
  let capture: Capture | null = null;
  /** The rows read before a document without its list ended: told once the whole text is known to be JSON. */
  let shapeless: number | null = null;
  let captureStart = 0;
  const out: unknown[] = [];

  const valueDone = (): void => {
    const top = stack.at(-1);
    if (top) {
      top.state = 'next';
      return;
    }
    open = false;
    if (!foundInDocument) shapeless ??= rows;
  };

  const finishCapture = (end: number): void => {
    const c = capture!;
    const text = c.pieces.length === 0 ? buf.slice(captureStart, end) : c.pieces.join('') + buf.slice(captureStart, end);
    const value = parse(text);
    capture = null;
    pos = end;
    if (c.row && shapeless === null) {
      rows++;
      out.push(value);
    }
    valueDone();
  };

  /** Reads on in the value being captured; false when the text ends first. */
  const continueCapture = (final: boolean): boolean => {
    const c = capture!;
    if (c.shape === 'l') {
      LITERAL_END.lastIndex = pos;
      const m = LITERAL_END.exec(buf);
      if (m) {
        finishCapture(m.index);
        return true;
      }
      if (final) {
        finishCapture(buf.length);
        return true;
      }
      return false;
    }
    let i = pos;
    for (;;) {
      if (c.inString) {
        if (c.escaped) {
          if (i >= buf.length) return false;
          c.escaped = false;
          i++;
        }
        STRING_END.lastIndex = i;
        const m = STRING_END.exec(buf);
        if (!m) return false;
        i = m.index + 1;
        if (m[0] === '\\') {
          c.escaped = true;
          continue;
        }
        c.inString = false;
        if (c.shape === 's') {
          finishCapture(i);
          return true;
        }
        continue;
      }
      STRUCTURE.lastIndex = i;
      const m = STRUCTURE.exec(buf);
      if (!m) return false;
      i = m.index + 1;
      const ch = m[0];
      if (ch === '"') c.inString = true;
      else if (ch === '{' || ch === '[') c.depth++;
      else if (--c.depth === 0) {
        finishCapture(i);
        return true;
      }
    }
  };

  const startValue = (path: string[], row: boolean): void => {
    const ch = buf[pos]!;
    if ((ch === '{' || ch === '[') && !row) {
      const kind: Kind = ch === '{' ? 'object' : 'array';
      const list = (kind === 'array' || spec.objects === true) && lists.some((pattern) => matches(path, pattern));
      if (list || leadsTo(path)) {
        if (list) foundInDocument = true;
        stack.push({ kind, path, list, state: 'first', key: '' });
        pos++;
        return;
      }
    }
    capture = {
      pieces: [],
      shape: ch === '"' ? 's' : ch === '{' || ch === '[' ? 'c' : 'l',
      depth: ch === '{' || ch === '[' ? 1 : 0,
      inString: ch === '"',
      escaped: false,
      row,
    };
    captureStart = pos;
    pos++;
  };

  /** Reads what the text holds so far; `final` once it has all come. */
  const advance = (final: boolean): void => {
    for (;;) {
      if (capture) {
        if (!continueCapture(final)) {
          // Keep what was read of the value; the next chunk goes on from there.
          capture.pieces.push(buf.slice(captureStart));
          buf = '';
          pos = 0;
          captureStart = 0;
          return;
        }
        continue;
      }
      WHITESPACE.lastIndex = pos;
      const m = WHITESPACE.exec(buf);
      if (!m) {
        buf = '';
        pos = 0;
        return;
      }
      pos = m.index;
      const ch = buf[pos]!;
      const top = stack.at(-1);
      if (!top) {
        if (documents > 0 && !open && !spec.several) throw new JsonSyntaxError();
        documents++;
        open = true;
        foundInDocument = false;
        startValue([], false);
        continue;
      }
      if (top.kind === 'object' && (top.state === 'first' || top.state === 'key')) {
        if (ch === '}' && top.state === 'first') {
          stack.pop();
          pos++;
          valueDone();
          continue;
        }
        if (ch !== '"') throw new JsonSyntaxError();
        STRING_END.lastIndex = pos + 1;
        let end = -1;
        for (let found = STRING_END.exec(buf); found; found = STRING_END.exec(buf)) {
          if (found[0] === '"') {
            end = found.index;
            break;
          }
          STRING_END.lastIndex = found.index + 2;
        }
        if (end === -1 || (end >= buf.length && !final)) {
          if (final) throw new JsonSyntaxError();
          buf = buf.slice(pos);
          pos = 0;
          return;
        }
        top.key = parse(buf.slice(pos, end + 1)) as string;
        top.state = 'colon';
        pos = end + 1;
        continue;
      }
      if (top.state === 'colon') {
        if (ch !== ':') throw new JsonSyntaxError();
        top.state = 'value';
        pos++;
        continue;
      }
      if (top.state === 'next') {
        if (ch === ',') {
          top.state = top.kind === 'object' ? 'key' : 'value';
          pos++;
          continue;
        }
        if (ch !== (top.kind === 'object' ? '}' : ']')) throw new JsonSyntaxError();
        stack.pop();
        pos++;
        valueDone();
        continue;
      }
      // A value: an array's next member (or its end, first), or an object's value.
      if (top.kind === 'array' && top.state === 'first' && ch === ']') {
        stack.pop();
        pos++;
        valueDone();
        continue;
      }
      startValue([...top.path, top.kind === 'object' ? top.key : '*'], top.list);
    }
  };

  for await (let chunk of chunks) {
    if (first && chunk !== '') {
      first = false;
      if (chunk.charCodeAt(0) === 0xfeff) chunk = chunk.slice(1);
    }
    buf = buf.length === 0 ? chunk : buf + chunk;
    advance(false);
    if (out.length > 0) {
      yield* out;
      out.length = 0;
    }
  }
  advance(true);
  if (capture || stack.length > 0 || open || documents === 0) throw new JsonSyntaxError();
  yield* out;
  if (shapeless !== null) throw new JsonShapeError(shapeless);
}
