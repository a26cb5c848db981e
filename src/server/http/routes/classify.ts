import { defineHandlers } from '../handler.js';

export const classifyHandlers = defineHandlers({});
