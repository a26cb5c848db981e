export * from './errors.js';
export * from './common.js';
export * from './route.js';
export * from './routes.js';
export * from './agents.js';
export * from './api-keys.js';
export * from './me.js';
export * from './events.js';
