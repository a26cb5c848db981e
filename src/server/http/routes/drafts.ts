import { defineHandlers } from '../handler.js';

export const draftHandlers = defineHandlers({});
