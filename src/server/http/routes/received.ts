import { defineHandlers } from '../handler.js';

export const receivedHandlers = defineHandlers({});
