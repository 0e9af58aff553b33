import type { AppContext, AppDeps } from './context';
import { ApiError } from './errors';
import { acceptCallbackSignatureOnce, verifyCarrierCallback } from '../src/adapters/carrier/callbacks';
import { verifyTelnyxWebhook } from '../src/adapters/carrier/callbacks/telnyx';
import { environmentsOnCarrier } from '../src/platform/config';
import type { CarrierReach } from '../src/domain/carriers/reach';

/**
 * Authenticates a carrier callback (routes with `auth: { kind: 'carrier' }`), before its body is
 * validated: `X-Carrier-Timestamp` and `X-Carrier-Signature` (src/adapters/carrier/callbacks/signature.ts)
 * with CARRIER_WEBHOOK_SECRET over the raw body, a 5-minute window, and each signature accepted
 * once across every API instance. Every refusal is the same 401, whatever the reason (logged). The
 * callback may then act on the environments the simulator serves only (`carrierReachOf`).
 *
 * The window is measured on this machine's real clock, not the injected request clock tests move:
 * both sides of the comparison are real clocks of two machines.
 */
export async function authenticateCarrier(ctx: AppContext, deps: AppDeps): Promise<void> {
  const secret = deps.config.carrierWebhookSecret;
  const refuse = (reason: string) => {
    ctx.state.log.warn({ reason }, 'carrier callback refused');
    return new ApiError(401, 'unauthorized', 'Invalid carrier signature');
  };
  if (!secret) throw refuse('CARRIER_WEBHOOK_SECRET is not configured');
  const reach = environmentsOnCarrier(deps.config, 'simulator');
  if (reach.length === 0) throw refuse('no environment runs on the simulator');
  const now = new Date();
  const verdict = verifyCarrierCallback({ secret, headers: (name) => ctx.get(name), rawBody: ctx.state.rawBody ?? Buffer.alloc(0), now });
  if (!verdict.valid) throw refuse(verdict.reason);
  if (!(await acceptCallbackSignatureOnce(deps.db, { signature: verdict.signature, timestamp: verdict.timestamp, at: now })))
    throw refuse('replayed_signature');
  ctx.state.carrierReach = reach;
}

/**
 * Authenticates a Telnyx webhook (`/carrier/telnyx/events`): its Ed25519 signature over
 * `"<timestamp>|<raw body>"` with TELNYX_PUBLIC_KEY, a 300-second window, and each signature
 * accepted once, like ours. Every refusal is the same 401 with nothing changed (logged). The webhook may
 * act on the environments on Telnyx only: the live one (Telnyx has no test mode).
 */
export async function authenticateTelnyx(ctx: AppContext, deps: AppDeps): Promise<void> {
  const refuse = (reason: string) => {
    ctx.state.log.warn({ reason, provider: 'telnyx' }, 'carrier callback refused');
    return new ApiError(401, 'unauthorized', 'Invalid carrier signature');
  };
  const publicKey = deps.config.telnyx.publicKey;
  const reach = environmentsOnCarrier(deps.config, 'telnyx');
  if (reach.length === 0 || !publicKey) throw refuse('the Telnyx carrier is not configured');
  const verdict = await verifyTelnyxWebhook({
    publicKey,
    header: (name) => ctx.get(name) || undefined,
    rawBody: ctx.state.rawBody ?? Buffer.alloc(0),
  });
  if (!verdict.valid) throw refuse(verdict.reason);
  const at = new Date();
  if (!(await acceptCallbackSignatureOnce(deps.db, { signature: `telnyx:${verdict.signature}`, timestamp: verdict.timestamp, at })))
    throw refuse('replayed_signature');
  ctx.state.carrierReach = reach;
}

/** The environments a verified carrier callback may act on (set by the route's carrier authentication). */
export function carrierReachOf(ctx: AppContext): CarrierReach {
  if (!ctx.state.carrierReach) throw new Error('carrier route reached without carrier authentication');
  return ctx.state.carrierReach;
}
