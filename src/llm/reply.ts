import { DESCRIPTION_MAX, TITLE_MAX } from '../domain/linkInput.js';
import { slugError } from '../domain/slug.js';
import { MAX_TAGS_PER_LINK, normalizeTags } from '../domain/tags.js';
import { codePointLength } from '../domain/text.js';
import { LlmError, type LinkSuggestion } from './types.js';

/**
 * Reading and sanitising what a model said
 * (docs/agents.md#providers, docs/agents.md#sanitising-suggestions). The model is an untrusted author: its slug must pass the
 * same slug rules as a link write (reserved slugs included) or becomes `""`;
 * a title or description over the link limits becomes `""`; tags keep only
 * names the tag rules accept, at most as many as a link may carry. Nothing
 * is unescaped or rendered here — markup stays text, and the JSON response
 * and the extension's text nodes keep it text.
 */

export const REPLY_LOG_BYTES = 2048;

/** The first 2048 bytes of a raw reply for the log, marked when cut. */
export function clipForLog(text: string): string {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= REPLY_LOG_BYTES) return text;
  return `${bytes.subarray(0, REPLY_LOG_BYTES).toString('utf8')}...(truncated)`;
}

/** Models like to wrap JSON in a Markdown fence; the fence is not part of the answer. */
const FENCE = /^```[a-zA-Z]*\s*\n([\s\S]*?)\n?```$/;

/** The reply text as a JSON object, or an LlmError carrying the text. */
export function parseReplyObject(text: string): Record<string, unknown> {
  const trimmed = text.trim();
  const unfenced = FENCE.exec(trimmed)?.[1] ?? trimmed;
  let value: unknown;
  try {
    value = JSON.parse(unfenced);
  } catch (cause) {
    throw new LlmError('model reply is not JSON', { cause, reply: text });
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new LlmError('model reply is not a JSON object', { reply: text });
  }
  return value as Record<string, unknown>;
}

function text(value: unknown): string {
  return typeof value === 'string' ? value.trim() : '';
}

function withinLimit(value: unknown, max: number): string {
  const t = text(value);
  return codePointLength(t) > max ? '' : t;
}

function validSlug(value: unknown): string {
  const s = text(value);
  return s !== '' && slugError(s) === null ? s : '';
}

/** Tags the tag rules accept, de-duplicated by tag slug, first spelling kept, at most 20. */
function validTags(value: unknown): string[] {
  if (!Array.isArray(value)) return [];
  const out: string[] = [];
  for (const item of value) {
    if (out.length === MAX_TAGS_PER_LINK) break;
    if (typeof item !== 'string') continue;
    try {
      const [tag] = normalizeTags([...out, item]).slice(out.length);
      if (tag) out.push(tag.name);
    } catch {
      // A name the tag rules refuse is dropped; the rest of the suggestion stands.
    }
  }
  return out;
}

export function sanitizeSuggestion(raw: Record<string, unknown>): LinkSuggestion {
  return {
    slug: validSlug(raw.slug),
    title: withinLimit(raw.title, TITLE_MAX),
    description: withinLimit(raw.description, DESCRIPTION_MAX),
    tags: validTags(raw.tags),
  };
}

/** Reply text → sanitised suggestion; unparseable text is an LlmError carrying it. */
export function suggestionFromReply(replyText: string): LinkSuggestion {
  return sanitizeSuggestion(parseReplyObject(replyText));
}
