import { defineHandlers } from '../handler.js';

export const eventHandlers = defineHandlers({});
