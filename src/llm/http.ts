import { fetch, type Dispatcher } from 'undici';
import { LlmError } from './types.js';

/**
 * The HTTP leg of every provider call: one JSON POST to the operator's
 * configured endpoint. That endpoint is trusted configuration, so it does not
 * go through the destination SSRF guard (docs/agents.md#llm-suggestions);
 * what comes back is still bounded — a reply is read to 1 MiB at most and a
 * request never outlives the 30 s cap or the caller's deadline.
 */

/** Any single provider request, whatever the caller's deadline (docs/agents.md#providers). */
export const PROVIDER_REQUEST_CAP_MS = 30_000;
/** A chat reply for `max_tokens: 256` is a few KB; anything near this is not an answer. */
export const REPLY_MAX_BYTES = 1024 * 1024;

export interface ProviderRequestOptions {
  /** The caller's deadline (the 15 s per suggestion). */
  signal: AbortSignal;
  /** Where connections go; the process-wide dispatcher when absent. */
  dispatcher?: Dispatcher;
}

export interface ProviderReply {
  status: number;
  text: string;
}

async function readCapped(body: ReadableStream<Uint8Array> | null): Promise<string> {
  if (!body) return '';
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      bytes += value.byteLength;
      if (bytes > REPLY_MAX_BYTES) throw new LlmError(`provider reply exceeds ${REPLY_MAX_BYTES} bytes`);
      chunks.push(value);
    }
  } finally {
    // Stops the transfer of whatever is left instead of draining it.
    await reader.cancel().catch(() => {});
  }
  return Buffer.concat(chunks).toString('utf8');
}

export async function postJson(
  url: string,
  headers: Record<string, string>,
  body: unknown,
  opts: ProviderRequestOptions,
): Promise<ProviderReply> {
  const cap = AbortSignal.timeout(PROVIDER_REQUEST_CAP_MS);
  const signal = AbortSignal.any([opts.signal, cap]);
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers,
      body: JSON.stringify(body),
      signal,
      redirect: 'error',
      ...(opts.dispatcher ? { dispatcher: opts.dispatcher } : {}),
    });
    return { status: res.status, text: await readCapped(res.body as ReadableStream<Uint8Array> | null) };
  } catch (e) {
    if (e instanceof LlmError) throw e;
    if (signal.aborted) throw new LlmError('provider request timed out', { cause: e });
    throw new LlmError(`provider request failed: ${(e as Error).message}`, { cause: e });
  }
}

/** A 200 reply's body as JSON, or an LlmError carrying the raw text. */
export function replyJson(reply: ProviderReply): unknown {
  if (reply.status !== 200) throw new LlmError(`provider answered HTTP ${reply.status}`, { reply: reply.text });
  try {
    return JSON.parse(reply.text) as unknown;
  } catch (cause) {
    throw new LlmError('provider reply is not JSON', { cause, reply: reply.text });
  }
}
