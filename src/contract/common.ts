import { Type, type TSchema, type Static } from 'typebox';

export const SCOPES = ['send', 'read', 'manage', 'draft'] as const;
export type Scope = (typeof SCOPES)[number];
export const MODES = ['live', 'test'] as const;
export type Mode = (typeof MODES)[number];

export const Nullable = <T extends TSchema>(s: T) => Type.Union([s, Type.Null()]);
export const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601 UTC timestamp' });
export const StringMap = Type.Record(Type.String(), Type.String());

/**
 * Human text that ends up in mail headers and terminal tables (display names, key names): no
 * control characters, so no CR/LF header injection and no terminal escape sequences.
 */
export const NO_CONTROL_CHARS = '^[^\\u0000-\\u001f\\u007f]*$';

/** Shared list conventions: limit 1..100 (default 25), opaque cursor. */
export const ListQuery = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 25 })),
  cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 512 })),
};
/** The `q` search of the message and thread lists (syntax: docs/web.md#search). */
export const SearchQuery = Type.Optional(Type.String({
  maxLength: 500,
  description: 'Search: words, "phrases", -exclusions and the filters from:, to:, subject:, has:attachment, is:quarantined, is:unread, is:read, intent:, before:, after: (docs/web.md#search).',
}));

export const ListQuerySchema = Type.Object(ListQuery, { additionalProperties: false });
export type ListQuery = Static<typeof ListQuerySchema>;

export const Page = <T extends TSchema>(item: T) =>
  Type.Object({
    data: Type.Array(item),
    has_more: Type.Boolean(),
    next_cursor: Type.Optional(Type.String()),
  });
export interface PageOf<T> {
  data: T[];
  has_more: boolean;
  next_cursor?: string;
}

export const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 200 }) });
export type IdParams = Static<typeof IdParams>;

/** Empty object body (clients send `{}` or nothing with Content-Type: application/json). */
export const EmptyBody = Type.Object({}, { additionalProperties: true });

export const Deleted = Type.Object({ id: Type.String(), deleted_at: Timestamp });
