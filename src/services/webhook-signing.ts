/**
 * Webhook signing for deliveries. The implementation is shared with the CLI (`webhooks listen`,
 * `webhooks verify`) and lives in the contract, the one module both may import: see
 * src/contract/webhook-signature.ts for the two schemes and why it uses WebCrypto (async).
 */
export {
  SIGNING_SECRET_PREFIX as SECRET_PREFIX,
  SIGNATURE_TOLERANCE_SECONDS,
  generateSigningSecret,
  mailsSignatureHex,
  standardSignature,
  signatureHeaders,
  verifyMailsSignature,
  verifyStandardSignature,
  type SignInput,
  type VerifyResult,
} from '../contract/webhook-signature.js';
