import crypto from 'node:crypto';
import type { SimulatorCredentials } from '../simulator/app';

/** Fresh random credentials for one simulator (every harness and simulator test makes its own). */
export function randomSimulatorCredentials(): SimulatorCredentials {
  const secret = () => crypto.randomBytes(32).toString('hex');
  return { carrierApiKey: secret(), paymentsApiKey: secret(), webhookSecret: secret(), controlToken: secret() };
}

/** A client of the simulator's control API (docs/simulator.md) that sends its token. */
export function simulatorControl(
  baseUrl: string,
  controlToken: string,
): (method: string, path: string, body?: unknown) => Promise<Response> {
  return (method, path, body) =>
    fetch(`${baseUrl}${path}`, {
      method,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${controlToken}` },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
}
