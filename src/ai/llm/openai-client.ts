// The model behind SIGHTLINE_LLM_URL (DESIGN §9): an OpenAI-compatible chat completions endpoint. Any failure — a
// refused connection, a non-2xx, a timeout, a reply without text — is null, and the caller keeps its grounded
// answer: the model may add wording and reach, never replace the result or fail a request.
import type { ChatMessage, LlmClient } from './llm-client.js';

export interface OpenAiClientOptions {
  /** The chat completions URL; a base URL (…/v1) gets `/chat/completions` appended. */
  url: string;
  model: string;
  apiKey?: string;
  timeoutMs: number;
  log: (line: string) => void;
}

const MAX_REPLY_CHARS = 16_384;

export function completionsUrl(url: string): string {
  const trimmed = url.replace(/\/+$/, '');
  return trimmed.endsWith('/chat/completions') ? trimmed : `${trimmed}/chat/completions`;
}

export class OpenAiClient implements LlmClient {
  private readonly url: string;

  constructor(private readonly opts: OpenAiClientOptions) {
    this.url = completionsUrl(opts.url);
  }

  async complete(messages: ChatMessage[], opts: { maxTokens?: number } = {}): Promise<string | null> {
    const headers: Record<string, string> = { 'Content-Type': 'application/json' };
    if (this.opts.apiKey) headers.Authorization = `Bearer ${this.opts.apiKey}`;
    // Deterministic as the endpoint allows: the answer is validated, and a retry should not wander.
    const body = JSON.stringify({ model: this.opts.model, messages, temperature: 0, max_tokens: opts.maxTokens ?? 512 });
    try {
      const res = await fetch(this.url, { method: 'POST', headers, body, signal: AbortSignal.timeout(this.opts.timeoutMs) });
      if (!res.ok) {
        this.opts.log(`llm: ${this.url} answered ${res.status}`);
        return null;
      }
      return replyText(await res.json());
    } catch (e) {
      this.opts.log(`llm: ${this.url} failed: ${e instanceof Error ? e.message : String(e)}`);
      return null;
    }
  }
}

/** `choices[0].message.content` of a chat completion, or null. */
export function replyText(json: unknown): string | null {
  if (typeof json !== 'object' || json === null) return null;
  const choices = (json as { choices?: unknown }).choices;
  if (!Array.isArray(choices) || choices.length === 0) return null;
  const first: unknown = choices[0];
  const message = typeof first === 'object' && first !== null ? (first as { message?: unknown }).message : undefined;
  const content = typeof message === 'object' && message !== null ? (message as { content?: unknown }).content : undefined;
  return typeof content === 'string' && content.trim() !== '' ? content.slice(0, MAX_REPLY_CHARS) : null;
}
