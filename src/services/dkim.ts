import { generateKeyPair } from 'node:crypto';
import { promisify } from 'node:util';
import { domainByName } from '../db/repos/domains.js';
import type { AppContext } from './context.js';

const generate = promisify(generateKeyPair);

/** A DKIM key per domain: RSA 2048 (RFC 8301 minimum 1024, 2048 recommended; fits one TXT record). */
export async function newDkimKey(): Promise<{ privateKeyPem: string; publicKeyB64: string }> {
  const { privateKey, publicKey } = await generate('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'der' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  return { privateKeyPem: privateKey as unknown as string, publicKeyB64: (publicKey as unknown as Buffer).toString('base64') };
}

/** The TXT value of the DKIM record (RFC 6376 §3.6.1). */
export function dkimRecordValue(publicKeyB64: string): string {
  return `v=DKIM1; k=rsa; p=${publicKeyB64}`;
}

/** nodemailer's DKIM options for mail from an agent on a verified custom domain, else null. */
export async function dkimFor(ctx: AppContext, agent: { workspace_id: string; domain: string }): Promise<{ domainName: string; keySelector: string; privateKey: string } | null> {
  const d = await domainByName(ctx.db, agent.domain);
  if (!d || d.workspace_id !== agent.workspace_id || d.status !== 'verified') return null;
  return { domainName: d.domain, keySelector: d.dkim_selector, privateKey: d.dkim_private_key };
}
