import { defineHandlers } from '../handler.js';
import { getReputation } from '../../../services/reputation.js';
import { billingPortal, getMetrics, getUsage } from '../../../services/usage.js';
import { listLogsPage } from '../../../services/request-log.js';

export const accountHandlers = defineHandlers({
  'reputation.get': async ({ ctx, auth, query }) => getReputation(ctx, auth, query),
  'billing.usage': async ({ ctx, auth }) => getUsage(ctx, auth),
  'billing.portal': async ({ ctx, auth, body }) => billingPortal(ctx, body, auth),
  'metrics.get': async ({ ctx, auth, query }) => getMetrics(ctx, auth, query),
  'logs.list': async ({ ctx, auth, query }) => listLogsPage(ctx, auth, query),
});
