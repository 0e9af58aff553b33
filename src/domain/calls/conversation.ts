import { MAX_CALL_DURATION_MS } from './rules';

/**
 * Conversation calls (`POST /api/v1/calls/conversation`): the service holds the conversation
 * itself, as on a hosted line, with a system prompt built from the caller-supplied topic. Pure:
 * the API builds the prompt once and the call record shows exactly what was used.
 */

/** Longest topic accepted (it becomes part of the system prompt). */
export const MAX_TOPIC_LENGTH = 2_000;
/** `max_duration_seconds` range: at least 10 s, at most the platform's 15-minute cap. */
export const MIN_CONVERSATION_SECONDS = 10;
export const MAX_CONVERSATION_SECONDS = MAX_CALL_DURATION_MS / 1000;

export function conversationSystemPrompt(topic: string): string {
  return [
    'You are a courteous voice agent on a phone call you placed.',
    `The purpose of the call: ${topic.trim()}`,
    'Speak naturally and briefly: one or two short sentences per turn, no lists, no markdown, no emoji.',
    'Stay on the purpose of the call. Reply in the language the other person speaks.',
    'If they ask not to be called again, apologise, confirm that you will not call again, and say goodbye.',
    'When the purpose is accomplished or they want to end the call, thank them and say goodbye.',
  ].join('\n');
}

/** The greeting when the request gives none. */
export function conversationBeginMessage(topic: string): string {
  const subject = topic.trim().replace(/[.!?…]+$/u, '');
  return `Hello! I'm an automated assistant calling about ${subject.length > 120 ? `${subject.slice(0, 117)}...` : subject}. Do you have a moment?`;
}
