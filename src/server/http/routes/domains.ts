import { defineHandlers } from '../handler.js';
import { addDomain, getDomainView, listDomainsPage, removeDomain, verifyDomain } from '../../../services/domains.js';

export const domainHandlers = defineHandlers({
  'domains.create': async ({ ctx, auth, body }) => addDomain(ctx, auth, body),
  'domains.list': async ({ ctx, auth, query }) => listDomainsPage(ctx, auth, query),
  'domains.get': async ({ ctx, auth, params }) => getDomainView(ctx, auth, params.id),
  'domains.verify': async ({ ctx, auth, params }) => verifyDomain(ctx, auth, params.id),
  'domains.delete': async ({ ctx, auth, params }) => removeDomain(ctx, auth, params.id),
});
