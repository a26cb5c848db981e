import { defineHandlers } from '../handler.js';
import { deleteThreadForGood, getThreadView, listThreadsPage, restoreThread, trashThread, updateThreadView } from '../../../services/thread-views.js';
import { createLabel, deleteLabelByRef, listLabelsPage, renameLabelByRef } from '../../../services/labels.js';

export const threadHandlers = defineHandlers({
  'threads.list': async ({ ctx, auth, query }) => listThreadsPage(ctx, auth, query),
  'threads.get': async ({ ctx, auth, params }) => getThreadView(ctx, auth, params.id),
  'threads.update': async ({ ctx, auth, params, body }) => updateThreadView(ctx, auth, params.id, body),
  'threads.trash': async ({ ctx, auth, params }) => trashThread(ctx, auth, params.id),
  'threads.restore': async ({ ctx, auth, params }) => restoreThread(ctx, auth, params.id),
  'threads.delete': async ({ ctx, auth, params }) => deleteThreadForGood(ctx, auth, params.id),
  'labels.list': async ({ ctx, auth, query }) => listLabelsPage(ctx, auth, query),
  'labels.create': async ({ ctx, auth, body }) => createLabel(ctx, auth, body),
  'labels.update': async ({ ctx, auth, params, body }) => renameLabelByRef(ctx, auth, params.id, body),
  'labels.delete': async ({ ctx, auth, params }) => deleteLabelByRef(ctx, auth, params.id),
});
