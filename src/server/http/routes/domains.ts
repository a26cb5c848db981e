import { defineHandlers } from '../handler.js';

export const domainHandlers = defineHandlers({});
