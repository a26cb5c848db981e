import { defineHandlers } from '../handler.js';

export const suppressionHandlers = defineHandlers({});
