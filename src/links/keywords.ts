import { validateKeyword, type KeywordInput } from '../domain/keywords.js';
import { refuseNul } from '../domain/nul.js';
import type { Store } from '../store/index.js';
import type { Keyword } from '../store/types.js';
import { isUuid } from './access.js';
import { requireAdministrator, type Actor } from './actor.js';

/**
 * Root-forward keywords (docs/links.md#keywords): the one place they are
 * listed, added and removed, for the web admin, REST and MCP alike. The
 * rules are the domain's (domain/keywords.ts); the resolver reads the
 * templates straight from the store on its hot path.
 */
export class KeywordService {
  constructor(private readonly store: Pick<Store, 'keywords'>) {}

  /** Every keyword, by name. */
  list(): Promise<Keyword[]> {
    return this.store.keywords.list();
  }

  /** A new keyword, effective at once; BAD_REQUEST naming the field for a bad or taken name or template. */
  async create(actor: Actor, input: KeywordInput): Promise<Keyword> {
    requireAdministrator(actor, 'only an admin may manage keywords');
    refuseNul([
      ['keyword', input.keyword],
      ['url_template', input.urlTemplate],
      ['description', input.description],
    ]);
    return this.store.keywords.create(validateKeyword(input));
  }

  /** Whether a keyword with that id existed and is gone now. */
  async delete(actor: Actor, id: string): Promise<boolean> {
    requireAdministrator(actor, 'only an admin may manage keywords');
    return isUuid(id) && (await this.store.keywords.delete(id));
  }
}
