import type { LlmProvider } from '../config.js';

/** What a suggestion is asked about: the destination and whatever is known of the page. */
export interface SuggestInput {
  url: string;
  title: string;
  description: string;
}

/** Advisory link metadata (docs/agents.md#sanitising-suggestions): already sanitised, never persisted. */
export interface LinkSuggestion {
  /** A valid, unreserved slug, or `""` when the model's slug broke the slug rules. */
  slug: string;
  title: string;
  description: string;
  tags: string[];
}

/**
 * The one interface all provider traffic goes through (docs/agents.md#llm-suggestions). Each
 * implementation speaks one wire format over plain HTTP; none uses an SDK.
 */
export interface Suggester {
  readonly provider: LlmProvider;
  readonly model: string;
  suggest(input: SuggestInput): Promise<LinkSuggestion>;
}

/**
 * A provider failure: transport error, timeout, non-200 status, or a reply
 * that is not the expected JSON. `reply` holds the provider's text when there
 * was one, so the caller can log what the model actually said.
 */
export class LlmError extends Error {
  readonly reply: string | undefined;

  constructor(message: string, options: { cause?: unknown; reply?: string } = {}) {
    super(message, { cause: options.cause });
    this.name = 'LlmError';
    this.reply = options.reply;
  }
}
