import { Client, Connection } from '@temporalio/client';
import type { DataConverter, PayloadCodec } from '@temporalio/common';
import { FAILURE_CONVERTER_PATH } from '../codecs/failureConverter';
import { payloadEncryptionCodec, PAYLOAD_KEY_SETTING } from '../codecs/payloadEncryption';
import { requireSetting, type Config } from '../config';
import { tracingClientInterceptors } from '../tracing/temporal';

/**
 * Starts, signals and updates carry the caller's trace context when this process traces; every
 * payload is encrypted by `payloadCodec` (the deployment's: `payloadCodecOf(config)`).
 */
export async function connectTemporalClient(address: string, namespace: string, payloadCodec: PayloadCodec): Promise<Client> {
  const connection = await Connection.connect({ address });
  return new Client({
    connection,
    namespace,
    dataConverter: dataConverterWith(payloadCodec),
    interceptors: { workflow: tracingClientInterceptors() },
  });
}

/** The payload codec of this deployment (TEMPORAL_PAYLOAD_KEY): every client and worker uses it. */
export function payloadCodecOf(config: Pick<Config, 'temporalPayloadKey'>): PayloadCodec {
  return payloadEncryptionCodec(requireSetting(config.temporalPayloadKey, PAYLOAD_KEY_SETTING));
}

/**
 * The data converter of a client or worker: the SDK's payload converter, failures' messages and stack traces
 * moved into payloads (src/platform/codecs/failureConverter.ts, also bundled into the workflows), then the codec.
 */
export function dataConverterWith(payloadCodec: PayloadCodec): DataConverter {
  return { payloadCodecs: [payloadCodec], failureConverterPath: FAILURE_CONVERTER_PATH };
}
