import { Type, type Static } from 'typebox';
import { EmptyBody, Timestamp } from './common.js';
import { route, type RouteDef } from './route.js';

/** A one-time link that signs a browser in to the web inbox as the key that asked for it. */
export const WebSignInLink = Type.Object({
  object: Type.Literal('web_sign_in_link'),
  url: Type.String(),
  expires_at: Timestamp,
});
export type WebSignInLink = Static<typeof WebSignInLink>;

export const webRoutes = {
  'web.link': route({
    method: 'POST', path: '/web/sign-in-links', scope: null,
    summary: 'Create a one-time link to the web inbox acting as this key (valid 10 minutes, one use)',
    body: EmptyBody, status: 201, response: WebSignInLink,
  }),
} satisfies Record<string, RouteDef>;
