import type { InboundInput, SenderHistory } from '../../../src/classifier/index.js';

export const NOW = new Date('2025-03-10T12:00:00Z'); // a Monday

export const STRANGER: SenderHistory = { messagesFromSender: 0, messagesFromDomain: 0, repliesFromSender: 0, sendsToSender: 0, spfPass: true, dkimPass: true, suppressed: false, complaints: 0 };

export function inbound(p: Partial<InboundInput> & { text: string }): InboundInput {
  return { from: 'someone@example.com', subject: '', classifyIntent: true, history: STRANGER, ...p };
}
