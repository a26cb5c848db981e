import { X509Certificate, createPrivateKey, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';

/** A problem with the SMTP STARTTLS files: the setting to change and what to do. */
export interface TlsProblem {
  field: 'tlsCert' | 'tlsKey';
  message: string;
}

const CERT_SETTING = '--tls-cert (MAILAGENT_TLS_CERT, config tlsCert)';
const KEY_SETTING = '--tls-key (MAILAGENT_TLS_KEY, config tlsKey)';

/**
 * Read and check the STARTTLS certificate and key before anything starts, so that a wrong path,
 * swapped files or a key of another certificate is a configuration error naming the setting
 * (serve exits 2, doctor fails the check) instead of an OpenSSL message at listener start.
 */
export function checkTlsFiles(cert: string | null, key: string | null): TlsProblem | null {
  if (!cert || !key) return null;
  const read = (file: string, field: TlsProblem['field']): Buffer | TlsProblem => {
    try {
      return readFileSync(file);
    } catch (err) {
      const e = err as NodeJS.ErrnoException;
      const why = e.code === 'ENOENT' ? 'no such file' : e.code === 'EACCES' ? 'permission denied (the service user must be able to read it)' : e.message;
      return { field, message: `cannot read ${file}: ${why}. Point ${field === 'tlsCert' ? CERT_SETTING : KEY_SETTING} at the PEM ${field === 'tlsCert' ? 'certificate chain (e.g. /etc/letsencrypt/live/HOST/fullchain.pem)' : 'private key (e.g. /etc/letsencrypt/live/HOST/privkey.pem)'}.` };
    }
  };
  const certPem = read(cert, 'tlsCert');
  if (!Buffer.isBuffer(certPem)) return certPem;
  const keyPem = read(key, 'tlsKey');
  if (!Buffer.isBuffer(keyPem)) return keyPem;
  const looksLikeKey = (b: Buffer) => /-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(b.toString('latin1'));
  const looksLikeCert = (b: Buffer) => /-----BEGIN CERTIFICATE-----/.test(b.toString('latin1'));
  if (looksLikeKey(certPem) && !looksLikeCert(certPem) && looksLikeCert(keyPem)) {
    return { field: 'tlsCert', message: `${cert} holds a private key and ${key} a certificate: ${CERT_SETTING} and ${KEY_SETTING} are swapped.` };
  }
  let x509: X509Certificate;
  try {
    x509 = new X509Certificate(certPem);
  } catch (err) {
    return { field: 'tlsCert', message: `${cert} is not a PEM certificate (${(err as Error).message}). ${CERT_SETTING} needs the certificate chain, starting with -----BEGIN CERTIFICATE-----.` };
  }
  let pkey: KeyObject;
  try {
    pkey = createPrivateKey(keyPem);
  } catch (err) {
    return { field: 'tlsKey', message: `${key} is not a PEM private key (${(err as Error).message}). ${KEY_SETTING} needs the unencrypted key, starting with -----BEGIN PRIVATE KEY----- (or RSA/EC PRIVATE KEY).` };
  }
  if (!x509.checkPrivateKey(pkey)) {
    return { field: 'tlsKey', message: `${key} is not the key of the certificate in ${cert} (key values mismatch). Give ${KEY_SETTING} the key the certificate was issued for.` };
  }
  return null;
}
