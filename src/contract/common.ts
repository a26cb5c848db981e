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
 * control characters, so no CR/LF header injection and no terminal escape sequences — C0, DEL and
 * C1 (U+0080–U+009F: U+009B is a one-byte CSI to some terminals) — and no bidi embedding, override
 * or isolate controls (U+202A–U+202E, U+2066–U+2069), which reorder what a recipient's mail client
 * shows ("Support \u202Eevil" displays as "Support live"). Marks such as U+200E/U+200F stay allowed.
 */
export const NO_CONTROL_CHARS = '^[^\\u0000-\\u001f\\u007f-\\u009f\\u202a-\\u202e\\u2066-\\u2069]*$';

/**
 * What to tell a client whose value a schema refused, completing "The field `x` …" (e.g. "is not
 * base64"), where the validator's own wording would quote a pattern (shared/schema-check.ts).
 * A symbol key: JSON Schema validators in strict mode (the MCP SDK's) refuse unknown keywords,
 * and the published OpenAPI/MCP schemas leave it out.
 */
export const ERROR_MESSAGE = Symbol.for('mailagent.errorMessage');

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

/**
 * The optional-field rule (docs/api-foundation.md → "Absent fields"): a field with no value is
 * left out of the response, never `null` — the hosted clients type such fields `T | undefined`.
 * `null` appears only where the spec shows it (API key `agent_id`/`last_used_at`/`expires_at`/
 * `revoked_at`, webhook `description`/`secret_rotated_at`/`previous_secret_expires_at`, `/v1/me`
 * `agent`, the error envelope), and those fields use `Nullable`.
 *
 * The published schema says "optional, never null"; the TypeScript type also admits `null` so
 * services can hand a database NULL straight through — `omitAbsent` (applied once, by the HTTP
 * serialiser and when an event is written) drops it.
 */
export const Opt = <T extends TSchema>(s: T) => Type.Optional(Type.Unsafe<Static<T> | null>(s));

function acceptsNull(s: unknown): boolean {
  if (!s || typeof s !== 'object') return true; // no schema: leave the value alone
  const o = s as Record<string, unknown>;
  if (o.type === 'null' || (Array.isArray(o.type) && o.type.includes('null'))) return true;
  const alts = (o.anyOf ?? o.oneOf) as unknown[] | undefined;
  if (alts) return alts.some(acceptsNull);
  if (o.allOf) return (o.allOf as unknown[]).every(acceptsNull);
  // Unknown / any: everything is allowed.
  return !('type' in o) && !('properties' in o) && !('enum' in o) && !('const' in o) && !('format' in o);
}

/**
 * Drop `null` from every object property whose schema does not accept null (recursively through
 * objects, arrays, records and unions). Returns the same value, changed in place.
 *
 * Every response and every event passes here, so each schema is turned once into a walker (kept
 * per schema object): its properties, which of them accept null, and the walkers of its parts are
 * worked out at the first call instead of on every value (issue #13, the API hot path).
 */
export function omitAbsent<V>(schema: TSchema | null | undefined, value: V): V {
  if (value !== null && typeof value === 'object') walkerOf(schema)(value);
  return value;
}

type Walker = (v: unknown) => void;
const NOOP: Walker = () => {};
const walkers = new WeakMap<object, Walker>();

function walkerOf(s: unknown): Walker {
  if (!s || typeof s !== 'object') return NOOP;
  const known = walkers.get(s);
  if (known) return known;
  // A schema that contains itself meets this stand-in while its walker is being built.
  let built: Walker = NOOP;
  walkers.set(s, (v) => built(v));
  built = buildWalker(s as Record<string, unknown>);
  walkers.set(s, built);
  return built;
}

/** What the walk of one schema does to a value (the rule above); values that are not objects are left alone. */
function buildWalker(o: Record<string, unknown>): Walker {
  const alts = (o.anyOf ?? o.oneOf ?? o.allOf) as unknown[] | undefined;
  if (alts) {
    // A union of object shapes (batch items, the 200-or-error items): apply the variants this value matches by their keys.
    const each = alts.map(walkerOf).filter((w) => w !== NOOP);
    if (!each.length) return NOOP;
    return (v) => {
      if (v === null || typeof v !== 'object') return;
      for (const w of each) w(v);
    };
  }
  const items = o.items ? walkerOf(o.items) : NOOP;
  const props = o.properties as Record<string, unknown> | undefined;
  // A property whose schema accepts null and has nothing inside to walk is never changed: skipped.
  const keys: string[] = [];
  const keepNull: boolean[] = [];
  const inner: Walker[] = [];
  for (const k of props ? Object.keys(props) : []) {
    const nullOk = acceptsNull(props![k]);
    const w = walkerOf(props![k]);
    if (nullOk && w === NOOP) continue;
    keys.push(k);
    keepNull.push(nullOk);
    inner.push(w);
  }
  const pattern = o.patternProperties as Record<string, unknown> | undefined;
  const extraSchema = pattern ? Object.values(pattern)[0] : (typeof o.additionalProperties === 'object' ? o.additionalProperties : undefined);
  const extra = extraSchema ? walkerOf(extraSchema) : NOOP;
  if (!keys.length && items === NOOP && extra === NOOP) return NOOP;
  return (v) => {
    if (v === null || typeof v !== 'object') return;
    if (Array.isArray(v)) {
      if (items !== NOOP) for (const item of v) items(item);
      return;
    }
    const rec = v as Record<string, unknown>;
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i];
      if (!(k in rec)) continue;
      const x = rec[k];
      if (x === null) {
        if (!keepNull[i]) delete rec[k];
      } else if (typeof x === 'object') inner[i](x);
    }
    if (extra !== NOOP) for (const k of Object.keys(rec)) if (!props || !(k in props)) extra(rec[k]);
  };
}
