import { defineHandlers } from '../handler.js';
import {
  createWebhook, listWebhooksPage, getWebhook, updateWebhook, deleteWebhook, testWebhook, rotateWebhookSecret,
  listWebhookDeliveries, getWebhookDelivery, replayDelivery,
} from '../../../services/webhooks.js';

export const webhookHandlers = defineHandlers({
  'webhooks.create': async ({ ctx, auth, body }) => createWebhook(ctx, auth, body),
  'webhooks.list': async ({ ctx, auth, query }) => listWebhooksPage(ctx, auth, query),
  'webhooks.get': async ({ ctx, auth, params }) => getWebhook(ctx, auth, params.id),
  'webhooks.update': async ({ ctx, auth, params, body }) => updateWebhook(ctx, auth, params.id, body),
  'webhooks.delete': async ({ ctx, auth, params }) => deleteWebhook(ctx, auth, params.id),
  'webhooks.test': async ({ ctx, auth, params }) => testWebhook(ctx, auth, params.id),
  'webhooks.rotate_secret': async ({ ctx, auth, params, body }) => rotateWebhookSecret(ctx, auth, params.id, body),
  'webhooks.deliveries': async ({ ctx, auth, params, query }) => listWebhookDeliveries(ctx, auth, params.id, query),
  'webhook_deliveries.get': async ({ ctx, auth, params }) => getWebhookDelivery(ctx, auth, params.id),
  'webhook_deliveries.replay': async ({ ctx, auth, params }) => replayDelivery(ctx, auth, params.id),
});
