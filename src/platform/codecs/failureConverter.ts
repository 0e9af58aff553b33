import { DefaultFailureConverter } from '@temporalio/common';

/**
 * The failure converter of every client, worker and workflow bundle (loaded by path:
 * `dataConverter.failureConverterPath`, `bundleWorkflowCode({ failureConverterPath })`). A failure's
 * message and stack trace move into a payload (`encodedAttributes`), which the payload codec then
 * encrypts (src/platform/codecs/payloadEncryption.ts): provider messages name phone numbers
 * ("+1… was bought meanwhile"). Failures recorded in clear still decode (the converter reads
 * `encodedAttributes` only when present). Deterministic and sandbox-safe: it runs inside workflows.
 */
export const failureConverter = new DefaultFailureConverter({ encodeCommonAttributes: true });

/** Its module path, for `failureConverterPath`. */
export const FAILURE_CONVERTER_PATH = __filename;
