/**
 * One automaton over several ordered tables of lower-case ASCII tokens
 * (docs/analytics.md#user-agent-families): fed one character at a time, it
 * tells, for each table, the earliest row whose token ends at the character
 * just read. Keeping the smallest row seen over a whole input answers "which
 * row of the table is the first one whose token occurs anywhere" — what
 * testing the rows in order with `includes` answers — in one read of the
 * input, however many tokens the tables hold.
 *
 * It is an Aho–Corasick automaton with every transition precomputed (a DFA):
 * a step is one array read, with no failure links to follow at match time, so
 * no input can make one character cost more than another.
 */

/** The row a state reports for a table when no token of that table ends there. */
export const NO_ROW = 0xffff;

export interface TokenAutomaton {
  /** The state every scan starts in, and the one any character outside the tokens' alphabet returns to. */
  readonly start: number;
  /** The state after reading UTF-16 code unit `unit` (already lower-case) in `state`. */
  step(state: number, unit: number): number;
  /** The earliest row of table `table` whose token ends in `state`, or NO_ROW. */
  row(state: number, table: number): number;
}

/** Builds the automaton once; `tables[t][r]` is the token of row r of table t. */
export function buildTokenAutomaton(tables: ReadonlyArray<ReadonlyArray<string>>): TokenAutomaton {
  // The alphabet: every character some token uses gets a symbol; symbol 0 is "anything else".
  const symbolOf = new Uint8Array(128);
  let symbols = 1;
  for (const table of tables) {
    for (const token of table) {
      if (token.length === 0) throw new Error('empty token');
      for (let i = 0; i < token.length; i++) {
        const c = token.charCodeAt(i);
        if (c >= 128 || token[i] !== token[i]!.toLowerCase()) throw new Error(`token ${JSON.stringify(token)} is not lower-case ASCII`);
        if (symbolOf[c] === 0) symbolOf[c] = symbols++;
      }
    }
  }

  // The trie: children[state * symbols + symbol], 0 = no child (state 0 is the root, never a child).
  const children: number[] = [];
  const ownRows: number[][] = [];
  const addState = () => {
    for (let s = 0; s < symbols; s++) children.push(0);
    ownRows.push(tables.map(() => NO_ROW));
    return ownRows.length - 1;
  };
  addState();
  tables.forEach((table, t) => {
    table.forEach((token, r) => {
      let state = 0;
      for (let i = 0; i < token.length; i++) {
        const at = state * symbols + symbolOf[token.charCodeAt(i)]!;
        if (children[at] === 0) children[at] = addState();
        state = children[at]!;
      }
      const rows = ownRows[state]!;
      rows[t] = Math.min(rows[t]!, r);
    });
  });

  // Breadth first: each state's failure state (its longest proper suffix that is a trie state)
  // lies nearer the root, so its transitions and rows are final when the state is reached.
  const states = ownRows.length;
  const next = new Uint16Array(states * symbols);
  const rows = new Uint16Array(states * tables.length);
  const fail = new Uint32Array(states);
  const queue: number[] = [0];
  for (let head = 0; head < queue.length; head++) {
    const state = queue[head]!;
    for (let t = 0; t < tables.length; t++) {
      const inherited = state === 0 ? NO_ROW : rows[fail[state]! * tables.length + t]!;
      rows[state * tables.length + t] = Math.min(ownRows[state]![t]!, inherited);
    }
    for (let s = 0; s < symbols; s++) {
      const child = children[state * symbols + s]!;
      const viaFailure = state === 0 ? 0 : next[fail[state]! * symbols + s]!;
      if (s !== 0 && child !== 0) {
        fail[child] = viaFailure;
        next[state * symbols + s] = child;
        queue.push(child);
      } else {
        next[state * symbols + s] = viaFailure;
      }
    }
  }

  const tableCount = tables.length;
  return {
    start: 0,
    step: (state, unit) => next[state * symbols + (unit < 128 ? symbolOf[unit]! : 0)]!,
    row: (state, table) => rows[state * tableCount + table]!,
  };
}
