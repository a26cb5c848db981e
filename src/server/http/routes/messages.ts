import { defineHandlers } from '../handler.js';

export const messageHandlers = defineHandlers({});
