import type { Dispatcher } from 'undici';
import type { LlmProvider } from '../config.js';
import { postJson, replyJson } from './http.js';
import { renderPrompt } from './prompt.js';
import { suggestionFromReply } from './reply.js';
import { LlmError, type LinkSuggestion, type Suggester, type SuggestInput } from './types.js';

/** `{base}/v1/chat/completions`, without doubling a base that already ends in `/v1` (Ollama, vLLM, LM Studio). */
export function chatCompletionsUrl(baseUrl: string): string {
  const base = baseUrl.replace(/\/+$/, '');
  return base.endsWith('/v1') ? `${base}/chat/completions` : `${base}/v1/chat/completions`;
}

export interface ChatSuggesterOptions {
  provider: LlmProvider;
  apiKey: string;
  model: string;
  /** Prompt template with `{{.URL}}`, `{{.Title}}`, `{{.Description}}`. */
  prompt: string;
  deadlineMs: number;
  dispatcher?: Dispatcher;
}

/**
 * OpenAI chat completions, and every server that speaks the same wire format
 * (docs/agents.md#providers). Keyless local servers get no
 * `Authorization` header at all rather than an empty bearer.
 */
export class OpenAiSuggester implements Suggester {
  readonly provider: LlmProvider;
  readonly model: string;
  readonly endpoint: string;

  constructor(private readonly opts: ChatSuggesterOptions & { baseUrl: string }) {
    this.provider = opts.provider;
    this.model = opts.model;
    this.endpoint = chatCompletionsUrl(opts.baseUrl);
  }

  async suggest(input: SuggestInput): Promise<LinkSuggestion> {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (this.opts.apiKey !== '') headers.authorization = `Bearer ${this.opts.apiKey}`;
    const reply = await postJson(
      this.endpoint,
      headers,
      { model: this.model, max_tokens: 256, messages: [{ role: 'user', content: renderPrompt(this.opts.prompt, input) }] },
      { signal: AbortSignal.timeout(this.opts.deadlineMs), dispatcher: this.opts.dispatcher },
    );
    const json = replyJson(reply) as { choices?: Array<{ message?: { content?: unknown } }> } | null;
    const content = Array.isArray(json?.choices) ? json.choices[0]?.message?.content : undefined;
    if (typeof content !== 'string' || content.trim() === '')
      throw new LlmError('provider reply has no message content', { reply: reply.text });
    return suggestionFromReply(content);
  }
}
