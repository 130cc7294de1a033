import type { LlmProvider } from '../config.js';
import { postJson, replyJson } from './http.js';
import type { ChatSuggesterOptions } from './openai.js';
import { renderPrompt } from './prompt.js';
import { suggestionFromReply } from './reply.js';
import { LlmError, type LinkSuggestion, type Suggester, type SuggestInput } from './types.js';

export const ANTHROPIC_MESSAGES_URL = 'https://api.anthropic.com/v1/messages';
export const ANTHROPIC_VERSION = '2023-06-01';

/** Anthropic's Messages API (docs/agents.md#providers); the endpoint is fixed, only key and model are configured. */
export class AnthropicSuggester implements Suggester {
  readonly provider: LlmProvider = 'anthropic';
  readonly model: string;
  readonly endpoint = ANTHROPIC_MESSAGES_URL;

  constructor(private readonly opts: Omit<ChatSuggesterOptions, 'provider'>) {
    this.model = opts.model;
  }

  async suggest(input: SuggestInput): Promise<LinkSuggestion> {
    const reply = await postJson(
      this.endpoint,
      { 'content-type': 'application/json', 'x-api-key': this.opts.apiKey, 'anthropic-version': ANTHROPIC_VERSION },
      { model: this.model, max_tokens: 256, messages: [{ role: 'user', content: renderPrompt(this.opts.prompt, input) }] },
      { signal: AbortSignal.timeout(this.opts.deadlineMs), dispatcher: this.opts.dispatcher },
    );
    const json = replyJson(reply) as { content?: Array<{ text?: unknown }> } | null;
    const text = Array.isArray(json?.content) ? json.content[0]?.text : undefined;
    if (typeof text !== 'string' || text.trim() === '') throw new LlmError('provider reply has no text content', { reply: reply.text });
    return suggestionFromReply(text);
  }
}
