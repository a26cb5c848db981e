import { defineHandlers } from '../handler.js';

export const webhookHandlers = defineHandlers({});
