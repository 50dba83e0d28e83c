// The optional model (DESIGN §9): an OpenAI-compatible chat completions endpoint named by SIGHTLINE_LLM_URL. It may
// add wording and reach, never replace the grounded result; without the setting nothing calls out.

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface LlmClient {
  /** The model's reply text, or null when it failed or timed out (callers then keep the grounded answer). */
  complete(messages: ChatMessage[], opts?: { maxTokens?: number }): Promise<string | null>;
}
