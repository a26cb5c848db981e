import { defineHandlers } from '../handler.js';
import { classifyRequest } from '../../../services/classify.js';

export const classifyHandlers = defineHandlers({
  'classify.create': async ({ ctx, auth, body }) => classifyRequest(ctx, auth, body),
});
