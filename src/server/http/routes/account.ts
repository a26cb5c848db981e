import { defineHandlers } from '../handler.js';

export const accountHandlers = defineHandlers({});
