import { defineHandlers } from '../handler.js';
import { createAgent, listAgentsPage, getAgentByRef, updateAgentByRef, archiveAgentByRef } from '../../../services/agents.js';

export const agentHandlers = defineHandlers({
  'agents.create': async ({ ctx, auth, body }) => createAgent(ctx, auth, body),
  'agents.list': async ({ ctx, auth, query }) => listAgentsPage(ctx, auth, query),
  'agents.get': async ({ ctx, auth, params }) => getAgentByRef(ctx, auth, params.id),
  'agents.update': async ({ ctx, auth, params, body }) => updateAgentByRef(ctx, auth, params.id, body),
  'agents.archive': async ({ ctx, auth, params }) => archiveAgentByRef(ctx, auth, params.id),
});
