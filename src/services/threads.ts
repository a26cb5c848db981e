import { findRefThread, getThreadForUpdate, insertRef, insertThread, updateThread, type ThreadRow } from '../db/repos/threads.js';
import { newId } from '../shared/ids.js';
import { isoAt } from '../shared/clock.js';
import type { AppContext, Tx } from './context.js';
import { emitEvent, type EmitInput } from './events.js';

/** `Re: Re: Fwd: Hello` → `hello`, for grouping and for never writing `Re: Re:`. */
export function normalizeSubject(subject: string): string {
  return subject.replace(/^(\s*(re|fwd?|aw|wg|sv|vs|antw|tr|rv)(\[\d+\])?\s*:\s*)+/i, '').trim().toLowerCase();
}

/** `<abc@x>` → `abc@x` (Message-IDs are compared without angle brackets). */
export function bareMessageId(id: string): string {
  return id.trim().replace(/^<|>$/g, '').trim();
}

export interface ThreadAssignment {
  workspaceId: string;
  agentId: string;
  subject: string;
  direction: 'outbound' | 'inbound';
  messageId: string;
  /** This message's own RFC Message-ID (with or without brackets). */
  rfcMessageId: string | null;
  inReplyTo?: string | null;
  references?: string[];
  /** A thread the caller already knows (replies and forwards by API id). */
  threadId?: string | null;
  participants: string[];
  /**
   * Of `participants`, those that join an existing thread only if they are in it already (an
   * unauthenticated sender who was not a party: docs/inbound.md → Replies). A new thread takes them.
   */
  guests?: string[];
  testMode: boolean;
  at: number;
  /**
   * Leave thread.created / thread.updated to the caller (ThreadResult.event), to be emitted when
   * it emits its own events: on PostgreSQL event writers take turns until they commit
   * (db/repos/events.ts orderEventWrite), so the later a transaction writes its first event, the
   * shorter it holds the others up.
   */
  deferEvent?: boolean;
}

export interface ThreadResult {
  threadId: string;
  created: boolean;
  /** The message this one answers, when found by In-Reply-To/References. */
  answers: { message_id: string; direction: string } | null;
  /** deferEvent: the thread event, for the caller to emit (before its own events). */
  event: EmitInput | null;
  /** The thread's participants before this message (lower-cased); null for a new thread. */
  priorParticipants: string[] | null;
}

/**
 * Start or continue a thread (compat.md: Thread) and record the message's Message-ID so later
 * mail can thread on it. Emits thread.created / thread.updated in the caller's transaction.
 */
export async function assignThread(ctx: AppContext, tx: Tx, a: ThreadAssignment): Promise<ThreadResult> {
  const candidates = [a.inReplyTo ?? '', ...[...(a.references ?? [])].reverse()].map(bareMessageId).filter(Boolean);
  const hit = await findRefThread(tx.db, a.agentId, candidates);
  let thread: ThreadRow | undefined;
  const knownId = a.threadId ?? hit?.thread_id;
  if (knownId) {
    // Locked: its message count and participants are read, then written back (no lost update
    // when two messages of one thread are stored at once under READ COMMITTED: services/inbound.ts).
    thread = await getThreadForUpdate(tx.db, a.workspaceId, knownId);
    if (thread && (thread.deleted_at || thread.agent_id !== a.agentId)) thread = undefined;
  }
  const at = isoAt(a.at);
  const participants = [...new Set(a.participants.map((p) => p.toLowerCase()))];
  let created = false;
  let prior: string[] | null = null;
  if (!thread) {
    created = true;
    thread = {
      id: newId('thrd', ctx.clock),
      workspace_id: a.workspaceId,
      agent_id: a.agentId,
      subject: a.subject,
      normalized_subject: normalizeSubject(a.subject),
      status: 'open',
      labels: [],
      participants,
      message_count: 1,
      last_message_at: at,
      has_live: !a.testMode,
      trashed_at: null,
      deleted_at: null,
      created_at: at,
      updated_at: at,
    };
    await insertThread(tx.db, thread);
  } else {
    prior = thread.participants.map((p) => p.toLowerCase());
    const guests = new Set((a.guests ?? []).map((g) => g.toLowerCase()));
    const merged = [...new Set([...thread.participants, ...participants.filter((p) => !guests.has(p) || prior!.includes(p))])];
    thread = {
      ...thread,
      participants: merged,
      message_count: thread.message_count + 1,
      last_message_at: at > thread.last_message_at ? at : thread.last_message_at,
      has_live: thread.has_live || !a.testMode,
      // New mail brings a closed or trashed conversation back.
      status: thread.status === 'archived' || thread.status === 'closed' ? 'open' : thread.status,
      trashed_at: null,
      updated_at: at,
    };
    await updateThread(tx.db, thread.id, {
      participants: thread.participants, message_count: thread.message_count, last_message_at: thread.last_message_at,
      has_live: thread.has_live, status: thread.status, trashed_at: null, updated_at: at,
    });
  }
  if (a.rfcMessageId) {
    await insertRef(tx.db, {
      agent_id: a.agentId, rfc_message_id: bareMessageId(a.rfcMessageId), workspace_id: a.workspaceId,
      message_id: a.messageId, thread_id: thread.id, direction: a.direction, created_at: at,
    });
  }
  const event: EmitInput = {
    type: created ? 'thread.created' : 'thread.updated',
    workspaceId: a.workspaceId, agentId: a.agentId, threadId: thread.id, sourceMessageId: a.messageId,
    testMode: a.testMode,
    data: { thread_id: thread.id, subject: thread.subject, message_count: thread.message_count, last_message_at: thread.last_message_at, status: thread.status },
  };
  if (!a.deferEvent) await emitEvent(ctx, tx, event);
  return { threadId: thread.id, created, answers: hit ? { message_id: hit.message_id, direction: hit.direction } : null, event: a.deferEvent ? event : null, priorParticipants: prior };
}
