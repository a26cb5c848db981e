import { defineHandlers } from '../handler.js';

export const threadHandlers = defineHandlers({});
