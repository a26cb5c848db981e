import { it, expect } from 'vitest';
import { createTestApp } from '../../helpers/app.js';
import { inTransaction } from '../../../src/services/context.js';
it('nested', async () => {
  const t = await createTestApp();
  const p = inTransaction(t.ctx, async (tx) => {
    await tx.db.selectFrom('agents').selectAll().execute();
    return t.ctx.db.selectFrom('agents').selectAll().execute();
  });
  const r = await Promise.race([p.then(() => 'done'), new Promise((res) => setTimeout(() => res('hung'), 2000))]);
  console.log('RESULT', r);
});
