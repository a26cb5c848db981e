import { Type } from 'typebox';

/**
 * A list tool's result is read by a model whole: 30 received messages with 1 MB of
 * `extracted_text` each made a 2.5 MB answer (spec: list responses give excerpts only). List
 * tools therefore answer with summaries: every string in an item is cut to ITEM_STRING_CAP
 * characters and every array to ITEM_ARRAY_CAP elements (`excerpted: true` says so; the get tool
 * of the item has it whole), and a page is at most RESULT_CAP bytes of JSON: a page that would be
 * larger is asked again with a smaller `limit`, so `next_cursor` still continues right after the
 * last item returned.
 */
export const ITEM_STRING_CAP = 1000;
export const ITEM_ARRAY_CAP = 50;
export const RESULT_CAP = 256 * 1024;

export const EXCERPTED = {
  excerpted: Type.Optional(Type.Boolean({
    description: 'true when a long field of this list item (text, subject, address list, entities) was cut to keep the list small; read the item in full with its get tool (e.g. mails.get_received).',
  })),
};

function cut(v: unknown, flag: { cut: boolean }): unknown {
  if (typeof v === 'string') {
    if (v.length <= ITEM_STRING_CAP) return v;
    flag.cut = true;
    return v.slice(0, ITEM_STRING_CAP) + '…';
  }
  if (Array.isArray(v)) {
    if (v.length > ITEM_ARRAY_CAP) flag.cut = true;
    return v.slice(0, ITEM_ARRAY_CAP).map((x) => cut(x, flag));
  }
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, cut(x, flag)]));
  return v;
}

/** One list item as a summary: long strings and arrays cut, `excerpted: true` when anything was. */
export function excerptItem<T extends object>(item: T): T & { excerpted?: boolean } {
  const flag = { cut: false };
  const out = cut(item, flag) as T & { excerpted?: boolean };
  if (flag.cut) out.excerpted = true;
  return out;
}

type Page<T> = { data: T[]; has_more: boolean; next_cursor?: string | null };

/**
 * Fetch a page (`fetch(limit)`), make each item a summary (`shape`), and keep the result under
 * RESULT_CAP: when it is over, fetch again with the number of items that fit (at least one) so
 * the API's own cursor points after the last item returned.
 */
export async function cappedPage<T, U extends object>(
  fetch: (limit: number | undefined) => Promise<Page<T>>, limit: number | undefined, shape: (item: T) => U,
): Promise<Page<U & { excerpted?: boolean }>> {
  let page = await fetch(limit);
  let data = page.data.map((x) => excerptItem(shape(x)));
  if (Buffer.byteLength(JSON.stringify(data)) > RESULT_CAP) {
    let fit = 0;
    let total = 2;
    for (const d of data) {
      total += Buffer.byteLength(JSON.stringify(d)) + 1;
      if (total > RESULT_CAP) break;
      fit++;
    }
    page = await fetch(Math.max(1, fit));
    data = page.data.map((x) => excerptItem(shape(x)));
  }
  return { ...page, data };
}
