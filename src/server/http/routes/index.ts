import { meHandlers } from './health.js';
import { agentHandlers } from './agents.js';
import { apiKeyHandlers } from './api-keys.js';
import { messageHandlers } from './messages.js';
import { receivedHandlers } from './received.js';
import { classifyHandlers } from './classify.js';
import { eventHandlers } from './events.js';
import { webhookHandlers } from './webhooks.js';
import { draftHandlers } from './drafts.js';
import { threadHandlers } from './threads.js';
import { suppressionHandlers } from './suppression.js';
import { domainHandlers } from './domains.js';
import { accountHandlers } from './account.js';
import { publicHandlers } from './public.js';
import { oauthHandlers } from './oauth.js';
import { webHandlers } from './web.js';

/** One handler per route id; buildApp refuses to start if a route in the table has none. */
export const allHandlers = {
  ...meHandlers,
  ...agentHandlers,
  ...apiKeyHandlers,
  ...messageHandlers,
  ...receivedHandlers,
  ...classifyHandlers,
  ...eventHandlers,
  ...webhookHandlers,
  ...draftHandlers,
  ...threadHandlers,
  ...suppressionHandlers,
  ...domainHandlers,
  ...accountHandlers,
  ...publicHandlers,
  ...oauthHandlers,
  ...webHandlers,
};
