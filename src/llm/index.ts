import type { Dispatcher } from 'undici';
import type { Config } from '../config.js';
import { AppError } from '../domain/errors.js';
import { GuardedClient } from '../net/guardedClient.js';
import { APP_VERSION } from '../version.js';
import { AnthropicSuggester } from './anthropic.js';
import { CONTEXT_TIMEOUT_MS, EMPTY_CONTEXT, fetchPageContext, type PageContext } from './context.js';
import { OpenAiSuggester } from './openai.js';
import { DEFAULT_PROMPT } from './prompt.js';
import { clipForLog } from './reply.js';
import { LlmError, type LinkSuggestion, type Suggester } from './types.js';

export type { LinkSuggestion, Suggester, SuggestInput } from './types.js';
export { LlmError } from './types.js';

/**
 * LLM link suggestions (docs/agents.md#llm-suggestions): the provider behind the
 * `Suggester` interface, page context through the guarded client, and the one
 * error both surfaces report. REST (`POST /api/v1/links/suggest`) and MCP
 * (`suggest_link_metadata`) call `LinkSuggestions.suggest`, so their output
 * is the same sanitised object.
 */

/** Each suggestion's deadline (docs/agents.md#providers), provider round trip included. */
export const SUGGESTION_DEADLINE_MS = 15_000;

export const LLM_ERROR_MESSAGE = 'LLM provider error';

export interface SuggesterOptions {
  deadlineMs?: number;
  /** Where provider connections go; the process-wide dispatcher when absent. */
  dispatcher?: Dispatcher;
}

/** The configured provider, or null when `JOE_LLM_PROVIDER` is unset (no client, no request ever). */
export function createSuggester(llm: Config['llm'], opts: SuggesterOptions = {}): Suggester | null {
  if (llm.provider === null) return null;
  const common = {
    apiKey: llm.apiKey,
    model: llm.model,
    prompt: llm.prompt !== '' ? llm.prompt : DEFAULT_PROMPT,
    deadlineMs: opts.deadlineMs ?? SUGGESTION_DEADLINE_MS,
    dispatcher: opts.dispatcher,
  };
  if (llm.provider === 'anthropic') return new AnthropicSuggester(common);
  return new OpenAiSuggester({ ...common, provider: llm.provider, baseUrl: llm.baseUrl });
}

interface Log {
  warn(obj: object, msg: string): void;
}

export interface SuggestRequest {
  url: string;
  title?: string;
  description?: string;
}

export class LinkSuggestions {
  constructor(
    readonly suggester: Suggester,
    private readonly pageContext: (url: string) => Promise<PageContext>,
    private readonly release: () => Promise<void> = async () => {},
  ) {}

  /**
   * Suggests metadata for `url`. A missing title or description is filled
   * from the page when it can be read; given values are kept. Any provider
   * failure becomes `LLM_ERROR`, after logging what the provider said.
   */
  async suggest(request: SuggestRequest, log: Log): Promise<LinkSuggestion> {
    let title = request.title?.trim() ?? '';
    let description = request.description?.trim() ?? '';
    if (title === '' || description === '') {
      const page = await this.pageContext(request.url).catch(() => EMPTY_CONTEXT);
      if (title === '') title = page.title;
      if (description === '') description = page.description;
    }
    try {
      return await this.suggester.suggest({ url: request.url, title, description });
    } catch (e) {
      const fields: Record<string, unknown> = { provider: this.suggester.provider, model: this.suggester.model, err: e };
      if (e instanceof LlmError && e.reply !== undefined) fields.reply = clipForLog(e.reply);
      log.warn(fields, 'link suggestion failed');
      throw new AppError('LLM_ERROR', LLM_ERROR_MESSAGE);
    }
  }

  async close(): Promise<void> {
    await this.release();
  }
}

export const CONTEXT_USER_AGENT = `joe-links/${APP_VERSION} (link suggestions)`;

/**
 * Suggestions as configured: null when no provider is set. Page context uses
 * its own guarded client under the health checker's address policy
 * (`JOE_HEALTH_CHECK_ALLOW_PRIVATE`).
 */
export function createLinkSuggestions(config: Pick<Config, 'llm' | 'healthChecks'>, opts: SuggesterOptions = {}): LinkSuggestions | null {
  const suggester = createSuggester(config.llm, opts);
  if (!suggester) return null;
  const client = new GuardedClient({ allowPrivate: config.healthChecks.allowPrivate, userAgent: CONTEXT_USER_AGENT }, CONTEXT_TIMEOUT_MS);
  return new LinkSuggestions(
    suggester,
    (url) => fetchPageContext(client, url),
    () => client.close(),
  );
}
