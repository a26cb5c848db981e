import type { Command } from 'commander';
import { register as init } from './init.js';
import { register as serve } from './serve.js';
import { register as whoami } from './whoami.js';
import { register as agents } from './agents.js';
import { register as keys } from './keys.js';
import { register as api } from './api.js';
import { register as completion } from './completion.js';
import { register as send } from './send.js';
import { register as messages } from './messages.js';
import { register as inbox } from './inbox.js';
import { register as inbound } from './inbound.js';
import { register as wait } from './wait.js';
import { register as appeal } from './appeal.js';
import { register as events } from './events.js';
import { register as webhooks } from './webhooks.js';
import { register as admin } from './admin.js';
import { register as classify } from './classify.js';
import { register as drafts } from './drafts.js';
import { register as threads } from './threads.js';
import { register as labels } from './labels.js';
import { register as suppression } from './suppression.js';
import { register as domains } from './domains.js';
import { register as reputation } from './reputation.js';
import { register as usage } from './usage.js';
import { register as logs } from './logs.js';
import { register as mcp } from './mcp.js';
import { register as ui } from './ui.js';
import { register as backup } from './backup.js';
import { register as doctor } from './doctor.js';
import { register as health } from './health.js';

export type Register = (program: Command) => void;

/** Top-level nouns, in --help order. Add yours with one import line and one entry (see ../README.md). */
export const nouns: Register[] = [
  init,
  serve,
  whoami,
  ui,
  agents,
  keys,
  send,
  messages,
  inbox,
  inbound,
  wait,
  appeal,
  classify,
  events,
  webhooks,
  drafts,
  threads,
  labels,
  suppression,
  domains,
  reputation,
  usage,
  logs,
  mcp,
  api,
  admin,
  backup,
  doctor,
  health,
  completion,
];
