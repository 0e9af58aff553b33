import fs from 'node:fs';
import { Client, Connection, type TLSConfig } from '@temporalio/client';
import type { DataConverter, PayloadCodec } from '@temporalio/common';
import { FAILURE_CONVERTER_PATH } from '../codecs/failureConverter';
import { payloadEncryptionCodec, PAYLOAD_KEY_SETTING } from '../codecs/payloadEncryption';
import { requireSetting, type Config, type TemporalTlsSettings } from '../config';
import { tracingClientInterceptors } from '../tracing/temporal';
import { releaseCallContext } from './callContext';

/**
 * Starts, signals and updates carry the caller's trace context when this process traces; every
 * payload is encrypted by `payloadCodec` (the deployment's: `payloadCodecOf(config)`).
 */
export async function connectTemporalClient(
  address: string,
  namespace: string,
  payloadCodec: PayloadCodec,
  tls?: TLSConfig,
): Promise<Client> {
  const connection = await Connection.connect({ address, tls });
  // Connecting left the client's call-context storage live, and with it async_hooks for the whole process (callContext.ts).
  releaseCallContext(connection);
  return new Client({
    connection,
    namespace,
    dataConverter: dataConverterWith(payloadCodec),
    interceptors: { workflow: tracingClientInterceptors() },
  });
}

/**
 * The client of this deployment's Temporal, as every process connects to it: TEMPORAL_ADDRESS and TEMPORAL_NAMESPACE,
 * the deployment's payload codec, and TLS where TEMPORAL_TLS* asks for it.
 */
export function connectDeploymentTemporal(
  config: Pick<Config, 'temporalAddress' | 'temporalNamespace' | 'temporalPayloadKey' | 'temporalTls'>,
): Promise<Client> {
  return connectTemporalClient(
    requireSetting(config.temporalAddress, 'TEMPORAL_ADDRESS'),
    config.temporalNamespace,
    payloadCodecOf(config),
    temporalTlsOf(config),
  );
}

/**
 * The TLS options of every connection to Temporal (clients and workers alike) from `config.temporalTls`, with the
 * certificate files read now (a pod restart loads a rotated certificate); undefined: plaintext.
 */
export function temporalTlsOf(config: { temporalTls: TemporalTlsSettings | undefined }): TLSConfig | undefined {
  const settings = config.temporalTls;
  if (!settings) return undefined;
  const read = (file: string, setting: string) => {
    try {
      return fs.readFileSync(file);
    } catch (err) {
      throw new Error(`${setting}: ${file} cannot be read (${(err as Error).message})`, { cause: err });
    }
  };
  return {
    ...(settings.clientCertPath && settings.clientKeyPath
      ? {
          clientCertPair: {
            crt: read(settings.clientCertPath, 'TEMPORAL_TLS_CLIENT_CERT_PATH'),
            key: read(settings.clientKeyPath, 'TEMPORAL_TLS_CLIENT_KEY_PATH'),
          },
        }
      : {}),
    ...(settings.serverCaCertPath ? { serverRootCACertificate: read(settings.serverCaCertPath, 'TEMPORAL_TLS_SERVER_CA_CERT_PATH') } : {}),
    ...(settings.serverName ? { serverNameOverride: settings.serverName } : {}),
  };
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
