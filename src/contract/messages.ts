import type { RouteDef } from './route.js';

export const messageRoutes = {} satisfies Record<string, RouteDef>;
